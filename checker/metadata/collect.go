// Package metadata is the checker of the KRaft quorum's metadata: what an
// admin client's metadata changes promise (an acknowledged topic,
// partition count or config stays; a deleted topic stays deleted), that
// the nodes agree once healed, that the quorum had one leader per epoch,
// and how long metadata changes failed under each fault; and that the
// controller quorum's voter set keeps what KIP-853 acknowledged (an
// AddRaftVoter or RemoveRaftVoter answered NONE is committed: voters.go).
// It reads the history's metadata ops, metadata reads, quorum samples and
// nemesis ops (histories/metadata.go, histories/quorum.go,
// add-controller and remove-controller in histories/faults.go) and, from
// run.json through Options, each controller's auto-join setting; nothing
// else: it is pure, like the rest of the checker.
package metadata

import (
	"fmt"
	"slices"
	"time"

	"github.com/kchaos/kchaos/histories"
)

// defaultResignGrace is how long after a newer epoch is first seen a
// sample may still show the old leader claiming its older epoch before
// that counts as split-brain. Raft allows a deposed leader to believe it
// leads until it learns otherwise, and since KAFKA-15489 (3.7, 3.6.1) a
// KRaft leader resigns when a majority has not fetched from it for 1.5 ×
// controller.quorum.fetch.timeout.ms (3 s by default); the rest is the
// observer's 250 ms sampling and a forwarded request's delay.
const defaultResignGrace = 10 * time.Second

// Options tune the checker; zero values take the defaults.
type Options struct {
	ResignGrace time.Duration
	// AutoJoin is each controller's controller.quorum.auto.join.enable
	// (AutoJoinKey) as run.json's controller_configs recorded it (false:
	// recorded, and off or absent, Kafka's default); a controller missing
	// from it, or a nil map (a bare history), is unknown. An auto-joining
	// controller that was removed while it runs adds itself back
	// (KAFKA-19850), which is no lost removal.
	AutoJoin map[int32]bool
}

// AutoJoinKey is Kafka's name of the auto-join setting (KIP-853, 4.2+),
// cluster.autoJoinConfig: the checker is pure and imports no cluster.
const AutoJoinKey = "controller.quorum.auto.join.enable"

// AutoJoinFrom reads Options.AutoJoin from run.json's controller_configs
// (each controller's server.properties as the node read it): nil when
// none is recorded.
func AutoJoinFrom(configs map[int32]map[string]string) map[int32]bool {
	if len(configs) == 0 {
		return nil
	}
	out := map[int32]bool{}
	for id, props := range configs {
		out[id] = props[AutoJoinKey] == "true"
	}
	return out
}

// op is one metadata change and its outcome.
type op struct {
	Process  int
	F        string
	Value    histories.MetaOp
	Type     histories.Type // ok, fail, info; info also for an op the history left open
	Invoke   int64
	Complete int64 // -1: never completed
	Error    string
}

// sample is one quorum sample.
type sample struct {
	At int64
	// Since is the earliest moment the answer can show: its ask
	// (QuorumValue.Asked) or, not recorded, the previous sample from the
	// same source (the observer records a round's answers before it asks
	// again; 0 for a source's first). A state is known to hold after an
	// event only from a sample whose Since is past it.
	Since int64
	histories.QuorumValue
}

// appliedFault is one nemesis op that took effect (ok), for the windows.
type appliedFault struct {
	At    int64
	Name  string
	Nodes []int32
}

// nemOp is one nemesis op, invoke and completion, for the voter-set
// analysis: which controllers were stopped or may have been started, and
// the reconfigurations with what Kafka answered them (Details, kept for
// add-controller and remove-controller only).
type nemOp struct {
	F        string
	Index    int64 // the completion's history index; -1 never completed
	Invoke   int64
	Complete int64 // -1: never completed
	Type     histories.Type
	Nodes    []int32
	Details  map[string]any
}

// Collector gathers the metadata domain's events as the history streams.
type Collector struct {
	opts    Options
	ops     []op
	open    map[int]int // process -> its open op (index into ops), metadata ops only
	reading map[int]int64
	reads   map[int32]histories.MetadataRead // node -> its last ok read
	readAt  map[int32]int64
	samples []sample
	sampled map[int32]int64 // source (QuorumValue.From) -> its last sample's time
	faults  []appliedFault
	nem     []nemOp
	nemOpen map[string]int // f -> its open op (index into nem)
	last    int64
}

// New returns an empty Collector.
func New(opts Options) *Collector {
	if opts.ResignGrace <= 0 {
		opts.ResignGrace = defaultResignGrace
	}
	return &Collector{opts: opts, open: map[int]int{}, reading: map[int]int64{},
		reads: map[int32]histories.MetadataRead{}, readAt: map[int32]int64{}, nemOpen: map[string]int{},
		sampled: map[int32]int64{}}
}

// WithAutoJoin sets Options.AutoJoin (known only once run.json is read;
// only Result reads it) and returns c.
func (c *Collector) WithAutoJoin(m map[int32]bool) *Collector {
	c.opts.AutoJoin = m
	return c
}

// Takes reports whether the event is the metadata domain's alone (its ops,
// reads and quorum samples); nemesis ops are read by every domain.
func Takes(e *histories.Event) bool {
	switch {
	case e.Process == histories.ObserverProcess:
		return e.F == histories.FQuorum
	case e.Process >= 0:
		return e.F == histories.FMetadataRead || slices.Contains(histories.MetadataOps, e.F)
	}
	return false
}

// Add takes the next event. Events the domain does not read are ignored;
// an event of its own that breaks the operation model or its contract
// shape is an error naming the field.
func (c *Collector) Add(e *histories.Event) error {
	c.last = e.Time
	switch {
	case e.Process == histories.NemesisProcess:
		var v histories.NemesisValue
		decoded := e.Decode(&v) == nil
		if e.Type == histories.OK && !histories.IsBookkeeping(e.F) && e.F != histories.FHeal && decoded {
			c.faults = append(c.faults, appliedFault{At: e.Time, Name: e.F, Nodes: v.Nodes})
		}
		c.addNemesis(e, v)
		return nil
	case !Takes(e):
		return nil
	case e.F == histories.FQuorum:
		var q histories.QuorumValue
		if err := e.Decode(&q); err != nil {
			return fmt.Errorf("quorum value: %w", err)
		}
		since := c.sampled[q.From]
		switch {
		case q.Asked < 0 || q.Asked > e.Time:
			return fmt.Errorf("quorum value: asked %d is not between 0 and the event's time %d", q.Asked, e.Time)
		case q.Asked > 0:
			since = q.Asked
		}
		c.sampled[q.From] = e.Time
		c.samples = append(c.samples, sample{At: e.Time, Since: since, QuorumValue: q})
		return nil
	case e.F == histories.FMetadataRead:
		return c.addRead(e)
	}
	return c.addOp(e)
}

func (c *Collector) addOp(e *histories.Event) error {
	p := e.Process
	if e.Type == histories.Invoke {
		if i, ok := c.open[p]; ok {
			return fmt.Errorf("process %d invokes %s while %s is open", p, e.F, c.ops[i].F)
		}
		var v histories.MetaOp
		if err := e.Decode(&v); err != nil {
			return fmt.Errorf("%s invoke value: %w", e.F, err)
		}
		if v.Topic == "" {
			return fmt.Errorf(`%s invoke value: missing field "topic"`, e.F)
		}
		if e.F == histories.FAlterConfig && v.Key == "" {
			return fmt.Errorf(`%s invoke value: missing field "key"`, e.F)
		}
		if (e.F == histories.FCreateTopic || e.F == histories.FCreatePartitions) && v.Partitions <= 0 {
			return fmt.Errorf(`%s invoke value: "partitions" must be positive`, e.F)
		}
		c.open[p] = len(c.ops)
		c.ops = append(c.ops, op{Process: p, F: e.F, Value: v, Invoke: e.Time, Complete: -1})
		return nil
	}
	i, ok := c.open[p]
	if !ok || c.ops[i].F != e.F {
		return fmt.Errorf("process %d completes %s without its invoke", p, e.F)
	}
	delete(c.open, p)
	c.ops[i].Type, c.ops[i].Complete, c.ops[i].Error = e.Type, e.Time, e.Error
	return nil
}

func (c *Collector) addRead(e *histories.Event) error {
	p := e.Process
	if e.Type == histories.Invoke {
		c.reading[p] = e.Time
		return nil
	}
	if _, ok := c.reading[p]; !ok {
		return fmt.Errorf("process %d completes %s without its invoke", p, e.F)
	}
	delete(c.reading, p)
	if e.Type != histories.OK {
		return nil
	}
	var r histories.MetadataRead
	if err := e.Decode(&r); err != nil {
		return fmt.Errorf("metadata-read value: %w", err)
	}
	if r.Role == "" {
		return fmt.Errorf(`metadata-read value: missing field "role"`)
	}
	c.reads[r.Node], c.readAt[r.Node] = r, e.Time
	return nil
}

// addNemesis follows a nemesis op (one op of a kind open at a time, as
// the nemesis runs them; a completion without its invoke is taken as
// invoked then). Its value is free-form: one that does not decode is
// kept without nodes or details, never bad input (no domain owns it).
func (c *Collector) addNemesis(e *histories.Event, v histories.NemesisValue) {
	if e.Type == histories.Invoke {
		c.nemOpen[e.F] = len(c.nem)
		c.nem = append(c.nem, nemOp{F: e.F, Index: -1, Invoke: e.Time, Complete: -1})
		return
	}
	i, ok := c.nemOpen[e.F]
	if !ok {
		i = len(c.nem)
		c.nem = append(c.nem, nemOp{F: e.F, Invoke: e.Time})
	}
	delete(c.nemOpen, e.F)
	o := &c.nem[i]
	o.Index, o.Complete, o.Type, o.Nodes = e.Index, e.Time, e.Type, v.Nodes
	if e.F == histories.FAddController || e.F == histories.FRemoveController {
		o.Details = v.Details
	}
}

// closeOpen ends the ops the history left open as Jepsen does: unknown.
func (c *Collector) closeOpen() {
	for p, i := range c.open {
		c.ops[i].Type = histories.Info
		delete(c.open, p)
	}
	for f, i := range c.nemOpen {
		c.nem[i].Type = histories.Info
		delete(c.nemOpen, f)
	}
}
