package franz

import (
	"context"
	"slices"
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/workloads"
)

var _ workloads.ShareDriver = franzDriver{}

// franzShareMember is franz-go's share consumer: kgo.ShareGroup with no
// fetch buffering (MaxConcurrentFetches 0, so that what a poll returns
// was acquired during it), its acks flushed by FlushAcks and reported by
// the ShareAckCallback, and its connections dialed through a CutDialer
// that a kill cuts and whose ackTap reads the broker's answers
// (wire.go).
type franzShareMember struct {
	cl    *kgo.Client
	topic string
	cut   *workloads.CutDialer
	wire  *ackTap
	last  []*kgo.Record // the last poll's records, which Ack acknowledges

	mu      sync.Mutex
	results []kgo.ShareAckResult // the ack callback's, since the last flush
}

// NewShareMember makes share member name's franz-go client.
func (franzDriver) NewShareMember(cfg workloads.Config, bootstrap []string, name string) (workloads.ShareMember, error) {
	m := &franzShareMember{topic: cfg.Topic, wire: &ackTap{}}
	m.cut = &workloads.CutDialer{Tap: m.wire.wrap}
	opts := append(workloads.FranzCommon(cfg, bootstrap, workloads.ShareMemberClientID(cfg.Shares.Group, name)),
		kgo.Dialer(m.cut.Dial),
		kgo.ShareGroup(cfg.Shares.Group),
		kgo.ConsumeTopics(cfg.Topic),
		kgo.MaxConcurrentFetches(0),
		kgo.ShareMaxRecords(int32(cfg.Shares.MaxRecords)),
		kgo.FetchMaxWait(workloads.SharePollWait),
		kgo.ShareAckCallback(func(_ *kgo.Client, rs kgo.ShareAckResults) {
			m.mu.Lock()
			m.results = append(m.results, rs...)
			m.mu.Unlock()
		}),
	)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, err
	}
	m.cl = cl
	return m, nil
}

func (m *franzShareMember) AcquiresInPoll() bool { return true }

func (m *franzShareMember) Poll(ctx context.Context, max int) ([]histories.ShareRecord, error) {
	pctx, cancel := context.WithTimeout(ctx, workloads.SharePollWait)
	fs := m.cl.PollRecords(pctx, max)
	cancel()
	if fs.IsClientClosed() {
		return nil, workloads.ErrShareClosed
	}
	m.last = m.last[:0]
	out := make([]histories.ShareRecord, 0, fs.NumRecords())
	fs.EachRecord(func(r *kgo.Record) {
		m.last = append(m.last, r)
		out = append(out, histories.ShareRecord{Partition: r.Partition, Offset: r.Offset,
			Value: string(r.Value), DeliveryCount: r.DeliveryCount()})
	})
	return out, nil
}

// franzAckStatus is kgo's status of a history's ack status.
var franzAckStatus = map[string]kgo.AckStatus{
	histories.AckAccept:  kgo.AckAccept,
	histories.AckRelease: kgo.AckRelease,
	histories.AckReject:  kgo.AckReject,
	histories.AckRenew:   kgo.AckRenew,
}

func (m *franzShareMember) Ack(ctx context.Context, sts []string) (workloads.ShareAckResult, error) {
	m.mu.Lock()
	m.results = nil
	m.mu.Unlock()
	m.wire.take() // answers to earlier requests are not this round's
	for i, r := range m.last {
		r.Ack(franzAckStatus[sts[i]])
	}
	ferr := m.cl.FlushAcks(ctx)
	m.mu.Lock()
	res := slices.Clone(m.results)
	m.results = nil
	m.mu.Unlock()
	wire := m.wire.take()
	out := workloads.ShareAckResult{Results: map[int32][]error{},
		Wire: func(p int32, off int64) *histories.ShareAckWire { return wireFor(wire, p, off, m.wire) }}
	for _, r := range res {
		if r.Topic == m.topic {
			out.Results[r.Partition] = append(out.Results[r.Partition], r.Err)
		}
	}
	return out, ferr
}

func (m *franzShareMember) Leave() { m.cl.Close() }

// Kill cuts the connections first, so that the release a closing client
// sends never arrives, as with a crashed process.
func (m *franzShareMember) Kill() {
	m.cut.Cut()
	go m.cl.Close()
}
