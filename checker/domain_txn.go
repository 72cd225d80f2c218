package checker

import (
	"fmt"

	"github.com/kchaos/kchaos/checker/anomaly"
)

// transactions is the transactions domain: what a transactional producer
// and read_committed readers are promised (txn.go, txncheck.go,
// txncycle.go, txnhang.go). txn-duplicate is found in the log domain's
// pass over the values read (order.go), declared here.
type transactions struct{ domainBase }

var txnKinds = []declared{
	{anomaly.Kind{Name: TxnLostWrite, Unit: "per send", Rule: anomaly.Always}, func(x *Anomalies) int { return len(x.TxnLostWrite) }},
	{anomaly.Kind{Name: TxnAbortedRead, Unit: "per value", Rule: anomaly.Always}, func(x *Anomalies) int { return len(x.TxnAbortedRead) }},
	{anomaly.Kind{Name: TxnUncommittedRead, Unit: "per value", Rule: anomaly.Always}, func(x *Anomalies) int { return len(x.TxnUncommittedRead) }},
	{anomaly.Kind{Name: TxnDuplicate, Unit: "per value", Rule: anomaly.Always}, func(x *Anomalies) int { return len(x.TxnDuplicate) }},
	{anomaly.Kind{Name: TxnTorn, Unit: "per txn", Rule: anomaly.Always}, func(x *Anomalies) int { return len(x.TxnTorn) }},
	// Kafka does not isolate the writes of concurrent transactions: their
	// records interleave on partitions (see txncycle.go).
	{anomaly.Kind{Name: G0, Unit: "per cycle", Rule: anomaly.Never}, func(x *Anomalies) int { return len(x.G0) }},
	{anomaly.Kind{Name: G1c, Unit: "per cycle", Rule: anomaly.Always}, func(x *Anomalies) int { return len(x.G1c) }},
	// Only a transaction open longer than its timeout plus the margin
	// after the final heal is hanging for sure (its entry is Counted); a
	// younger one may still be aborted: unknown.
	{anomaly.Kind{Name: TxnHanging, Unit: "per partition", Rule: anomaly.PerEntry}, func(x *Anomalies) int { return len(x.TxnHanging) }},
}

func (transactions) analyze(a *analysis) { a.txnChecks() }
func (transactions) explain(a *analysis) { a.explainTxns() }

func (t transactions) invalid(a *analysis, k anomaly.Kind, n int) string {
	if k.Name != TxnHanging {
		return t.domainBase.invalid(a, k, n)
	}
	if c := a.hangingCounted(); c > 0 {
		return fmt.Sprintf("%s: %d (open longer than their timeout plus %.0f s after the final heal)", k.Name, c, HangingMargin.Seconds())
	}
	return ""
}

func (transactions) uncounted(a *analysis, k anomaly.Kind, n int) string {
	switch k.Name {
	case G0:
		return fmt.Sprintf("G0: %d write cycles among txns, not counted: Kafka does not isolate "+
			"the writes of concurrent transactions (their records interleave on partitions)", n)
	case TxnHanging:
		if rest := n - a.hangingCounted(); rest > 0 {
			return fmt.Sprintf("txn-hanging: %d partitions held back by a transaction not yet open longer than its timeout plus %.0f s after the final heal (it may still be aborted)", rest, HangingMargin.Seconds())
		}
	}
	return ""
}

// hangingCounted is the number of txn-hanging entries that count.
func (a *analysis) hangingCounted() int {
	k := 0
	for _, e := range a.r.Anomalies.TxnHanging {
		if e.Counted {
			k++
		}
	}
	return k
}
