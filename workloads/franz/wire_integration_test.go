//go:build integration

package franz

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/internal/testenv"
	"github.com/kchaos/kchaos/workloads"
	"github.com/kchaos/kchaos/workloads/workloadstest"
)

// lateMember is a share consumer whose connections the ack tap reads.
type lateMember struct {
	cl      *kgo.Client
	tap     *ackTap
	mu      sync.Mutex
	results kgo.ShareAckResults
}

func newLateMember(t *testing.T, bootstrap []string, topic, group, name string) *lateMember {
	t.Helper()
	m := &lateMember{tap: &ackTap{}}
	cfg := workloads.Config{RequestTimeout: workloads.Duration(5 * time.Second)}
	cl, err := kgo.NewClient(append(workloads.FranzCommon(cfg, bootstrap, name),
		kgo.Dialer((&workloads.CutDialer{Tap: m.tap.wrap}).Dial),
		kgo.ShareGroup(group), kgo.ConsumeTopics(topic), kgo.MaxConcurrentFetches(0),
		kgo.FetchMaxWait(workloads.SharePollWait),
		kgo.ShareAckCallback(func(_ *kgo.Client, rs kgo.ShareAckResults) {
			m.mu.Lock()
			m.results = append(m.results, rs...)
			m.mu.Unlock()
		}))...)
	if err != nil {
		t.Fatal(err)
	}
	m.cl = cl
	t.Cleanup(cl.Close)
	return m
}

// pollUntil polls until it holds n records, or fails the test.
func (m *lateMember) pollUntil(t *testing.T, n int, limit time.Duration) []*kgo.Record {
	t.Helper()
	var got []*kgo.Record
	end := time.Now().Add(limit)
	for len(got) < n && time.Now().Before(end) {
		ctx, cancel := context.WithTimeout(context.Background(), workloads.SharePollWait)
		fs := m.cl.PollRecords(ctx, n-len(got))
		cancel()
		got = append(got, fs.Records()...)
	}
	if len(got) < n {
		t.Fatalf("polled %d records in %s, want %d", len(got), limit, n)
	}
	return got
}

// ack acks recs and flushes; it returns the callback's errors and the
// broker's answer to each record's ack as the tap read it.
func (m *lateMember) ack(t *testing.T, recs []*kgo.Record, st kgo.AckStatus) ([]error, []*histories.ShareAckWire) {
	t.Helper()
	m.mu.Lock()
	m.results = nil
	m.mu.Unlock()
	m.tap.take()
	for _, r := range recs {
		r.Ack(st)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := m.cl.FlushAcks(ctx); err != nil {
		t.Fatalf("flush: %v", err)
	}
	ex := m.tap.take()
	m.mu.Lock()
	defer m.mu.Unlock()
	var errs []error
	for _, r := range m.results {
		errs = append(errs, r.Err)
	}
	var wires []*histories.ShareAckWire
	for _, r := range recs {
		wires = append(wires, wireFor(ex, r.Partition, r.Offset, m.tap))
	}
	return errs, wires
}

// TestShareLateAckBelowStartOffset: what Kafka answers a member's ack
// sent after its lock expired and another member took the records, read
// on the wire. Member A takes 10 records and holds them past the lock;
// member B is given them again (count 2), accepts the first five and
// holds the rest. A then accepts its first five (below the start offset
// B's accepts moved) and its last five (held by B) in two requests.
// Kafka refuses the second (INVALID_RECORD_STATE: A is not the owner)
// and answers the first with error code 0: SharePartition.acknowledge
// skips an acknowledgement batch below the share-partition start offset
// before any owner check (w1's confirmed late acks, docs/SCENARIOS.md).
func TestShareLateAckBelowStartOffset(t *testing.T) {
	v := cmp.Or(testenv.KafkaVersion(), cluster.DefaultKafkaVersion)
	if pv, err := cluster.ParseVersion(v); err != nil || pv.ShareVersionDefault() < 1 {
		t.Skipf("Kafka %s formats the shared cluster with share groups off (share.version 0): nothing to ask", v)
	}
	c, adm := workloadstest.Admin(t)
	topic := "late-ack-" + time.Now().Format("150405.000")
	group := "late-ack"
	workloadstest.CreateTopic(t, adm, topic, [][]int32{{0, 1, 2}})
	bootstrap := c.Bootstrap()
	if err := setEarliest(bootstrap, group); err != nil {
		t.Fatal(err)
	}
	lockMS := setShareLock(t, bootstrap, group, 15000)
	prod, err := kgo.NewClient(kgo.SeedBrokers(bootstrap...), kgo.DefaultProduceTopic(topic), kgo.RequiredAcks(kgo.AllISRAcks()))
	if err != nil {
		t.Fatal(err)
	}
	defer prod.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for i := range 10 {
		if err := prod.ProduceSync(ctx, &kgo.Record{Value: fmt.Appendf(nil, "late-%d", i)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}

	a := newLateMember(t, bootstrap, topic, group, "late-a")
	held := a.pollUntil(t, 10, 90*time.Second)
	heldAt := time.Now()
	b := newLateMember(t, bootstrap, topic, group, "late-b")
	again := b.pollUntil(t, 10, time.Duration(lockMS)*time.Millisecond+60*time.Second)
	if since := time.Since(heldAt); since < time.Duration(lockMS)*time.Millisecond-time.Second {
		t.Fatalf("B was given A's records %s after A's poll, before A's %d ms lock ran out", since, lockMS)
	}
	for _, r := range again {
		if r.DeliveryCount() < 2 {
			t.Fatalf("B got %d@%d at delivery count %d, want a redelivery", r.Partition, r.Offset, r.DeliveryCount())
		}
	}
	errs, wires := b.ack(t, again[:5], kgo.AckAccept)
	for i, err := range errs {
		if err != nil {
			t.Fatalf("B's accepts: result %d: %v", i, err)
		}
	}
	t.Logf("B accepted offsets %d-%d: broker answered %+v", again[0].Offset, again[4].Offset, *wires[0])

	below, belowWire := a.ack(t, held[:5], kgo.AckAccept)
	owned, ownedWire := a.ack(t, held[5:], kgo.AckAccept)
	for i, w := range belowWire {
		if w == nil || !w.Answered || w.Error != "NONE" || w.TopError != "" {
			t.Errorf("A's late accept of %d: broker answered %+v, want error code 0 (Kafka skips acks below the start offset)", held[i].Offset, w)
		}
	}
	if len(below) != 1 || below[0] != nil {
		t.Errorf("A's late accepts below the start offset: callback results %v, want one nil", below)
	}
	for i, w := range ownedWire {
		if w == nil || !w.Answered || w.Error != "INVALID_RECORD_STATE" {
			t.Errorf("A's late accept of %d, which B holds: broker answered %+v, want INVALID_RECORD_STATE", held[5+i].Offset, w)
		}
	}
	if len(owned) != 1 || !strings.Contains(fmt.Sprint(owned[0]), kerr.InvalidRecordState.Message) {
		t.Errorf("A's late accepts of records B holds: callback results %v, want one INVALID_RECORD_STATE", owned)
	}
	t.Logf("A's late accepts %.1f s after its poll: below the start offset %+v (callback %v); held by B %+v (callback %v)",
		time.Since(heldAt).Seconds(), *belowWire[0], below, *ownedWire[0], owned)
}

// setShareLock sets the group's share.record.lock.duration.ms (Kafka
// 4.1+, at least group.share.min.record.lock.duration.ms) and returns it.
func setShareLock(t *testing.T, bootstrap []string, group string, ms int) int {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := setGroupConfig(ctx, cl, group, "share.record.lock.duration.ms", fmt.Sprint(ms)); err != nil {
		t.Fatal(err)
	}
	return ms
}

// setEarliest sets the group's share.auto.offset.reset to earliest, as
// the workload does for its own (workloads/shares' Group.Open: the same
// request, tried as often), so that its members start at the first
// record produced.
func setEarliest(bootstrap []string, group string) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap...))
	if err != nil {
		return err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var last error
	for range 20 {
		if last = setGroupConfig(ctx, cl, group, "share.auto.offset.reset", "earliest"); last == nil {
			return nil
		}
		time.Sleep(500 * time.Millisecond)
	}
	return fmt.Errorf("set up share group %s: %w", group, last)
}

// setGroupConfig sets one config of the group (IncrementalAlterConfigs).
func setGroupConfig(ctx context.Context, cl *kgo.Client, group, name, value string) error {
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	res := kmsg.NewIncrementalAlterConfigsRequestResource()
	res.ResourceType = kmsg.ConfigResourceTypeGroupConfig
	res.ResourceName = group
	cfg := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
	cfg.Name = name
	cfg.Op = kmsg.IncrementalAlterConfigOpSet
	cfg.Value = kmsg.StringPtr(value)
	res.Configs = append(res.Configs, cfg)
	req.Resources = append(req.Resources, res)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return err
	}
	for _, r := range resp.Resources {
		if err := kerr.ErrorForCode(r.ErrorCode); err != nil {
			return fmt.Errorf("%s=%s on group %s: %w", name, value, group, err)
		}
	}
	return nil
}
