//go:build integration

package harness_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/kchaos/kchaos/checker"
	"github.com/kchaos/kchaos/histories"
)

// The transaction stories t1-t3 (issue 14) on real clusters, asserted from
// the checked history: the txn ops' outcomes, the read_committed final read
// and results.json, never the schedule's bookkeeping.

// txnOutcomes tallies a run's txn completions: committed, failed (by
// error), unknown; crashed counts the completions that say the producer
// was abandoned mid-transaction and fenced.
type txnOutcomes struct {
	ok, fail, info, crashed int
	byError                 map[string]int
	// committed is every value of an ok txn; failed of a fail txn.
	committed, failed map[string]bool
}

func (r scenarioRun) txns(t *testing.T) txnOutcomes {
	t.Helper()
	o := txnOutcomes{byError: map[string]int{}, committed: map[string]bool{}, failed: map[string]bool{}}
	for _, e := range r.events {
		if e.F != histories.FTxn || e.Type == histories.Invoke {
			continue
		}
		var v struct {
			histories.TxnValue
			Crashed bool `json:"crashed"`
		}
		if err := json.Unmarshal(e.Value, &v); err != nil {
			t.Fatalf("txn completion %d: %v", e.Index, err)
		}
		if v.Crashed {
			o.crashed++
		}
		if e.Error != "" {
			o.byError[e.Error]++
		}
		for _, s := range v.Sends() {
			switch e.Type {
			case histories.OK:
				o.committed[s.Value] = true
			case histories.Fail:
				o.failed[s.Value] = true
			}
		}
		switch e.Type {
		case histories.OK:
			o.ok++
		case histories.Fail:
			o.fail++
		default:
			o.info++
		}
	}
	return o
}

// assertExactlyOnce is what t1 and t2 must show: committed transactions,
// every committed value in the read_committed final read exactly where the
// checker found no transaction anomaly, and no failed transaction's value
// in it.
func assertExactlyOnce(t *testing.T, name string, r scenarioRun) txnOutcomes {
	t.Helper()
	o := r.txns(t)
	t.Logf("%s: txns ok %d, fail %d, info %d, crashed %d, errors %v", name, o.ok, o.fail, o.info, o.crashed, o.byError)
	if o.ok == 0 || o.fail == 0 {
		t.Fatalf("%s: %d committed and %d failed transactions; the story needs both", name, o.ok, o.fail)
	}
	for _, e := range r.events {
		if e.F == histories.FFinalRead && e.Type == histories.Invoke {
			var rq histories.ReadRequest
			if err := e.Decode(&rq); err != nil || rq.Isolation != histories.ReadCommitted {
				t.Errorf("%s: final read at isolation %q, want read_committed (%v)", name, rq.Isolation, err)
			}
		}
	}
	final := r.finalValues(t)
	lost := 0
	for v := range o.committed {
		if !final[v] {
			lost++
		}
	}
	for v := range o.failed {
		if final[v] {
			t.Errorf("%s: value %s of a failed transaction is in the read_committed final read", name, v)
		}
	}
	if lost != 0 {
		t.Errorf("%s: %d values of committed transactions missing from the final read", name, lost)
	}
	for _, k := range []string{checker.TxnLostWrite, checker.TxnAbortedRead, checker.TxnUncommittedRead,
		checker.TxnTorn, checker.TxnDuplicate, checker.G1c, checker.OffsetReuse, checker.LostWrite} {
		if n := r.count(k); n != 0 {
			t.Errorf("%s: %d %s, want none", name, n, k)
		}
	}
	if r.res.Valid != checker.Valid {
		t.Errorf("%s: verdict %s, want valid (%v)", name, r.res.Valid, r.res.Reasons)
	}
	return o
}

func TestScenarioT1TxnLeaderKill(t *testing.T) {
	allScenarios(t) // t4 represents the transaction stories in make test (its 45-minute budget)
	r := runScenario(t, "t1")
	assertExactlyOnce(t, "t1", r)
	if led := r.leadersAfterFirstFault(0); !led[1] && !led[2] {
		t.Errorf("t1: no other broker led partition 0 after its leader's kill (leaders seen %v)", led)
	}
}

func TestScenarioT2TxnCoordinatorKill(t *testing.T) {
	allScenarios(t) // t4 represents the transaction stories in make test
	r := runScenario(t, "t2")
	o := assertExactlyOnce(t, "t2", r)
	if o.crashed == 0 {
		t.Errorf("t2: no producer crashed mid-transaction; the fencing story did not happen")
	}
	fenced := o.byError["PRODUCER_FENCED"] + o.byError["INVALID_PRODUCER_EPOCH"]
	if fenced == 0 {
		t.Errorf("t2: no zombie was fenced (errors %v)", o.byError)
	}
	// The kill struck the coordinator of the first transactional id.
	var killed []int32
	for _, e := range r.events {
		if e.Process == histories.NemesisProcess && e.F == histories.FKill && e.Type == histories.OK {
			var v histories.NemesisValue
			if err := e.Decode(&v); err == nil {
				killed = v.Nodes
			}
			break
		}
	}
	if len(killed) != 1 {
		t.Errorf("t2: the coordinator kill touched %v, want one broker", killed)
	}
}

// TestScenarioT3TxnUncleanElection runs under make test-scenarios: its
// transactional loss is small and varies (0-3 lost committed writes, one
// torn transaction in each of three measured runs), so the test asserts
// the sum and the reuse that every run showed.
func TestScenarioT3TxnUncleanElection(t *testing.T) {
	allScenarios(t)
	r := runScenario(t, "t3", "topic.configs.unclean.leader.election.enable=false")
	// The live set-config step turns unclean election on: the stale
	// follower leads partition 0 and what only broker 0 held is gone.
	o := r.txns(t)
	t.Logf("t3: txns ok %d, fail %d, info %d, errors %v", o.ok, o.fail, o.info, o.byError)
	moved := false
	for _, e := range r.events {
		var v histories.NemesisValue
		if e.F == histories.FMoveCoordinator && e.Type == histories.OK && e.Decode(&v) == nil {
			moved = slices.Equal(v.Nodes, []int32{0})
		}
	}
	if !moved {
		t.Errorf("t3: no move-coordinator to broker 0 completed")
	}
	if led := r.leadersAfterFirstFault(0); !led[1] {
		t.Errorf("t3: broker 1 never led partition 0 (leaders seen %v)", led)
	}
	if r.count(checker.OffsetReuse) == 0 {
		t.Errorf("t3: no offset reused after the unclean election")
	}
	if n := r.count(checker.TxnLostWrite) + r.count(checker.TxnTorn); n == 0 {
		t.Errorf("t3: no lost committed write and no torn transaction after the unclean election")
	}
	if r.res.Valid != checker.Invalid {
		t.Errorf("t3: verdict %s, want invalid", r.res.Valid)
	}
	final := r.finalValues(t)
	missing := 0
	for v := range o.committed {
		if !final[v] {
			missing++
		}
	}
	if missing < r.count(checker.TxnLostWrite) {
		t.Errorf("t3: the checker counts %d lost committed writes but only %d committed values are missing from the final read",
			r.count(checker.TxnLostWrite), missing)
	}
	t.Logf("t3: %d lost committed writes, %d torn transactions", r.count(checker.TxnLostWrite), r.count(checker.TxnTorn))
}

// leadersAfterFirstFault is the set of brokers the observer saw leading
// partition p after the first nemesis fault.
func (r scenarioRun) leadersAfterFirstFault(p int32) map[int32]bool {
	out := map[int32]bool{}
	faulted := false
	for _, e := range r.events {
		switch {
		case e.Process == histories.NemesisProcess && e.Type == histories.OK && !histories.IsBookkeeping(e.F):
			faulted = true
		case faulted && e.F == histories.FObserve:
			var v histories.ObserveValue
			if e.Decode(&v) == nil && v.Partition == p && v.Leader >= 0 {
				out[v.Leader] = true
			}
		}
	}
	return out
}

// TestScenarioT4HangingTxn (issue 22): KAFKA-20716's shape on a real
// cluster. The committed transaction the paused coordinator held back is
// kept on broker 1 without its marker; broker 1 is elected uncleanly; the
// read_committed final read stops at the transaction's first record and
// the checker names it txn-hanging (not lost: a read_uncommitted read
// holds every held-back record). Then the operator's recovery
// (final.abort_hanging): the abort moves the last stable offset (read from
// the cluster: the op's proof and the next final read's end), and the
// committed records it aborted are the recovery's cost (txn-lost-write).
//
// It is the hanging-transaction story's representative in make test. An
// earlier draft failed one run in three (docs/SCENARIOS.md, t4): the
// describe time fell outside its op (fixed in the final read, unit-tested
// by workloads' TestFinalReadDescribedAtWithinItsOp) and the caught
// transaction was aborted by its 10 s timeout (now 20 s).
func TestScenarioT4HangingTxn(t *testing.T) {
	r := runScenario(t, "t4")
	if n := len(r.nemesisOK(t, histories.FStopProducers)); n != 1 {
		t.Errorf("t4: %d ok stop-producers ops, want 1", n)
	}
	hangs := r.res.Anomalies.TxnHanging
	if len(hangs) == 0 {
		t.Fatalf("t4: no txn-hanging (reasons %v)", r.res.Reasons)
	}
	h := hangs[0]
	t.Logf("t4: %s", h.Text)
	// The record at the hanging first offset is a committed txn's: one
	// that ended ok, or one whose commit's answer was lost (info: the
	// EndTxn timed out while the coordinator was paused, 1 run in about
	// 10 by 2026-12-06) that a read_committed read proved committed, which
	// the checker then counts among the held-back values from that offset.
	committed := h.Txn != nil && (h.Txn.Type == "ok" ||
		h.Txn.Type == "info" && h.HeldBack.Count > 0 && h.HeldBack.FirstOffset == h.FirstOffset)
	if !h.Counted || !h.FindHanging || !committed {
		t.Errorf("t4: hanging entry %+v: want counted, listed by find-hanging, the record of a committed txn", h)
	}
	if h.HeldBack.Count == 0 || h.HeldBack.InLog != h.HeldBack.Count {
		t.Errorf("t4: held back %+v: want committed records, every one in the log", h.HeldBack)
	}
	if r.res.Valid != checker.Invalid {
		t.Errorf("t4: verdict %s, want invalid", r.res.Valid)
	}
	// The recovery: the abort's proof, read from the partition's leader.
	aborts := r.nemesisOK(t, histories.FAbortHanging)
	if len(aborts) != 1 {
		t.Fatalf("t4: %d ok abort-hanging ops, want 1", len(aborts))
	}
	var rep struct {
		Partitions map[string]struct {
			LSOBefore int64               `json:"lso_before"`
			LSOAfter  int64               `json:"lso_after"`
			HWAfter   int64               `json:"hw_after"`
			Aborted   []histories.OpenTxn `json:"aborted"`
		} `json:"partitions"`
	}
	b, _ := json.Marshal(aborts[0].v.Details)
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	p0 := rep.Partitions["0"]
	if len(p0.Aborted) != 1 || p0.Aborted[0].ProducerID != h.ProducerID || p0.Aborted[0].FirstOffset != h.FirstOffset ||
		p0.LSOAfter <= h.FirstOffset || p0.LSOAfter != p0.HWAfter {
		t.Errorf("t4: abort-hanging did %s; want the hanging transaction aborted and the last stable offset at the high watermark", b)
	}
	// Readers move: the last read_committed final read reaches its high
	// watermark.
	var last histories.ReadResult // the last one that recorded a last stable offset
	for _, e := range r.events {
		if e.F == histories.FFinalRead && e.Type == histories.OK {
			var v histories.ReadResult
			if e.Decode(&v) == nil && v.LastStableOffsets != nil {
				last = v
			}
		}
	}
	if last.EndOffsets["0"] != last.HighWatermarks["0"] || last.EndOffsets["0"] <= h.FirstOffset {
		t.Errorf("t4: the last read_committed final read ended at %v, high watermark %v: readers did not move", last.EndOffsets, last.HighWatermarks)
	}
	// The cost: each committed record held back is now aborted, a
	// txn-lost-write judged by that last read.
	lost := map[string]bool{}
	for _, e := range r.res.Anomalies.TxnLostWrite {
		lost[e.Value] = true
	}
	for _, v := range h.HeldBack.Values {
		if !lost[v] {
			t.Errorf("t4: held-back committed value %s is not a txn-lost-write after the abort", v)
		}
	}
	t.Logf("t4: %d committed records held back, %d txn-lost-write in all", h.HeldBack.Count, r.count(checker.TxnLostWrite))
}
