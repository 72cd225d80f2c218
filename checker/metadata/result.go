package metadata

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/internal/tally"
)

// Anomaly names, in the order the domain declares them.
const (
	Lost            = "metadata-lost"
	Diverged        = "metadata-diverged"
	SplitBrain      = "split-brain"
	VoterChangeLost = "voter-change-lost"
	Unavailable     = "metadata-unavailable"
)

// analysis is what the Collector concludes: the domain's anomalies, the
// quorum's terms and what leaves the verdict unknown (Found carries it
// to the checker).
type analysis struct {
	MetadataAnomalies
	// Terms are the quorum's leaders as the samples saw them (information:
	// how fast leadership moved, and how long a deposed leader still
	// answered as leader).
	Terms []Term `json:"quorum_terms,omitempty"`
	// Unknowns are what leaves the verdict unknown beyond the entries:
	// acknowledged changes that nothing after them can judge (no broker's
	// metadata read; no quorum sample listing the voters). Notes are
	// removals that auto-join explains. Both go to the reasons.
	Unknowns []string `json:"-"`
	Notes    []string `json:"-"`
	// Unexercised says no metadata change was acknowledged: metadata-lost
	// held vacuously (a cause of unknown too).
	Unexercised []string `json:"-"`
}

// MetadataAnomalies is the domain's part of the Result's anomalies (package
// checker embeds it) and declares its kinds: each list's JSON name, unit
// and rule (read by domain.New), in HISTORY.md's order.
type MetadataAnomalies struct {
	MetadataLost     []LostEntry       `json:"metadata-lost,omitempty" unit:"per change" rule:"always"`
	MetadataDiverged []DivergedEntry   `json:"metadata-diverged,omitempty" unit:"per node" rule:"always"`
	SplitBrain       []SplitBrainEntry `json:"split-brain,omitempty" unit:"per epoch" rule:"always"`
	// An acknowledged voter set change is committed (voters.go): its loss
	// counts, except a removed voter voting again while it may have run
	// with auto-join on (KAFKA-19850 re-adds it), which leaves the
	// verdict unknown (the entries Counted marks count).
	VoterChangeLost []VoterChangeEntry `json:"voter-change-lost,omitempty" unit:"per change" rule:"per entry"`
	// How long changes failed under a fault is what the quorum promises
	// nothing about: information (in counts like every kind, never in
	// counted_against_validity, as G0 and redelivery).
	MetadataUnavailable []UnavailableEntry `json:"metadata-unavailable,omitempty" unit:"per window" rule:"never"`
}

// LostEntry is an acknowledged change the converged metadata lacks, or a
// deleted topic that came back. An acknowledged create-partitions or
// alter-config proves its topic existed (Kafka answers
// UNKNOWN_TOPIC_OR_PARTITION otherwise), so its topic missing with no
// delete after it is lost too, however its creation ended.
type LostEntry struct {
	F        string  `json:"f"`
	Topic    string  `json:"topic"`
	Process  int     `json:"process"`
	InvokedS float64 `json:"invoked_s"`
	AckedS   float64 `json:"acked_s"`
	// Want is what the ack promised; Got what the converged metadata holds
	// (read from node Node).
	Want string `json:"want"`
	Got  string `json:"got"`
	Node int32  `json:"node"`
}

// DivergedEntry is a node that still disagrees after the convergence wait,
// or a quorum whose high watermark went back under one leader and epoch.
type DivergedEntry struct {
	Node int32 `json:"node"`
	// Differences say what the node holds against the reference node (the
	// most advanced one), a few at most.
	Differences []string `json:"differences"`
	Reference   int32    `json:"reference"`
	AtS         float64  `json:"at_s,omitempty"`
}

// SplitBrainEntry is two controllers acting as leader in one epoch, or a
// leader of an older epoch still answering as leader longer than the
// resign grace after a newer epoch was seen.
type SplitBrainEntry struct {
	Epoch   int32   `json:"epoch"`
	Leaders []int32 `json:"leaders"`
	AtS     float64 `json:"at_s"`
	// NewerEpoch is set when an older epoch's leader answered after it.
	NewerEpoch *int32 `json:"newer_epoch,omitempty"`
	Why        string `json:"why"`
}

// UnavailableEntry is a window during which metadata changes failed (or
// ended unknown) for want of a quorum or a controller: information.
type UnavailableEntry struct {
	FromS  float64        `json:"from_s"`
	ToS    float64        `json:"to_s"` // the next success; the history's end without one
	Ended  bool           `json:"ended"`
	Ops    int            `json:"ops"`
	Errors map[string]int `json:"errors"`
	// Fault is the last fault that took effect before the window opened.
	Fault string `json:"fault,omitempty"`
}

// Term is one leader epoch as the samples saw it. StaleS is how long
// after a newer epoch was first seen this epoch's leader still answered
// as leader (0: never after it; -1: not superseded).
type Term struct {
	Epoch  int32   `json:"epoch"`
	Leader int32   `json:"leader"`
	FirstS float64 `json:"first_s"`
	LastS  float64 `json:"last_s"`
	StaleS float64 `json:"stale_s"`
}

func secs(t int64) float64 { return math.Round(float64(t)/1e6) / 1e3 }

// result judges what was collected. Call it once, after the last Add.
func (c *Collector) result() analysis {
	c.closeOpen()
	var r analysis
	reads := c.converged()
	ref, view := reference(reads)
	var refusedNotes []string
	r.MetadataLost, refusedNotes = c.lost(ref, view)
	r.MetadataDiverged = perNode(c.diverged(reads, ref, view), c.watermarkBack())
	r.SplitBrain, r.Terms = c.splitBrain()
	r.VoterChangeLost, r.Unknowns, r.Notes = c.voterChanges()
	r.Notes = append(r.Notes, refusedNotes...)
	r.MetadataUnavailable = c.unavailable()
	n, first := c.acked()
	if n == 0 && len(c.ops) > 0 {
		// As the checker's nothing-acknowledged rule says of sends: with no
		// change acknowledged, metadata-lost holds vacuously.
		r.Unexercised = append(r.Unexercised, fmt.Sprintf("%s: %s invoked, none acknowledged%s: no acknowledged change to check",
			Lost, tally.N(len(c.ops), "metadata change", "metadata changes"), c.opErrors()))
	}
	if view == nil {
		if n > 0 {
			r.Unknowns = append([]string{fmt.Sprintf("%s: %d acknowledged metadata changes (first: %s) and no broker's completed metadata read: nothing shows whether they held",
				Lost, n, first)}, r.Unknowns...)
		}
	}
	return r
}

// opErrors is " (E1 n1, E2 n2, ...)": what the changes ended with, most
// first.
func (c *Collector) opErrors() string {
	n := map[string]int{}
	for _, o := range c.ops {
		n[cmp.Or(o.Error, string(o.Type))]++
	}
	return " (" + tally.Top(n, 3) + ")"
}

// acked counts the acknowledged metadata changes and names the first.
func (c *Collector) acked() (int, string) {
	n, first := 0, ""
	for _, o := range c.ops {
		if o.Type == histories.OK {
			if n == 0 {
				first = fmt.Sprintf("%s %s by p%d acknowledged at %.3f s", o.F, o.Value.Topic, o.Process, secs(o.Complete))
			}
			n++
		}
	}
	return n, first
}

// after reports whether some op of f on topic, not failed, may take
// effect after time t: it completed after t, or never did.
func (c *Collector) after(f, topic string, t int64, match func(op) bool) bool {
	for _, o := range c.ops {
		if o.F == f && o.Value.Topic == topic && o.Type != histories.Fail &&
			(o.Complete < 0 || o.Type == histories.Info || o.Complete > t) && (match == nil || match(o)) {
			return true
		}
	}
	return false
}

// doneRefusals are, per change, the refusal Kafka answers when the state
// the change asks for already holds. Such a refusal does not prove the
// change was not made: a broker forwards a change to the active
// controller and, answered NOT_CONTROLLER, sends it again to the next one
// (NodeToControllerRequestThread); when the first controller wrote the
// change's records and lost its leadership before answering, the new
// leader commits them and the second attempt is refused as already done.
// Seen on 3.9.2 in q1 (2026-12-06, docs/findings.md): a delete-topic
// answered UNKNOWN_TOPIC_OR_PARTITION 2.3 s after the controller that had
// removed the topic renounced, with no other delete of it anywhere.
var doneRefusals = map[string]string{
	histories.FDeleteTopic:      "UNKNOWN_TOPIC_OR_PARTITION",
	histories.FCreateTopic:      "TOPIC_ALREADY_EXISTS",
	histories.FCreatePartitions: "INVALID_PARTITIONS",
}

// refusedAsDone returns the first op of f on topic completed after t
// whose refusal says its change already held (doneRefusals), or nil.
func (c *Collector) refusedAsDone(f, topic string, t int64) *op {
	want, ok := doneRefusals[f]
	if !ok {
		return nil
	}
	for i := range c.ops {
		o := &c.ops[i]
		if o.F == f && o.Value.Topic == topic && o.Type == histories.Fail && o.Complete > t && strings.Contains(o.Error, want) {
			return o
		}
	}
	return nil
}

// lost holds each acknowledged change against the converged metadata
// (view, read from node ref). A loss that a later change refused as
// already done explains (refusedAsDone) is no loss: the refusal is taken
// as the change having been made, and a note says so.
func (c *Collector) lost(ref int32, view map[string]histories.TopicMeta) ([]LostEntry, []string) {
	if view == nil {
		return nil, nil
	}
	var out []LostEntry
	var notes []string
	for _, o := range c.ops {
		if o.Type != histories.OK {
			continue // unknown outcomes are never lost
		}
		t := o.Value.Topic
		meta, has := view[t]
		e := LostEntry{F: o.F, Topic: t, Process: o.Process, InvokedS: secs(o.Invoke), AckedS: secs(o.Complete), Node: ref}
		deletedAfter := c.after(histories.FDeleteTopic, t, o.Invoke, nil)
		recreatedAfter := c.after(histories.FCreateTopic, t, o.Invoke, nil)
		switch o.F {
		case histories.FCreateTopic:
			if !has && !deletedAfter {
				e.Want, e.Got = fmt.Sprintf("topic with %d partitions", o.Value.Partitions), "no such topic"
			}
		case histories.FDeleteTopic:
			if has && !recreatedAfter {
				e.Want, e.Got = "topic deleted", fmt.Sprintf("topic with %d partitions", meta.Partitions)
			}
		case histories.FCreatePartitions:
			switch {
			case !has && !deletedAfter:
				// The ack proves the topic: Kafka refuses a change to a
				// topic it does not have.
				e.Want, e.Got = fmt.Sprintf("topic (this ack proves it existed) with %d partitions", o.Value.Partitions), "no such topic"
			case has && meta.Partitions < o.Value.Partitions && !deletedAfter && !recreatedAfter:
				e.Want, e.Got = fmt.Sprintf("%d partitions", o.Value.Partitions), fmt.Sprintf("%d partitions", meta.Partitions)
			}
		case histories.FAlterConfig:
			got, set := meta.Configs[o.Value.Key]
			if !has && !deletedAfter {
				e.Want, e.Got = fmt.Sprintf("topic (this ack proves it existed) with %s=%s", o.Value.Key, o.Value.Value), "no such topic"
				break
			}
			if !has || deletedAfter || recreatedAfter || (set && got == o.Value.Value) {
				continue
			}
			// A register: the final value may be any write that could take
			// effect after this one.
			if set && c.after(histories.FAlterConfig, t, o.Invoke, func(w op) bool {
				return w.Value.Key == o.Value.Key && w.Value.Value == got
			}) {
				continue
			}
			e.Want = fmt.Sprintf("%s=%s", o.Value.Key, o.Value.Value)
			e.Got = o.Value.Key + " unset"
			if set {
				e.Got = fmt.Sprintf("%s=%s, which no write after this one set", o.Value.Key, got)
			}
		}
		if e.Want == "" {
			continue
		}
		// What could have undone this change: a delete of its topic, or
		// for a delete, a create again.
		undo := histories.FDeleteTopic
		if o.F == histories.FDeleteTopic {
			undo = histories.FCreateTopic
		}
		if !has || o.F == histories.FDeleteTopic { // the topic gone, or a deleted one back
			if r := c.refusedAsDone(undo, t, o.Invoke); r != nil {
				notes = append(notes, fmt.Sprintf("%s %s by p%d (invoked at %.3f s) was refused with %s at %.3f s, yet %s by p%d was acknowledged at %.3f s and the converged metadata (node %d) has %s: "+
					"taken as the %s made and its refusal the answer to a second attempt (a broker sends a forwarded change again after NOT_CONTROLLER), not as the %s lost",
					r.F, t, r.Process, secs(r.Invoke), doneRefusals[undo], secs(r.Complete), o.F, o.Process, secs(o.Complete), ref, e.Got, r.F, o.F))
				continue
			}
		}
		out = append(out, e)
	}
	return out, notes
}

func (c *Collector) splitBrain() ([]SplitBrainEntry, []Term) {
	var out []SplitBrainEntry
	terms := map[int32]*Term{}
	reported := map[int32]bool{}
	maxEpoch, maxAt := int32(-1), int64(0)
	for _, s := range c.samples {
		if s.LeaderID < 0 {
			continue
		}
		e := s.LeaderEpoch
		t := terms[e]
		switch {
		case t == nil:
			terms[e] = &Term{Epoch: e, Leader: s.LeaderID, FirstS: secs(s.At), LastS: secs(s.At), StaleS: -1}
		case t.Leader != s.LeaderID:
			if !reported[e] {
				reported[e] = true
				out = append(out, SplitBrainEntry{Epoch: e, Leaders: sorted(t.Leader, s.LeaderID), AtS: secs(s.At),
					Why: fmt.Sprintf("controllers %d and %d both answered as leader of epoch %d", t.Leader, s.LeaderID, e)})
			}
		default:
			t.LastS = secs(s.At)
		}
		if e > maxEpoch {
			maxEpoch, maxAt = e, s.At
			continue
		}
		if e == maxEpoch {
			continue
		}
		// An older epoch's leader still answering as leader: from the ask
		// at the latest (Since), for the answer may have been computed
		// then; the newer epoch existed by maxAt.
		stale := s.Since - maxAt
		if t != nil && t.Leader == s.LeaderID {
			t.StaleS = max(t.StaleS, secs(stale))
		}
		if stale > c.opts.ResignGrace.Nanoseconds() && !reported[e] {
			reported[e] = true
			newer := maxEpoch
			out = append(out, SplitBrainEntry{Epoch: e, Leaders: sorted(s.LeaderID, terms[maxEpoch].Leader), AtS: secs(s.At), NewerEpoch: &newer,
				Why: fmt.Sprintf("controller %d still answered as leader of epoch %d %.1f s after epoch %d (leader %d) was seen (grace %s)",
					s.LeaderID, e, secs(stale), maxEpoch, terms[maxEpoch].Leader, c.opts.ResignGrace)})
		}
	}
	ts := make([]Term, 0, len(terms))
	for _, e := range slices.Sorted(maps.Keys(terms)) {
		t := *terms[e]
		if t.StaleS < 0 && e < maxEpoch {
			t.StaleS = 0
		}
		ts = append(ts, t)
	}
	return out, ts
}

func sorted(ids ...int32) []int32 { slices.Sort(ids); return slices.Compact(ids) }

// refusals are answers that say the change was judged and refused, not
// that the quorum could not take it: they open no unavailability window.
var refusals = []string{"UNKNOWN_TOPIC_OR_PARTITION", "TOPIC_ALREADY_EXISTS", "INVALID_PARTITIONS",
	"INVALID_REPLICATION_FACTOR", "POLICY_VIOLATION", "INVALID_CONFIG", "INVALID_REQUEST", "TOPIC_DELETION_DISABLED"}

func refused(o op) bool {
	return o.Type == histories.Fail && slices.ContainsFunc(refusals, func(r string) bool { return strings.Contains(o.Error, r) })
}

// unavailable finds the windows in which metadata changes failed or ended
// unknown for want of a quorum: from the first such op's invoke to the
// next op that succeeded.
func (c *Collector) unavailable() []UnavailableEntry {
	done := slices.Clone(c.ops)
	slices.SortStableFunc(done, func(a, b op) int { return cmp.Compare(end(a, c.last), end(b, c.last)) })
	var out []UnavailableEntry
	var w *UnavailableEntry
	for _, o := range done {
		switch {
		case o.Type == histories.OK:
			if w != nil {
				w.ToS, w.Ended = secs(o.Complete), true
				w.Fault = c.faultOf(w)
				out = append(out, *w)
				w = nil
			}
		case refused(o):
		default:
			if w == nil {
				w = &UnavailableEntry{FromS: secs(o.Invoke), Errors: map[string]int{}}
			}
			w.FromS = min(w.FromS, secs(o.Invoke))
			w.Ops++
			w.Errors[errorClass(o)]++
		}
	}
	if w != nil {
		w.ToS = secs(c.last)
		w.Fault = c.faultOf(w)
		out = append(out, *w)
	}
	return out
}

// kafkaCode is a Kafka error name at the start of an error text.
var kafkaCode = regexp.MustCompile(`^[A-Z][A-Z_]+[A-Z]\b`)

// errorClass names why an op failed, for the windows' counts: the Kafka
// error code when the answer had one, else what the client saw (a timeout,
// a lost connection), without addresses that would split the counts.
func errorClass(o op) string {
	msg := o.Error
	switch {
	case msg == "":
		return "(no error: " + string(o.Type) + ")"
	case kafkaCode.MatchString(msg):
		return kafkaCode.FindString(msg)
	case strings.Contains(msg, "timeout") || strings.Contains(msg, "deadline exceeded"):
		return "timeout"
	case strings.Contains(msg, "EOF") || strings.Contains(msg, "connection"):
		return "connection lost"
	}
	return "other"
}

func end(o op, last int64) int64 {
	if o.Complete < 0 {
		return last
	}
	return o.Complete
}

// faultOf names the fault a window belongs to: the last that took effect
// before it opened, or else the first during it (an op invoked while a
// fault was being injected and proven opens the window before the fault's
// ok is recorded).
func (c *Collector) faultOf(w *UnavailableEntry) string {
	name := ""
	for _, f := range c.faults {
		at := secs(f.At)
		if at > w.ToS || name != "" && at > w.FromS {
			break
		}
		name = fmt.Sprintf("%s %v at %.1f s", f.Name, f.Nodes, at)
	}
	return name
}
