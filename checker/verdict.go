package checker

import (
	"fmt"
	"slices"
	"strings"
)

// CountsAgainst lists the anomaly names that make a verdict false, in
// HISTORY.md's order: the one statement of the rule (the report and the
// CLI read it from the Result, never restate it). duplicate and
// nonmonotonic-send count only for an idempotent producer; unseen never
// makes a verdict false (it makes it unknown). The transaction anomalies
// count whatever the plain producer's settings (a transactional producer
// is idempotent and promises each of them), except G0: Kafka does not
// isolate the writes of concurrent transactions, so their interleaving on
// partitions is information, not a violation (Jepsen's kafka workload
// allows it too). A consumer group's lost-by-commit and commit-backwards
// always count (an acknowledged commit is a promise); a redelivery and a
// delivery-outside-assignment count only when the scenario declares
// exactly-once delivery: at-least-once allows a record to be processed
// twice, and a zombie's reads (a member reading a partition its client no
// longer, or never, held) are at worst that, while its commits are judged
// on their own (commit-backwards, lost-by-commit); exactly-once promises
// one owner per record.
func CountsAgainst(idempotent, exactlyOnce bool) []string {
	out := []string{LostWrite, OffsetReuse}
	if idempotent {
		out = append(out, Duplicate)
	}
	out = append(out, AbortedRead, Unexpected)
	if idempotent {
		out = append(out, NonmonotonicSend)
	}
	out = append(out, PollSkip, NonmonotonicPoll, Nonlinearizable,
		TxnLostWrite, TxnAbortedRead, TxnUncommittedRead, TxnDuplicate, TxnTorn, G1c, TxnHanging, LostByCommit, CommitBackwards)
	if exactlyOnce {
		out = append(out, Redelivery, DeliveryOutsideAssignment)
	}
	return out
}

// Counted reports whether anomaly kind counts against validity in r. A
// results.json written before the list was recorded falls back to the rule
// for the producer the check assumed.
func (r *Result) Counted(kind string) bool {
	against := r.Against
	if against == nil {
		against = CountsAgainst(r.Idempotent, false)
	}
	return slices.Contains(against, kind)
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

// ExitCode maps a verdict to the CLI's exit code: 0 valid, 1 invalid,
// 2 unknown (HISTORY.md).
func (v Verdict) ExitCode() int {
	switch v {
	case Valid:
		return 0
	case Invalid:
		return 1
	}
	return 2
}

// verdict applies HISTORY.md's rules. false: any data-loss, integrity or
// consumer-order anomaly (lost-write, offset-reuse, aborted-read,
// unexpected, poll-skip, nonmonotonic-poll), kchaos's nonlinearizable, and
// duplicate and nonmonotonic-send when the producer was idempotent.
// Otherwise "unknown": unseen sends, a partition that was sent to without a
// completed final read, a linearizability search that ran out of time, or
// nothing sent at all. Otherwise true.
func (a *analysis) verdict() {
	c, r := a.c, a.r
	n := r.Counts
	var invalid, unknown, notes []string
	r.Against = CountsAgainst(c.opts.Idempotent, c.opts.ExactlyOnce)
	for _, name := range r.Against {
		switch {
		case n[name] == 0:
		case name == TxnHanging:
			// Only a transaction open longer than its timeout plus the
			// margin after the final heal is hanging for sure; a younger
			// one may still be aborted (unknown, below).
			if k := a.hangingCounted(); k > 0 {
				invalid = append(invalid, fmt.Sprintf("%s: %d (open longer than their timeout plus %.0f s after the final heal)", name, k, HangingMargin.Seconds()))
			}
		case name == Duplicate || name == NonmonotonicSend:
			invalid = append(invalid, fmt.Sprintf("%s: %d (the producer was idempotent)", name, n[name]))
		default:
			invalid = append(invalid, fmt.Sprintf("%s: %d", name, n[name]))
		}
	}
	for _, name := range []string{Duplicate, NonmonotonicSend} {
		if n[name] > 0 && !slices.Contains(r.Against, name) {
			notes = append(notes, fmt.Sprintf("%s: %d, not counted: the producer was not idempotent", name, n[name]))
		}
	}
	if n[Redelivery] > 0 && !c.opts.ExactlyOnce {
		notes = append(notes, fmt.Sprintf("redelivery: %d ranges (%d records) delivered again to the group, not counted: "+
			"the group declares at-least-once delivery", n[Redelivery], a.redeliveredN))
	}
	if n[DeliveryOutsideAssignment] > 0 && !c.opts.ExactlyOnce {
		notes = append(notes, fmt.Sprintf("delivery-outside-assignment: %d (a member's poll delivered records of a partition its client did not hold), "+
			"not counted: the group declares at-least-once delivery", n[DeliveryOutsideAssignment]))
	}
	if n[G0] > 0 {
		notes = append(notes, fmt.Sprintf("G0: %d write cycles among txns, not counted: Kafka does not isolate "+
			"the writes of concurrent transactions (their records interleave on partitions)", n[G0]))
	}
	if tps := a.txnNotLinearized(); len(tps) > 0 && !c.opts.SkipLinearizability {
		notes = append(notes, fmt.Sprintf("linearizability: %d partitions hold txn writes or read_committed reads "+
			"and are left out of the log model, which does not model transactions (the txn checks judge them): %s",
			len(tps), strings.Join(tps, ", ")))
	}
	if k := n[TxnHanging] - a.hangingCounted(); k > 0 {
		unknown = append(unknown, fmt.Sprintf("txn-hanging: %d partitions held back by a transaction not yet open longer than its timeout plus %.0f s after the final heal (it may still be aborted)", k, HangingMargin.Seconds()))
	}
	if n[Unseen] > 0 {
		unknown = append(unknown, fmt.Sprintf("unseen: %d acked sends no completed final read could judge "+
			"(on a partition without one and never polled, or acked (or their txn committed) at or after the invoke of the final read that judges the partition, and not in it)", n[Unseen]))
	}
	sent := make([]bool, len(c.tps))
	for i := range c.sends {
		sent[c.sends[i].tp] = true
	}
	for i := range c.txnSends {
		sent[c.txnSends[i].tp] = true
	}
	for tp, t := range c.tps {
		if sent[tp] && t.final < 0 {
			unknown = append(unknown, fmt.Sprintf("no completed final read of %s%s", t.name(), a.finalTries(int32(tp))))
		}
	}
	if len(c.sends) == 0 && len(c.txnSends) == 0 {
		unknown = append(unknown, "nothing was sent")
	}
	if l := r.Linearizable; l != nil && l.Result == "unknown" {
		var names []string
		for name, p := range l.Partitions {
			if p.Result == "unknown" {
				names = append(names, name)
			}
		}
		slices.Sort(names)
		unknown = append(unknown, fmt.Sprintf("linearizability check ran out of time on %v", names))
	}
	if len(c.ignored) > 0 {
		fs := make([]string, 0, len(c.ignored))
		for f := range c.ignored {
			fs = append(fs, f)
		}
		slices.Sort(fs)
		var parts []string
		for _, f := range fs {
			parts = append(parts, fmt.Sprintf("%s %d", f, c.ignored[f]))
		}
		notes = append(notes, fmt.Sprintf("ignored: client ops whose f the contract does not define (%s)", strings.Join(parts, ", ")))
	}
	if c.tornLine > 0 {
		notes = append(notes, fmt.Sprintf("history line %d was torn (the writer stopped mid-line) and was dropped", c.tornLine))
	}
	switch {
	case len(invalid) > 0:
		r.Valid = Invalid
	case len(unknown) > 0:
		r.Valid = Unknown
	default:
		r.Valid = Valid
	}
	r.Reasons = append(append(append(invalid, unknown...), notes...), r.Reasons...)
}

// finalTries says how the final reads of tp that did not complete ended.
func (a *analysis) finalTries(tp int32) string {
	var out string
	for _, f := range a.c.failed {
		if slices.Contains(f.tps, tp) {
			out += fmt.Sprintf(" (final read by p%d ended %s", f.proc, f.typ)
			if f.err != "" {
				out += ": " + f.err
			}
			out += ")"
		}
	}
	return out
}
