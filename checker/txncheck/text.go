package txncheck

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/checker/judge"
)

// The sentences of the transaction anomalies: each names the txn (its
// transactional id, history index, process and outcome), the values,
// partitions, offsets and leader epochs, and the last fault before it.

// txnName renders a txn reference, e.g. `txn "tx-1" (index 4, p1, fail
// INVALID_PRODUCER_EPOCH)`.
func txnName(r TxnRef) string {
	out := r.Type
	if r.Error != "" {
		out += " " + r.Error
	}
	if r.EndInvokedS != nil {
		out += fmt.Sprintf(", asked to end at %.1f s", *r.EndInvokedS)
	}
	return fmt.Sprintf("txn %q (index %d, p%d, %s)", r.TransactionalID, r.Index, r.Process, out)
}

// whereText says the leader epochs read and the fault before.
func whereText(epochs []int32, w judge.Where) []string {
	var out []string
	if len(epochs) > 0 {
		out = append(out, "leader epochs "+judge.Ints(epochs))
	} else if w.LeaderEpoch != nil {
		out = append(out, fmt.Sprintf("leader epoch %d observed", *w.LeaderEpoch))
	}
	if w.LastFault != nil {
		out = append(out, "after "+w.LastFault.String())
	}
	return out
}

func txnValueText(kind, name string, e *TxnValueEntry) string {
	var head string
	switch kind {
	case TxnAbortedRead:
		head = fmt.Sprintf("%s %s: %s of %s read at read_committed, though the txn did not commit",
			name, judge.OffsetList(e.Offsets), e.Value, txnName(e.Txn))
	case TxnUncommittedRead:
		head = fmt.Sprintf("%s %s: %s of %s read at read_committed before the txn could have committed",
			name, judge.OffsetList(e.Offsets), e.Value, txnName(e.Txn))
	default:
		head = fmt.Sprintf("%s %s: %s of %s is in the log %d times",
			name, judge.OffsetList(e.Offsets), e.Value, txnName(e.Txn), len(e.Offsets))
	}
	parts := []string{head}
	if len(e.ReadBy) > 0 {
		parts = append(parts, "read by "+strings.Join(e.ReadBy, ", "))
	}
	parts = append(parts, whereText(e.LeaderEpochs, e.Where)...)
	return strings.Join(parts, "; ")
}

func txnLostText(name string, e *TxnLostWriteEntry) string {
	parts := []string{fmt.Sprintf("%s offset %d: %s of committed %s is missing from the final read",
		name, e.Offset, e.Value, txnName(e.Txn))}
	if e.AtCommit.ISR != nil {
		parts = append(parts, "committed while ISR was "+judge.Ints(e.AtCommit.ISR))
	}
	parts = append(parts, whereText(nil, e.AtCommit)...)
	parts = append(parts, faultsText(e.Faults)...)
	parts = append(parts, requestsText(e.Requests)...)
	if e.FinalEpoch != nil {
		parts = append(parts, fmt.Sprintf("leader epoch %d at the final read", *e.FinalEpoch))
	}
	if e.Now != nil {
		parts = append(parts, fmt.Sprintf("the offset now holds %s (leader epoch %d)", e.Now.Value, e.Now.LeaderEpoch))
	}
	return strings.Join(parts, "; ")
}

// faultsText names the decisive faults made after a txn completed.
func faultsText(faults []judge.FaultRef) []string {
	var s []string
	for _, f := range judge.Decisive(faults) {
		s = append(s, f.String())
	}
	if len(s) == 0 {
		return nil
	}
	return []string{"then " + strings.Join(s, ", ")}
}

// requestsText names the request faults' actions made after a txn
// completed: moments the history holds, never a cause of loss.
func requestsText(rs []judge.RequestRef) []string {
	if w := judge.RequestsWords("request actions then: ", rs); w != "" {
		return []string{w}
	}
	return nil
}

func txnTornText(e *TxnTornEntry) string {
	parts := []string{txnName(e.Txn) + " is torn"}
	for _, p := range e.Partitions {
		var s []string
		if len(p.Present) > 0 {
			s = append(s, "present "+strings.Join(p.Present, ", "))
		}
		if len(p.Missing) > 0 {
			s = append(s, "missing "+strings.Join(p.Missing, ", "))
		}
		if p.OutOfOrder {
			s = append(s, fmt.Sprintf("out of send order (%s at %s)", strings.Join(p.Values, ", "), judge.OffsetList(p.Offsets)))
		}
		if len(s) > 0 {
			parts = append(parts, fmt.Sprintf("%s-%d %s", p.Topic, p.Partition, strings.Join(s, ", ")))
		}
		// Why each missing value is missing: its marker, a value one final
		// read holds and another lacks, or a value no final read holds.
		if len(p.MarkerMissing) > 0 {
			parts = append(parts, fmt.Sprintf("marker missing on %s-%d (%s in a read_uncommitted final read, absent at read_committed)",
				p.Topic, p.Partition, strings.Join(p.MarkerMissing, ", ")))
		}
		if len(p.Vanished) > 0 {
			parts = append(parts, fmt.Sprintf("value lost on %s-%d (%s in a final read, missing from another that should hold it)",
				p.Topic, p.Partition, strings.Join(p.Vanished, ", ")))
		}
		if gone := inNone(p); len(gone) > 0 {
			parts = append(parts, fmt.Sprintf("value lost on %s-%d (%s in no final read)",
				p.Topic, p.Partition, strings.Join(gone, ", ")))
		}
	}
	parts = append(parts, whereText(nil, e.Where)...)
	parts = append(parts, faultsText(e.Faults)...)
	parts = append(parts, requestsText(e.Requests)...)
	return strings.Join(parts, "; ")
}

func cycleText(kind string, e *CycleEntry) string {
	var steps []string
	for _, s := range e.Steps {
		from, to := e.Txns[s.From], e.Txns[s.To]
		switch s.Type {
		case "ww":
			steps = append(steps, fmt.Sprintf("%q -ww-> %q (%s-%d: %s at %d before %s at %d)", from.TransactionalID,
				to.TransactionalID, s.Topic, s.Partition, s.Values[0], s.Offsets[0], s.Values[1], s.Offsets[1]))
		default:
			steps = append(steps, fmt.Sprintf("%q -wr-> %q (%s-%d: %s at %d read by it)", from.TransactionalID,
				to.TransactionalID, s.Topic, s.Partition, s.Values[0], s.Offsets[0]))
		}
	}
	var txns []string
	for _, t := range e.Txns {
		txns = append(txns, txnName(t))
	}
	parts := []string{fmt.Sprintf("%s cycle of %d txns (component of %d): %s", kind, len(e.Txns), e.SCCSize, strings.Join(steps, ", ")),
		strings.Join(txns, ", ")}
	var epochs []int32
	for _, s := range e.Steps {
		for _, ep := range s.LeaderEpochs {
			if !containsInt32(epochs, ep) {
				epochs = append(epochs, ep)
			}
		}
	}
	parts = append(parts, whereText(epochs, e.Where)...)
	return strings.Join(parts, "; ")
}

func containsInt32(s []int32, v int32) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// inNone is the missing values of p that no final read holds: neither a
// missing marker nor a value that vanished between reads.
func inNone(p TornPartition) []string {
	var out []string
	for _, v := range p.Missing {
		if !slices.Contains(p.MarkerMissing, v) && !slices.Contains(p.Vanished, v) {
			out = append(out, v)
		}
	}
	return out
}
