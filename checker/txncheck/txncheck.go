// Package txncheck is the checker's transactions analyzer: what a
// transactional producer and read_committed readers are promised
// (docs/HISTORY.md, "Transactions: what the checker proves"). It declares
// txn-lost-write, txn-aborted-read, txn-uncommitted-read, txn-duplicate,
// txn-torn, G0, G1c and txn-hanging, finds them in the txn tables the
// checker decoded (model.Transactions) with the shared final-read
// judgement (judge.Finals), and explains them.
//
// txn-duplicate is found in the log-and-order domain's one pass over the
// values read (package checker, order.go), which makes its entry with
// ValueEntry; a committed txn's send that no read could judge is unseen,
// the log domain's anomaly (Found.Unseen).
package txncheck

import (
	"fmt"

	"github.com/kchaos/kchaos/checker/anomaly"
	"github.com/kchaos/kchaos/checker/domain"
	"github.com/kchaos/kchaos/checker/judge"
	"github.com/kchaos/kchaos/checker/model"
)

// Analyzer is the transactions domain (domain.Analyzer).
var Analyzer = domain.New("transactions", analyze)

// TxnAnomalies is the domain's part of the Result's anomalies (package
// checker embeds it) and declares its kinds: each list's JSON name, unit
// and rule (read by domain.New), in HISTORY.md's order.
type TxnAnomalies struct {
	TxnLostWrite       []TxnLostWriteEntry `json:"txn-lost-write,omitempty" unit:"per send" rule:"always"`
	TxnAbortedRead     []TxnValueEntry     `json:"txn-aborted-read,omitempty" unit:"per value" rule:"always"`
	TxnUncommittedRead []TxnValueEntry     `json:"txn-uncommitted-read,omitempty" unit:"per value" rule:"always"`
	TxnDuplicate       []TxnValueEntry     `json:"txn-duplicate,omitempty" unit:"per value" rule:"always"`
	TxnTorn            []TxnTornEntry      `json:"txn-torn,omitempty" unit:"per txn" rule:"always"`
	// Kafka does not isolate the writes of concurrent transactions: their
	// records interleave on partitions (see cycle.go).
	G0  []CycleEntry `json:"G0,omitempty" unit:"per cycle" rule:"never"`
	G1c []CycleEntry `json:"G1c,omitempty" unit:"per cycle" rule:"always"`
	// Only a transaction open longer than its timeout plus the margin
	// after the final heal is hanging for sure (its entry is Counted); a
	// younger one may still be aborted: unknown.
	TxnHanging []TxnHangingEntry `json:"txn-hanging,omitempty" unit:"per partition" rule:"per entry"`
}

// hangingCounted is the number of txn-hanging entries that count.
func (x *TxnAnomalies) hangingCounted() int {
	k := 0
	for _, e := range x.TxnHanging {
		if e.Counted {
			k++
		}
	}
	return k
}

// Found is what the analyzer found beyond its entries.
type Found struct {
	domain.Base
	out *TxnAnomalies
	// Unseen are committed txns' sends that no completed final read
	// could judge: the log domain's unseen entries.
	Unseen []judge.SendEntry
	Stats  *TxnStats // nil without any txn
}

// NewFound is the findings of an analysis whose entries are out, for a
// test of the reasons.
func NewFound(out *TxnAnomalies) *Found { return &Found{out: out} }

// Invalid: txn-hanging counts only its Counted entries.
func (f *Found) Invalid(k anomaly.Kind, n int) string {
	if k.Name != TxnHanging {
		return domain.Invalid(k, n)
	}
	if c := f.out.hangingCounted(); c > 0 {
		return fmt.Sprintf("%s: %d (open longer than their timeout plus %.0f s after the final heal)", k.Name, c, HangingMargin.Seconds())
	}
	return ""
}

// Uncounted: G0 is information; a txn-hanging not yet counted leaves the
// verdict unknown.
func (f *Found) Uncounted(k anomaly.Kind, n int) string {
	switch k.Name {
	case G0:
		return fmt.Sprintf("G0: %d write cycles among txns, not counted: Kafka does not isolate "+
			"the writes of concurrent transactions (their records interleave on partitions)", n)
	case TxnHanging:
		if rest := n - f.out.hangingCounted(); rest > 0 {
			return fmt.Sprintf("txn-hanging: %d partitions held back by a transaction not yet open longer than its timeout plus %.0f s after the final heal (it may still be aborted)", rest, HangingMargin.Seconds())
		}
	}
	return ""
}

// analyze finds the transaction anomalies of in's history and appends
// them to out (whose TxnDuplicate the log domain has filled).
func analyze(in *domain.Input, out *TxnAnomalies) *Found {
	a := &run{c: in.History, in: in, out: out}
	a.txnChecks()
	a.explainTxns()
	return &Found{Base: domain.Base{Expl: a.expl}, out: out, Unseen: a.unseen, Stats: a.txnStats()}
}

// run is one analysis of a history's transactions.
type run struct {
	c          *model.History
	in         *domain.Input
	out        *TxnAnomalies
	expl       []judge.Explanation
	unseen     []judge.SendEntry
	txnMissing map[int32]int32 // txn send missing from a final read that should hold it -> that read
	missAt     map[int32]known // txn send in txnMissing -> where and since when it was known
	wwN, wrN   int             // edges of the txn dependency graph
}

// known is where a txn's value was known to be in the log, and since when
// (its offset as acked or as a read saw it; the commit or that read).
type known struct{ off, at int64 }

// Words describes the txn of txn send ts, for offset-reuse sources.
func Words(h *model.History, ts int32) string { return (&run{c: h}).txnWords(ts) }

// ValueEntry makes the entry of value v of txn send ts, read as s says,
// of kind (the log domain's pass over the values makes txn-duplicate's).
func ValueEntry(in *domain.Input, v, ts int32, s *judge.ValueSeen, kind string) TxnValueEntry {
	return (&run{c: in.History, in: in}).txnValueEntry(v, ts, s, kind)
}

// Cycles searches the txn dependency graph alone, appending G0 and G1c to
// out, and returns its ww and wr edges (BenchmarkTxnCycles times it).
func Cycles(in *domain.Input, out *TxnAnomalies) (ww, wr int) {
	a := &run{c: in.History, in: in, out: out}
	a.txnCycles()
	return a.wwN, a.wrN
}
