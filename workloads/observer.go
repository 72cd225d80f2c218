package workloads

import (
	"context"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/histories"
)

// Observer sampling defaults.
const (
	// DefaultObserveInterval: how often the observer samples. ISR changes
	// take seconds (replica.lag.time.max.ms), so 250 ms resolves them well
	// while costing the brokers a few small requests per second.
	DefaultObserveInterval = 250 * time.Millisecond
	// DefaultObserveHeartbeat: a partition whose state did not change is
	// still recorded this often, so that the history shows the state was
	// known (not merely unsampled) during a quiet stretch.
	DefaultObserveHeartbeat = 5 * time.Second
)

// offsetsTimeout bounds a sample's ListOffsets requests.
const offsetsTimeout = 600 * time.Millisecond

// ObserverOptions tune an Observer; zero values take the defaults.
type ObserverOptions struct {
	Interval  time.Duration
	Heartbeat time.Duration
	// Tiered also asks each leader for its local log start offset and the
	// highest offset in the remote tier (the topic is tiered).
	Tiered bool
	// Controllers, when set, is asked for the quorum samples instead of
	// the view (observequorum.go says why).
	Controllers QuorumClaims
}

// Observer is the cluster observer, process -2. Every Interval it samples
// the KRaft quorum (observequorum.go, when the view can) and,
// for each partition of the topic, the leader, leader epoch, ISR, ELR,
// LastKnownElr (DescribeTopicPartitions), the high watermark (ListOffsets
// to the leader) and each replica's log end offset (ListOffsets with
// replica id -2 to every replica), and records an `observe` event (type
// ok, no invoke) for a partition only when something changed since its
// last recorded sample, or when Heartbeat has passed since then. A sample
// that fails records nothing: the observer writes only what it learned.
// Fields it could not learn are -1 (high watermark) or missing (a
// replica's log end offset, e.g. of a paused broker).
type Observer struct {
	view  ClusterView
	rec   Recorder
	topic string
	opts  ObserverOptions

	last   map[int32]histories.ObserveValue
	lastAt map[int32]time.Time
	quorum quorumState // the last quorum sample recorded (observequorum.go)
	via    int32       // the broker asked for Describe; -1: none chosen yet
	failed int32       // the broker that last failed to answer

	samples, recorded, failures atomic.Int64
	mu                          sync.Mutex
	cancel                      context.CancelFunc
	done                        chan struct{}
}

// NewObserver returns an observer of topic; Start begins sampling.
func NewObserver(view ClusterView, rec Recorder, topic string, opts ObserverOptions) *Observer {
	if opts.Interval <= 0 {
		opts.Interval = DefaultObserveInterval
	}
	if opts.Heartbeat <= 0 {
		opts.Heartbeat = DefaultObserveHeartbeat
	}
	return &Observer{view: view, rec: rec, topic: topic, opts: opts, via: -1, failed: -1,
		last: map[int32]histories.ObserveValue{}, lastAt: map[int32]time.Time{}}
}

// Start samples in the background until Stop or ctx ends. Calling Start
// on a running observer does nothing.
func (o *Observer) Start(ctx context.Context) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done != nil {
		return
	}
	ctx, o.cancel = context.WithCancel(ctx)
	o.done = make(chan struct{})
	go o.loop(ctx, o.done)
}

// Stop ends sampling and waits for the sample in progress.
func (o *Observer) Stop() {
	o.mu.Lock()
	cancel, done := o.cancel, o.done
	o.mu.Unlock()
	if cancel == nil {
		return
	}
	cancel()
	<-done
}

// Counts reports samples taken, events recorded and samples that failed.
func (o *Observer) Counts() (samples, recorded, failures int64) {
	return o.samples.Load(), o.recorded.Load(), o.failures.Load()
}

func (o *Observer) loop(ctx context.Context, done chan struct{}) {
	defer close(done)
	t := time.NewTicker(o.opts.Interval)
	defer t.Stop()
	for {
		o.Sample(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Sample takes one sample now and records what changed. It is what the
// background loop calls each tick; exported for tests and for a harness
// that wants a sample at a precise moment (e.g. right after a fault).
// It must not run concurrently with itself.
func (o *Observer) Sample(ctx context.Context) {
	// A sample is bounded well below the heartbeat: a paused or partitioned
	// broker must not stall the observer.
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	o.samples.Add(1)
	// The quorum is sampled beside the partitions, so that a partition
	// sample that fails does not lose the quorum's (nor the reverse).
	qdone := make(chan struct{})
	go func() { defer close(qdone); o.sampleQuorum(ctx) }()
	defer func() { <-qdone }()
	parts, err := o.describe(ctx)
	if err != nil {
		o.failures.Add(1)
		return
	}
	ids := make([]int32, len(parts))
	brokerSet := map[int32]bool{}
	for i, st := range parts {
		ids[i] = st.Partition
		for _, b := range st.Replicas {
			brokerSet[b] = true
		}
	}
	brokers := slices.Sorted(maps.Keys(brokerSet))

	// Offsets get a shorter bound than the sample: a broker that does not
	// answer (paused, partitioned) only loses its own log end offset.
	octx, ocancel := context.WithTimeout(ctx, offsetsTimeout)
	defer ocancel()
	var leos map[int32]map[int32]int64
	hws := make([]int64, len(parts))
	starts := make([]map[int64]int64, len(parts))
	timestamps := []int64{admin.EarliestTimestamp}
	if o.opts.Tiered {
		timestamps = append(timestamps, admin.EarliestLocalTimestamp, admin.LatestTieredTimestamp)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		leos = o.view.ReplicaLogEndOffsets(octx, o.topic, ids, brokers)
	}()
	for i, st := range parts {
		hws[i] = -1
		if st.Leader < 0 {
			continue
		}
		wg.Add(1)
		go func(i int, st admin.PartitionState) {
			defer wg.Done()
			if hw, err := o.view.HighWatermark(octx, st.Leader, o.topic, st.Partition); err == nil {
				hws[i] = hw
			}
			starts[i] = o.view.OffsetsAt(octx, st.Leader, o.topic, st.Partition, timestamps...)
		}(i, st)
	}
	wg.Wait()
	now := time.Now()
	for i, st := range parts {
		v := observeValue(o.topic, st, hws[i], leos[st.Partition], starts[i])
		if prev, seen := o.last[st.Partition]; seen && reflect.DeepEqual(prev, v) &&
			now.Sub(o.lastAt[st.Partition]) < o.opts.Heartbeat {
			continue
		}
		if _, err := o.rec.Record(histories.ObserverProcess, histories.OK, histories.FObserve, v, ""); err != nil {
			o.failures.Add(1)
			return
		}
		o.recorded.Add(1)
		o.last[st.Partition], o.lastAt[st.Partition] = v, now
	}
}

// describe asks for the partitions' state, from the same broker as last
// time while it answers. Brokers' metadata caches lag each other by
// different amounts; asking whichever broker comes next (as a plain
// Describe does) records spurious ISR flaps, e.g. a broker just resumed
// from a pause still reporting the ISR of before the pause. When the
// chosen broker does not answer, describe asks any broker (twice: the
// client rotates, so the second try avoids one that does not answer) and
// picks a new broker to stay with, preferring a partition leader.
func (o *Observer) describe(ctx context.Context) ([]admin.PartitionState, error) {
	try := func(f func(context.Context) ([]admin.PartitionState, error)) ([]admin.PartitionState, error) {
		dctx, cancel := context.WithTimeout(ctx, 800*time.Millisecond)
		defer cancel()
		return f(dctx)
	}
	if o.via >= 0 {
		parts, err := try(func(c context.Context) ([]admin.PartitionState, error) {
			return o.view.DescribeFrom(c, o.via, o.topic)
		})
		if err == nil {
			return parts, nil
		}
		o.failed, o.via = o.via, -1
	}
	var err error
	for i := 0; i < 2; i++ {
		var parts []admin.PartitionState
		parts, err = try(func(c context.Context) ([]admin.PartitionState, error) { return o.view.Describe(c, o.topic) })
		if err == nil {
			o.via = pickBroker(parts, o.failed)
			return parts, nil
		}
	}
	return nil, err
}

// pickBroker chooses the broker to describe from: a partition leader, else
// any replica, other than the one that just failed to answer.
func pickBroker(parts []admin.PartitionState, not int32) int32 {
	for _, st := range parts {
		if st.Leader >= 0 && st.Leader != not {
			return st.Leader
		}
	}
	for _, st := range parts {
		for _, r := range st.Replicas {
			if r != not {
				return r
			}
		}
	}
	return -1
}

func observeValue(topic string, st admin.PartitionState, hw int64, leo map[int32]int64, at map[int64]int64) histories.ObserveValue {
	v := histories.ObserveValue{Topic: topic, Partition: st.Partition, Leader: st.Leader,
		LeaderEpoch: st.LeaderEpoch, ISR: nonNil(st.ISR), ELR: nonNil(st.ELR),
		LastKnownELR: nonNil(st.LastKnownELR), HighWatermark: hw,
		LogEndOffsets: map[string]int64{}}
	for b, o := range leo {
		v.LogEndOffsets[strconv.Itoa(int(b))] = o
	}
	for ts, field := range map[int64]**int64{admin.EarliestTimestamp: &v.LogStartOffset,
		admin.EarliestLocalTimestamp: &v.LocalLogStartOffset, admin.LatestTieredTimestamp: &v.HighestRemoteOffset} {
		if o, ok := at[ts]; ok {
			*field = &o
		}
	}
	return v
}

// nonNil makes an absent list [] in JSON, as the contract shows it.
func nonNil(ids []int32) []int32 {
	if ids == nil {
		return []int32{}
	}
	return ids
}
