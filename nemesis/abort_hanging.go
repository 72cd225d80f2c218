package nemesis

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/histories"
)

// abortHangingKind is an operator's recovery through the admin API: every
// backend can.
var abortHangingKind = Kind{Name: histories.FAbortHanging, New: func() Params { return &AbortHangingParams{} },
	// Aborting a transaction whose commit Kafka had acknowledged makes its
	// records unreadable to read_committed readers: the recovery's cost.
	Heal: Instant, Color: "#17a589", LosesAcked: Yes, MovesLeaders: No, Draw: NotDrawn,
	Proof: "the last stable offset must move past the aborted transaction (else info, no effect)"}

// AbortHangingParams are an abort-hanging's.
type AbortHangingParams struct {
	// Partition limits it to one partition of the workload topic (absent:
	// every partition).
	Partition *int32 `yaml:"partition,omitempty"`
}

func (ap *AbortHangingParams) Validate(p string, st *Step, add AddFunc) {
	if ap.Partition != nil && *ap.Partition < 0 {
		add(p+".partition", "must not be negative")
	}
	if st.Target != nil {
		add(p+".target", "abort-hanging takes partition: N, not a target: it acts through the admin API")
	}
}

func (ap *AbortHangingParams) Build(Step) Fault { return &abortHanging{partition: ap.Partition} }

// abortEffectWithin bounds the wait for a partition's last stable offset to
// pass the aborted transaction: the proof that read_committed readers move.
const abortEffectWithin = 10 * time.Second

// abortHanging does what an operator does once read_committed consumers
// stop at a partition's last stable offset (KAFKA-20716): it finds the
// transactions that hold it, as `kafka-transactions.sh find-hanging` does
// (DescribeProducers on the leader; ListTransactions and
// DescribeTransactions at the coordinators: hanging when the coordinator
// does not hold that transaction open on that partition), aborts each as
// `kafka-transactions.sh abort` does (WriteTxnMarkers to the leader with
// the producer id, epoch and coordinator epoch the leader reported), and
// proves the effect: the last stable offset moves past the transaction's
// first record. A transaction its coordinator still holds open is left to
// it (it will end or time out). Aborting a transaction Kafka had
// acknowledged as committed makes its records unreadable at
// read_committed: the op's details name them by offset, the recovery's
// cost.
type abortHanging struct{ partition *int32 }

func (f *abortHanging) Name() string { return histories.FAbortHanging }

func (f *abortHanging) Spec() map[string]any {
	if f.partition != nil {
		return map[string]any{"partition": *f.partition}
	}
	return map[string]any{}
}

// hangReport is one partition's part of the op's details.
type hangReport struct {
	Leader    int32               `json:"leader"`
	HWBefore  int64               `json:"hw_before"`
	LSOBefore int64               `json:"lso_before"`
	Aborted   []histories.OpenTxn `json:"aborted,omitempty"`
	LeftOpen  []histories.OpenTxn `json:"left_open,omitempty"`
	LSOAfter  int64               `json:"lso_after"`
	HWAfter   int64               `json:"hw_after"`
	TookMS    int64               `json:"took_ms"`
}

func (f *abortHanging) Inject(ctx context.Context, e *Env) ([]int32, map[string]any, error) {
	var parts []admin.PartitionState
	err := e.AdminCall(ctx, func(ctx context.Context) (err error) {
		parts, err = e.State().Describe(ctx, e.Topic)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	reports := map[string]any{}
	var nodes []int32
	for _, ps := range parts {
		if f.partition != nil && ps.Partition != *f.partition {
			continue
		}
		if ps.Leader < 0 {
			reports[histories.PartitionKey(ps.Partition)] = map[string]any{"error": "no leader"}
			continue
		}
		r, err := abortPartition(ctx, e, ps.Partition, ps.Leader)
		if r == nil && err == nil {
			continue // nothing held back there
		}
		reports[histories.PartitionKey(ps.Partition)] = r
		if r != nil && len(r.Aborted) > 0 && !slices.Contains(nodes, ps.Leader) {
			nodes = append(nodes, ps.Leader)
		}
		if err != nil {
			return nodes, map[string]any{"topic": e.Topic, "partitions": reports}, err
		}
	}
	d := map[string]any{"topic": e.Topic, "partitions": reports}
	if len(reports) == 0 {
		d["found"] = "no partition's last stable offset was held back"
	}
	return nodes, d, nil
}

// abortPartition aborts the hanging transactions of one partition led by
// leader; nil, nil when nothing holds its last stable offset back.
func abortPartition(ctx context.Context, e *Env, p, leader int32) (*hangReport, error) {
	began := time.Now()
	var hw, lso int64
	err := e.AdminCall(ctx, func(ctx context.Context) (err error) {
		if hw, err = e.Admin.HighWatermark(ctx, leader, e.Topic, p); err != nil {
			return err
		}
		lso, err = e.Admin.LastStableOffset(ctx, leader, e.Topic, p)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("partition %d: offsets: %w", p, err)
	}
	if lso >= hw {
		return nil, nil
	}
	r := &hangReport{Leader: leader, HWBefore: hw, LSOBefore: lso, LSOAfter: lso, HWAfter: hw}
	var open []histories.OpenTxn
	err = e.AdminCall(ctx, func(ctx context.Context) (err error) {
		open, err = e.Admin.OpenTxns(ctx, e.Topic, p)
		return err
	})
	if err != nil {
		return r, fmt.Errorf("partition %d: open transactions: %w", p, err)
	}
	for _, o := range open {
		if !o.Hanging {
			r.LeftOpen = append(r.LeftOpen, o)
			continue
		}
		if err := e.AdminCall(ctx, func(ctx context.Context) error { return e.Admin.AbortTxn(ctx, e.Topic, p, o) }); err != nil {
			return r, fmt.Errorf("partition %d: abort producer %d epoch %d at offset %d: %w", p, o.ProducerID, o.ProducerEpoch, o.FirstOffset, err)
		}
		r.Aborted = append(r.Aborted, o)
	}
	if len(r.Aborted) == 0 {
		r.TookMS = time.Since(began).Milliseconds()
		return r, nil
	}
	// The proof: read_committed readers can now pass the first aborted
	// transaction's first record.
	first := slices.MinFunc(r.Aborted, func(x, y histories.OpenTxn) int { return int(x.FirstOffset - y.FirstOffset) }).FirstOffset
	deadline := time.Now().Add(abortEffectWithin)
	for {
		if l, err := e.Admin.LastStableOffset(ctx, leader, e.Topic, p); err == nil {
			r.LSOAfter = l
		}
		if h, err := e.Admin.HighWatermark(ctx, leader, e.Topic, p); err == nil {
			r.HWAfter = h
		}
		if r.LSOAfter > first || time.Now().After(deadline) || ctx.Err() != nil {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(PollInterval):
		}
	}
	r.TookMS = time.Since(began).Milliseconds()
	if r.LSOAfter <= first {
		return r, fmt.Errorf("no effect: partition %d's last stable offset still %d, not past the aborted transaction at %d, after %s",
			p, r.LSOAfter, first, abortEffectWithin)
	}
	return r, nil
}

// Heal: an abort is not undone.
func (f *abortHanging) Heal(context.Context, *Env) error { return nil }
