//go:build integration

package workloads

import (
	"context"
	"testing"
	"time"

	"github.com/kchaos/kchaos/histories"
)

// TestTxnWorkload runs 20 s of transactions on the shared 3-broker cluster
// (3 transactional producers, polls on, abort_rate 0.3, crash_rate 0.1)
// with a read_committed consumer (the workload's) and a read_uncommitted
// one (a second workload's consumer loop on the same recorder), then the
// final read, which is read_committed. From the recorded history.jsonl it
// checks that committed, aborted and fenced transactions all occurred;
// that every committed value is in the final read at its offset and no
// value of a failed transaction is; that the read_uncommitted consumer saw
// an aborted value (the aborts really wrote records); and that every
// crashed producer's zombie transaction failed fenced.
func TestTxnWorkload(t *testing.T) {
	checkTxnHistory(t, txnIntegration(t, DriverFranz, "wl-txn"), 3)
}

// txnDone is a txn completion as the transactional producers
// (workloads/txn, linked by drivers_test.go) write it:
// histories.TxnValue and their crashed extension, read back here.
type txnDone struct {
	histories.TxnValue
	Crashed bool `json:"crashed,omitempty"`
}

// txnIntegration runs TestTxnWorkload's workload through driver drv on
// topic and returns its history: 20 s of transactions by 3 producers with
// a read_committed and a read_uncommitted consumer beside them, then the
// final read. The java driver gets the cluster's version, as the harness
// passes it, and is built before the clock starts.
func txnIntegration(t *testing.T, drv, topic string) []histories.Event {
	c, adm := sharedAdmin(t)
	createTopic(t, adm, topic, [][]int32{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	path, rec := newHistory(t, t.TempDir())
	cfg := Config{Driver: drv, Topic: topic, Partitions: 3, Producers: 3, Consumers: 1,
		Isolation: histories.ReadCommitted, RequestTimeout: Duration(3 * time.Second),
		Transactions: TxnConfig{Enabled: true, Polls: true, AbortRate: new(0.3), CrashRate: 0.1},
		Duration:     Duration(20 * time.Second), FinalReadTimeout: Duration(90 * time.Second)}
	if drv == DriverJava {
		cfg.ClusterVersion = c.Config().KafkaVersion
		cfg.Runner = c // the JVM in a container beside the brokers, as the harness runs it
		prepareDriver(ctx, t, cfg)
	}
	w, err := New(cfg, c.Bootstrap(), rec)
	if err != nil {
		t.Fatal(err)
	}
	ru := cfg
	ru.Isolation, ru.Transactions, ru.Consumers = histories.ReadUncommitted, TxnConfig{}, 1
	wu, err := New(ru, c.Bootstrap(), rec)
	if err != nil {
		t.Fatal(err)
	}
	uc, err := wu.drv.NewConsumer(wu.cfg, c.Bootstrap(), 500)
	if err != nil {
		t.Fatal(err)
	}
	defer uc.Close()
	ustop, ustopNow := context.WithTimeout(ctx, cfg.Duration.Std()+15*time.Second)
	defer ustopNow()
	udone := make(chan error, 1)
	go func() { udone <- wu.consume(ustop, uc, []int32{0, 1, 2}) }()

	progress := w.Progress(ctx, 5*time.Second)
	go func() {
		for s := range progress {
			t.Logf("%5.1fs: %d txns, %d committed, %d aborted, %d unknown, %d crashes, %d fenced, %d polls, errors %v",
				s.Elapsed.Seconds(), s.Txns, s.TxnCommitted, s.TxnAborted, s.TxnUnknown, s.TxnCrashes, s.TxnFenced, s.Polls, s.Errors)
		}
	}()
	st, err := w.Run(ctx)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	t.Logf("run: %+v", st)
	time.Sleep(2 * time.Second) // the read_uncommitted consumer catches up
	ustopNow()
	if err := <-udone; err != nil {
		t.Fatalf("read_uncommitted consumer: %v", err)
	}
	fr, err := w.FinalRead(ctx, adm)
	if err != nil {
		t.Fatalf("final read: %v", err)
	}
	t.Logf("final read: %+v", fr)
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	evs, torn, err := histories.ReadFile(path)
	if err != nil || torn {
		t.Fatalf("read history: %v (torn %v)", err, torn)
	}
	return evs
}

// checkTxnHistory checks a transactional history without the checker.
func checkTxnHistory(t *testing.T, evs []histories.Event, partitions int) {
	t.Helper()
	type at struct {
		p int32
		o int64
	}
	var (
		final         = map[string]at{} // value -> where the final read has it
		complete      = map[int32]bool{}
		committed     []histories.TxnOp // sends of ok txns
		failedValues  = map[string]bool{}
		uncommitted   = map[string]bool{} // values read_uncommitted polls saw
		rcPollProcs   = map[int]bool{}    // processes whose polls say read_committed
		n             = map[string]int{}
		fencedErrs    = map[string]bool{"PRODUCER_FENCED": true, "INVALID_PRODUCER_EPOCH": true}
		uncommitProcs = map[int]bool{}
	)
	for _, e := range evs {
		switch {
		case e.F == histories.FPoll && e.Type == histories.Invoke:
			var req histories.ReadRequest
			_ = e.Decode(&req)
			if histories.IsReadCommitted(req.Isolation) {
				rcPollProcs[e.Process] = true
			} else {
				uncommitProcs[e.Process] = true
			}
		case e.F == histories.FFinalRead && e.Type == histories.Invoke:
			var req histories.ReadRequest
			_ = e.Decode(&req)
			if req.Isolation != histories.ReadCommitted {
				t.Errorf("final-read invoke %s: want isolation read_committed", e.Value)
			}
		case e.F == histories.FFinalRead && e.Type == histories.OK:
			var v histories.ReadResult
			_ = e.Decode(&v)
			for _, p := range histories.SortedPartitions(v.EndOffsets) {
				complete[p] = true
			}
			for _, r := range v.Records {
				final[r.Value] = at{r.Partition, r.Offset}
			}
		case e.F == histories.FTxn && e.Type != histories.Invoke:
			var v txnDone
			if err := e.Decode(&v); err != nil {
				t.Fatalf("txn %s: %v", e.Value, err)
			}
			switch {
			case e.Type == histories.OK:
				n["committed"]++
				committed = append(committed, v.Sends()...)
			case e.Type == histories.Fail && e.Error == CauseAborted:
				n["aborted"]++
			case e.Type == histories.Fail && fencedErrs[e.Error]:
				n["fenced"]++
			default:
				n[string(e.Type)+" "+e.Error]++
			}
			if v.Crashed {
				n["crashed"]++
				if e.Type != histories.Fail || !fencedErrs[e.Error] {
					t.Errorf("crashed txn ended %s %q, want fail PRODUCER_FENCED or INVALID_PRODUCER_EPOCH: %s", e.Type, e.Error, e.Value)
				}
			}
			if e.Type == histories.Fail {
				for _, s := range v.Sends() {
					failedValues[s.Value] = true
				}
			}
			if e.Type == histories.OK && v.EndInvoked == nil {
				t.Errorf("ok txn without end_invoked: %s", e.Value)
			}
		}
	}
	for _, e := range evs {
		if e.F == histories.FPoll && e.Type == histories.OK && uncommitProcs[e.Process] {
			var v histories.ReadResult
			_ = e.Decode(&v)
			for _, r := range v.Records {
				uncommitted[r.Value] = true
			}
		}
	}
	t.Logf("txns: %v; %d committed sends, %d failed-txn values, %d final-read records, %d values read uncommitted, %d read_committed poll processes",
		n, len(committed), len(failedValues), len(final), len(uncommitted), len(rcPollProcs))
	for p := int32(0); p < int32(partitions); p++ {
		if !complete[p] {
			t.Errorf("no completed final read of partition %d", p)
		}
	}
	for _, k := range []string{"committed", "aborted", "fenced", "crashed"} {
		if n[k] == 0 {
			t.Errorf("no %s transaction", k)
		}
	}
	if len(rcPollProcs) == 0 {
		t.Errorf("no poll recorded read_committed")
	}
	missing := 0
	for _, s := range committed {
		got, ok := final[s.Value]
		if !ok || s.Offset == nil || got != (at{*s.Partition, *s.Offset}) {
			if missing++; missing <= 5 {
				t.Errorf("committed %s (%d:%v) is at %+v (found %v) in the final read", s.Value, *s.Partition, s.Offset, got, ok)
			}
		}
	}
	leaked := 0
	for v := range failedValues {
		if _, ok := final[v]; ok {
			if leaked++; leaked <= 5 {
				t.Errorf("value %s of a failed txn is in the read_committed final read", v)
			}
		}
	}
	seenAborted := 0
	for v := range failedValues {
		if uncommitted[v] {
			seenAborted++
		}
	}
	if seenAborted == 0 {
		t.Errorf("the read_uncommitted consumer saw none of %d failed-txn values", len(failedValues))
	} else {
		t.Logf("the read_uncommitted consumer saw %d failed-txn values", seenAborted)
	}
}
