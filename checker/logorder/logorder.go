// Package logorder is the checker's plain log-and-order analyzer: what the
// contract (docs/HISTORY.md, v1) promises of acked sends, of each offset
// and value, and of each producer's and consumer's order. It declares
// lost-write, offset-reuse, duplicate, aborted-read, unexpected,
// nonmonotonic-send, poll-skip, nonmonotonic-poll and unseen, finds them
// in the decoded history (model.History, with the order the checker
// followed while streaming: model.Log) and the shared final-read
// judgement (judge.Finals), explains lost writes and reused offsets in
// ranges, and every other kind that counts per partition (ordertext.go).
//
// Its one pass over the values read also finds txn-duplicate (a value
// only transactions sent, at two offsets): the entries are made by
// package txncheck (ValueEntry) and returned in Found.TxnDuplicate.
package logorder

import (
	"fmt"

	"github.com/kchaos/kchaos/checker/anomaly"
	"github.com/kchaos/kchaos/checker/domain"
	"github.com/kchaos/kchaos/checker/judge"
	"github.com/kchaos/kchaos/checker/model"
	"github.com/kchaos/kchaos/checker/txncheck"
	"github.com/kchaos/kchaos/internal/tally"
)

// Analyzer is the log-and-order domain (domain.Analyzer).
var Analyzer = domain.New("log and order", analyze)

// LogAnomalies is the domain's part of the Result's anomalies (package
// checker embeds it) and declares its kinds: each list's JSON name, unit
// and rule (read by domain.New), in HISTORY.md's order.
type LogAnomalies struct {
	LostWrite        []LostWriteEntry        `json:"lost-write,omitempty" unit:"per send" rule:"always"`
	OffsetReuse      []OffsetReuseEntry      `json:"offset-reuse,omitempty" unit:"per offset" rule:"always"`
	Duplicate        []ValueEntry            `json:"duplicate,omitempty" unit:"per value" rule:"if idempotent"`
	AbortedRead      []ValueEntry            `json:"aborted-read,omitempty" unit:"per value" rule:"always"`
	Unexpected       []ValueEntry            `json:"unexpected,omitempty" unit:"per value" rule:"always"`
	NonmonotonicSend []NonmonotonicSendEntry `json:"nonmonotonic-send,omitempty" unit:"occurrence" rule:"if idempotent"`
	PollSkip         []PollEntry             `json:"poll-skip,omitempty" unit:"occurrence" rule:"always"`
	NonmonotonicPoll []PollEntry             `json:"nonmonotonic-poll,omitempty" unit:"occurrence" rule:"always"`
	Unseen           []judge.SendEntry       `json:"unseen,omitempty" unit:"per send" rule:"unknown"`
}

// Found is what the analyzer found beyond its entries. Its explanations
// are the lost-write ranges, then the reused offsets', then the other
// counted kinds' (one per kind and partition); the entries' Range
// is an index among them, which are the Result's first (the domain is the
// registry's first).
type Found struct {
	domain.Base
	// TxnDuplicate are the txn-duplicate entries its pass over the values
	// found (the transactions domain's anomaly).
	TxnDuplicate []txncheck.TxnValueEntry
	// firstUnseen is the first unseen send, which the reason names.
	firstUnseen *judge.SendEntry
}

// Uncounted: duplicate and nonmonotonic-send count only for an idempotent
// producer; unseen sends leave the verdict unknown.
func (f *Found) Uncounted(k anomaly.Kind, n int) string {
	switch k.Rule {
	case anomaly.IfIdempotent:
		return fmt.Sprintf("%s: %d, not counted: the producer was not idempotent", k.Name, n)
	case anomaly.Unjudged:
		out := fmt.Sprintf("unseen: %s no completed final read could judge "+
			"(on a partition without one and never polled, or acked (or their txn committed) at or after the invoke of the final read that judges the partition, and not in it)",
			tally.N(n, "acked send", "acked sends"))
		if e := f.firstUnseen; e != nil {
			out += fmt.Sprintf("; first: %s at offset %d of %s-%d (p%d, acked at %.1f s)", e.Value, e.Offset, e.Topic, e.Partition, e.Process, e.AckedS)
		}
		return out
	}
	return ""
}

// analyze finds the log-and-order anomalies of in's history and appends
// them to out, with their explanations.
func analyze(in *domain.Input, out *LogAnomalies) *Found {
	a := &run{c: in.History, in: in, out: out, acked: in.Acked, seenPlain: in.Finals.SeenPlain}
	a.lostAndUnseen()
	a.reuse()
	a.values() // also finds txn-duplicate: one pass over the values read
	a.sendOrder()
	a.pollOrder()
	a.explain()
	a.explainOrder()
	f := &Found{Base: domain.Base{Expl: a.expl}, TxnDuplicate: a.txnDup}
	if len(out.Unseen) > 0 {
		first := out.Unseen[0]
		f.firstUnseen = &first
	}
	return f
}

// run is one analysis of a history's log and order.
type run struct {
	c         *model.History
	in        *domain.Input
	out       *LogAnomalies
	expl      []judge.Explanation
	txnDup    []txncheck.TxnValueEntry
	acked     [][]int32              // per partition, its sends acked with an offset, in send order
	seenPlain map[int32]judge.SeenAt // first observations that prove a plain send's write
	lost      []int32                // lost sends, in send order
	lostBy    map[int32]int32        // lost send -> the final read that lacks it
	lostSeen  map[int32]judge.SeenAt // lost send not acked with an offset -> its observation
	earlier   map[tpKey]earlierSets  // reused and lost offsets by partition, once an explanation asks
}
