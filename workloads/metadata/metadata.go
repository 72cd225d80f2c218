// Package metadata is the metadata workload (workload.metadata), a
// workload kind of its own: admin clients that change the KRaft metadata
// (topics made, deleted, grown; a shared topic's config key set) while the
// produce workload runs, each change an op with the outcome its one
// request's answer proves, and the final read of every broker's view. It
// reads its settings (workloads.MetadataConfig, a section of the
// workload's Config) and its admin client (workloads.NewMetaAdmin: the
// driver's own, else kchaos's unretried one) from the seam; the harness
// runs it beside the workload (harness/metadata.go).
package metadata

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/workloads"
)

// opTimeout bounds one change: the controller's own timeout
// (5 s) plus the request's overhead.
const opTimeout = 8 * time.Second

// Stats counts the metadata workload's ops by outcome.
type Stats struct{ OK, Fail, Info int64 }

// Workload is the metadata workload: Clients admin clients, each on its
// own process, creating and deleting topics of their own, adding
// partitions to them and setting one config key of a shared topic, each
// change an op with its outcome. Every client's choices come from the
// seed, so a run's sequence of requests replays (the answers do not).
type Workload struct {
	cfg  workloads.MetadataConfig
	adm  workloads.MetaAdmin
	rec  workloads.Recorder
	rf   int16
	seed int64

	stop         chan struct{}
	stopOnce     sync.Once
	ok, fail, in atomic.Int64
}

// New returns the metadata workload; rf is the replication factor
// of the topics it creates.
func New(cfg workloads.MetadataConfig, adm workloads.MetaAdmin, rec workloads.Recorder, rf int16, seed int64) *Workload {
	cfg.Defaults()
	return &Workload{cfg: cfg, adm: adm, rec: rec, rf: rf, seed: seed, stop: make(chan struct{})}
}

// Stop asks the clients to end after their op in flight.
func (m *Workload) Stop() { m.stopOnce.Do(func() { close(m.stop) }) }

// Stats counts the ops so far.
func (m *Workload) Stats() Stats { return Stats{m.ok.Load(), m.fail.Load(), m.in.Load()} }

// Run runs the clients until Stop or ctx ends. Client 0 first creates the
// shared topic (retrying until a create is ok or the topic exists).
func (m *Workload) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	for i := range m.cfg.Clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.client(ctx, i)
		}()
	}
	wg.Wait()
	return nil
}

// metaClient is one admin client's state: its process and the topics it
// made, with the partition counts Kafka acknowledged.
type metaClient struct {
	m      *Workload
	n      int
	pid    int
	rng    *rand.Rand
	topics map[string]int32
	next   int
}

func (m *Workload) client(ctx context.Context, n int) {
	c := &metaClient{m: m, n: n, pid: m.rec.NewProcess(), topics: map[string]int32{},
		rng: rand.New(rand.NewPCG(uint64(m.seed), uint64(n)))}
	if n == 0 {
		for !m.stopped(ctx) {
			typ, err := c.do(ctx, histories.FCreateTopic, histories.MetaOp{Topic: workloads.MetadataSharedTopic, Partitions: 1})
			if typ == histories.OK || err != nil && typ == histories.Fail && workloads.IsTopicExists(err) {
				break
			}
			m.pause(ctx, time.Second)
		}
	}
	every := time.Duration(float64(time.Second) / m.cfg.Rate)
	for !m.stopped(ctx) {
		c.step(ctx)
		m.pause(ctx, every)
	}
}

func (m *Workload) stopped(ctx context.Context) bool {
	select {
	case <-m.stop:
		return true
	case <-ctx.Done():
		return true
	default:
		return false
	}
}

func (m *Workload) pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-m.stop:
	case <-ctx.Done():
	}
}

// step makes one change, chosen from the seed: a new topic (30%), a
// deletion (15%) or more partitions (15%) of one of its own, or the
// shared key (40%) set to a value no other write uses.
func (c *metaClient) step(ctx context.Context) {
	own := slices.Sorted(maps.Keys(c.topics))
	r := c.rng.IntN(20)
	switch {
	case r < 6 || len(own) == 0 && r < 12:
		c.next++
		t := fmt.Sprintf("%s%d-%d", workloads.MetadataTopicPrefix, c.n, c.next)
		if typ, _ := c.do(ctx, histories.FCreateTopic, histories.MetaOp{Topic: t, Partitions: 1}); typ == histories.OK {
			c.topics[t] = 1
		}
	case r < 9:
		t := own[c.rng.IntN(len(own))]
		typ, _ := c.do(ctx, histories.FDeleteTopic, histories.MetaOp{Topic: t})
		if typ != histories.Fail {
			delete(c.topics, t) // unknown: never touched again
		}
	case r < 12:
		t := own[c.rng.IntN(len(own))]
		n := c.topics[t] + 1
		switch typ, _ := c.do(ctx, histories.FCreatePartitions, histories.MetaOp{Topic: t, Partitions: n}); typ {
		case histories.OK:
			c.topics[t] = n
		case histories.Info:
			delete(c.topics, t) // its count is unknown now
		}
	default:
		c.next++
		v := strconv.Itoa(3_600_000 + c.n*1_000_000 + c.next) // unique per client and op
		c.do(ctx, histories.FAlterConfig, histories.MetaOp{Topic: workloads.MetadataSharedTopic, Key: workloads.MetadataConfigKey, Value: v})
	}
}

// do runs one change as an op: invoke, the request, its outcome
// (admin.MetaOutcome). A process whose op ended info is retired.
func (c *metaClient) do(ctx context.Context, f string, v histories.MetaOp) (histories.Type, error) {
	m := c.m
	if _, err := m.rec.Invoke(c.pid, f, v); err != nil {
		return histories.Info, err
	}
	octx, cancel := context.WithTimeout(ctx, opTimeout)
	var err error
	switch f {
	case histories.FCreateTopic:
		err = m.adm.CreateTopicOnce(octx, v.Topic, v.Partitions, m.rf)
	case histories.FDeleteTopic:
		err = m.adm.DeleteTopicOnce(octx, v.Topic)
	case histories.FCreatePartitions:
		err = m.adm.CreatePartitionsOnce(octx, v.Topic, v.Partitions)
	case histories.FAlterConfig:
		err = m.adm.SetTopicConfigOnce(octx, v.Topic, v.Key, v.Value)
	}
	cancel()
	typ := admin.MetaOutcome(err)
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	m.rec.Complete(c.pid, typ, f, v, msg)
	switch typ {
	case histories.OK:
		m.ok.Add(1)
	case histories.Fail:
		m.fail.Add(1)
	default:
		m.in.Add(1)
		c.pid = m.rec.NewProcess()
	}
	return typ, err
}

// View is what the metadata final read asks; *admin.Client implements it.
type View interface {
	MetadataFrom(ctx context.Context, broker int32, prefix string, keys []string) (map[string]histories.TopicMeta, error)
	workloads.QuorumView
}

var _ View = (*admin.Client)(nil)

// FinalRead reads each broker's view of the workload's topics,
// again every second until the brokers agree on two attempts in a row
// with the same view, or wait has passed (the convergence wait: a broker
// applies the metadata log a little behind the quorum), each read a
// metadata-read op; then records each controller's metadata log end
// offset (a controller answers no Metadata request). The log end offsets
// come from DescribeQuorum at each attempt.
//
// One agreement is not enough: brokers that all lag the quorum agree on a
// state from before the last changes. On 2026-12-02 (q1, Kafka 3.9.2) the
// three brokers, read 0.2 s after the last acknowledged alter-config,
// agreed on the value before it, with their metadata log end offsets equal
// to the controllers' (fetched, not yet applied), and the checker called
// the acknowledged value lost. A view unchanged a second later has
// settled.
func FinalRead(ctx context.Context, view View, rec workloads.Recorder, brokers, controllers []int32, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	pid := rec.NewProcess()
	leo := map[int32]int64{}
	var agreed map[string]histories.TopicMeta // the last attempt's view, if the brokers agreed on it
	for attempt := 1; ; attempt++ {
		qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		q, qerr := view.Quorum(qctx)
		cancel()
		if qerr == nil { // else the last answer's offsets stand
			clear(leo)
			for _, r := range append(slices.Clone(q.Voters), q.Observers...) {
				leo[r.ID] = r.LogEndOffset
			}
		}
		var views []map[string]histories.TopicMeta
		all := true
		for _, b := range brokers {
			if _, err := rec.Invoke(pid, histories.FMetadataRead, map[string]int32{"node": b}); err != nil {
				return err
			}
			rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			topics, err := view.MetadataFrom(rctx, b, workloads.MetadataTopicPrefix, []string{workloads.MetadataConfigKey})
			cancel()
			if err != nil {
				rec.Complete(pid, histories.Fail, histories.FMetadataRead, map[string]int32{"node": b}, err.Error())
				all = false
				continue
			}
			rd := histories.MetadataRead{Node: b, Role: "broker", Topics: topics, LogEndOffset: leoOf(leo, b), Attempt: attempt}
			if _, err := rec.Complete(pid, histories.OK, histories.FMetadataRead, rd, ""); err != nil {
				return err
			}
			views = append(views, topics)
		}
		agree := all && len(views) > 0
		for _, v := range views[min(1, len(views)):] {
			agree = agree && reflect.DeepEqual(v, views[0])
		}
		settled := agree && agreed != nil && reflect.DeepEqual(agreed, views[0])
		agreed = nil
		if agree {
			agreed = views[0]
		}
		if settled || time.Now().After(deadline) || ctx.Err() != nil {
			break
		}
		select {
		case <-time.After(time.Second):
		case <-ctx.Done():
		}
	}
	for _, id := range controllers {
		if _, err := rec.Invoke(pid, histories.FMetadataRead, map[string]int32{"node": id}); err != nil {
			return err
		}
		rd := histories.MetadataRead{Node: id, Role: "controller", LogEndOffset: leoOf(leo, id)}
		if _, err := rec.Complete(pid, histories.OK, histories.FMetadataRead, rd, ""); err != nil {
			return err
		}
	}
	return ctx.Err()
}

func leoOf(m map[int32]int64, id int32) int64 {
	if v, ok := m[id]; ok {
		return v
	}
	return -1
}
