package checker

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/checker/anomaly"
	"github.com/kchaos/kchaos/checker/domain"
	"github.com/kchaos/kchaos/checker/groupcheck"
	"github.com/kchaos/kchaos/checker/logorder"
	"github.com/kchaos/kchaos/checker/metadata"
	"github.com/kchaos/kchaos/checker/share"
	"github.com/kchaos/kchaos/checker/txncheck"
)

// TestDeclarations: the domains' declarations are well formed, name every
// list of Anomalies once (in results.json's order) and count each from
// its own list.
func TestDeclarations(t *testing.T) {
	if err := anomaly.Check(kinds()); err != nil {
		t.Fatal(err)
	}
	var x Anomalies
	var fields []string
	// Each list, in results.json's order: a domain's struct of lists
	// embedded in Anomalies marshals in place, so its lists count too.
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		for i := range v.NumField() {
			f, sf := v.Field(i), v.Type().Field(i)
			if sf.Anonymous {
				walk(f)
				continue
			}
			n := len(fields) + 1
			f.Set(reflect.MakeSlice(f.Type(), n, n)) // a count no other field has
			fields = append(fields, strings.Split(sf.Tag.Get("json"), ",")[0])
		}
	}
	walk(reflect.ValueOf(&x).Elem())
	if !slices.Equal(AnomalyNames, fields) {
		t.Fatalf("declared %v,\nAnomalies holds %v", AnomalyNames, fields)
	}
	counts := x.counts()
	for i, name := range fields {
		if counts[name] != i+1 {
			t.Errorf("%s counts %d entries, its list holds %d", name, counts[name], i+1)
		}
	}
}

// TestCountsAgainstPinned: the declarations give the rule HISTORY.md
// states, as the list verdict.go held before the domains declared it.
func TestCountsAgainstPinned(t *testing.T) {
	always := func(idem, eo bool) []string {
		out := []string{LostWrite, OffsetReuse}
		if idem {
			out = append(out, Duplicate)
		}
		out = append(out, AbortedRead, Unexpected)
		if idem {
			out = append(out, NonmonotonicSend)
		}
		out = append(out, PollSkip, NonmonotonicPoll, LogStartJump, Nonlinearizable, TxnLostWrite, TxnAbortedRead,
			TxnUncommittedRead, TxnDuplicate, TxnTorn, G1c, txnHanging, LostByCommit, CommitBackwards, commitLost)
		if eo {
			out = append(out, Redelivery, DeliveryOutsideAssignment)
		}
		// A share group's anomalies count whatever the run declares.
		out = append(out, share.Lost, share.DoubleAcquire, share.RedeliveredAfterAccept, share.DeliveryCount)
		return append(out, metadata.Lost, metadata.Diverged, metadata.SplitBrain, metadata.VoterChangeLost)
	}
	for _, tc := range []struct{ idem, eo bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
		if got, want := CountsAgainst(tc.idem, tc.eo), always(tc.idem, tc.eo); !slices.Equal(got, want) {
			t.Errorf("idempotent %v, exactly-once %v:\n got %v\nwant %v", tc.idem, tc.eo, got, want)
		}
	}
}

// TestVerdictSpecialCases: the rules that are not "any entry counts" keep
// their exact reasons and order: duplicate and nonmonotonic-send only when
// idempotent, redelivery and delivery-outside-assignment only under
// exactly-once, G0 never, txn-hanging by its counted entries (the rest
// make the verdict unknown), unseen unknown.
func TestVerdictSpecialCases(t *testing.T) {
	margin := hangingMargin.Seconds()
	notIdem := []string{"duplicate: 2, not counted: the producer was not idempotent",
		"nonmonotonic-send: 1, not counted: the producer was not idempotent"}
	atLeastOnce := []string{"redelivery: 3 ranges (5 records) delivered again to the group, not counted: the group declares at-least-once delivery",
		"delivery-outside-assignment: 1 (a member's poll delivered records of a partition its client did not hold), not counted: the group declares at-least-once delivery"}
	g0 := "G0: 1 write cycles among txns, not counted: Kafka does not isolate the writes of concurrent transactions (their records interleave on partitions)"
	unseen := "unseen: 2 acked sends no completed final read could judge (on a partition without one and never polled, or acked (or their txn committed) at or after the invoke of the final read that judges the partition, and not in it)"
	mixed := map[string]int{Duplicate: 2, NonmonotonicSend: 1, G0: 1, Redelivery: 3, DeliveryOutsideAssignment: 1}
	for _, tc := range []struct {
		name    string
		opts    Options
		counts  map[string]int
		hanging []bool // txn-hanging entries' Counted
		want    Verdict
		reasons []string
	}{
		{"nothing counts", Options{}, mixed, nil, Unknown,
			append(append(append([]string{"nothing was sent"}, notIdem...), atLeastOnce...), g0)},
		{"idempotent, exactly-once", Options{Idempotent: true, ExactlyOnce: true}, mixed, nil, Invalid,
			[]string{"duplicate: 2 (the producer was idempotent)", "nonmonotonic-send: 1 (the producer was idempotent)",
				"redelivery: 3", "delivery-outside-assignment: 1", "nothing was sent", g0}},
		{"some hanging counted", Options{}, map[string]int{txnHanging: 3, Unseen: 2}, []bool{false, true, false}, Invalid,
			[]string{fmt.Sprintf("txn-hanging: 1 (open longer than their timeout plus %.0f s after the final heal)", margin),
				fmt.Sprintf("txn-hanging: 2 partitions held back by a transaction not yet open longer than its timeout plus %.0f s after the final heal (it may still be aborted)", margin),
				unseen, "nothing was sent"}},
		{"no hanging counted", Options{}, map[string]int{txnHanging: 1}, []bool{false}, Unknown,
			[]string{fmt.Sprintf("txn-hanging: 1 partitions held back by a transaction not yet open longer than its timeout plus %.0f s after the final heal (it may still be aborted)", margin),
				"nothing was sent"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Result{Counts: tc.counts}
			for _, c := range tc.hanging {
				r.Anomalies.TxnHanging = append(r.Anomalies.TxnHanging, txncheck.TxnHangingEntry{Counted: c})
			}
			// What the domains found (the group domain: 5 records delivered
			// again; the others: nothing beyond the generic reasons).
			byName := map[string]domain.Findings{consumerGroups.Name(): &groupcheck.Found{Stats: &groupcheck.GroupStats{Redelivered: 5}},
				transactions.Name(): txncheck.NewFound(&r.Anomalies.TxnAnomalies), logOrder.Name(): &logorder.Found{}}
			found := make([]domain.Findings, len(analyzers))
			for i, d := range analyzers {
				if found[i] = byName[d.Name()]; found[i] == nil {
					found[i] = domain.Base{}
				}
			}
			a := &analysis{c: newChecker(tc.opts), r: r, found: found}
			a.verdict()
			if r.Valid != tc.want || !slices.Equal(r.Reasons, tc.reasons) {
				t.Errorf("%v %q,\nwant %v %q", r.Valid, r.Reasons, tc.want, tc.reasons)
			}
		})
	}
}
