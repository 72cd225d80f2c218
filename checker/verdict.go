package checker

import (
	"fmt"
	"slices"
)

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
	for _, name := range []string{LostWrite, OffsetReuse, AbortedRead, Unexpected, PollSkip, NonmonotonicPoll, Nonlinearizable} {
		if n[name] > 0 {
			invalid = append(invalid, fmt.Sprintf("%s: %d", name, n[name]))
		}
	}
	for _, name := range []string{Duplicate, NonmonotonicSend} {
		switch {
		case n[name] == 0:
		case c.opts.Idempotent:
			invalid = append(invalid, fmt.Sprintf("%s: %d (the producer was idempotent)", name, n[name]))
		default:
			notes = append(notes, fmt.Sprintf("%s: %d, not counted: the producer was not idempotent", name, n[name]))
		}
	}
	if n[Unseen] > 0 {
		unknown = append(unknown, fmt.Sprintf("unseen: %d acked sends were never read, on partitions without a completed final read", n[Unseen]))
	}
	sent := make([]bool, len(c.tps))
	for i := range c.sends {
		sent[c.sends[i].tp] = true
	}
	for tp, t := range c.tps {
		if sent[tp] && t.final < 0 {
			unknown = append(unknown, fmt.Sprintf("no completed final read of %s%s", t.name(), a.finalTries(int32(tp))))
		}
	}
	if len(c.sends) == 0 {
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
