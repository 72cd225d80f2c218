package checker

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/checker/anomaly"
	"github.com/kchaos/kchaos/checker/model"
	"github.com/kchaos/kchaos/internal/tally"
)

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

// verdict applies HISTORY.md's rules, as the domains declare them
// (domains.go). false: any entry of a kind that counts against validity
// under the check's options (a PerEntry kind: its counted entries).
// Otherwise "unknown": entries of an Unjudged kind or uncounted entries of
// a PerEntry kind, a partition that was sent to without a completed final
// read, nothing sent at all, or a domain's own cause (a linearizability
// search that ran out of time), or sends and commits none of which was
// acknowledged (nothingAcked). Otherwise true. The reasons list the
// invalid causes in declaration order, then the unknown ones, then the
// notes (anomalies found that do not count, by rule and then in
// declaration order; then the domains' and the history's own notes).
func (a *analysis) verdict() {
	c, r := a.c, a.r
	n := r.Counts
	var invalid, unknown, notes []string
	o := anomaly.Options{Idempotent: c.opts.Idempotent, ExactlyOnce: c.opts.ExactlyOnce}
	r.Against = CountsAgainst(o.Idempotent, o.ExactlyOnce)
	for i, d := range analyzers {
		for _, k := range d.Anomalies() {
			if n[k.Name] > 0 && k.Counts(o) {
				if line := a.found[i].Invalid(k, n[k.Name]); line != "" {
					invalid = append(invalid, line)
				}
			}
		}
	}
	for _, rule := range []anomaly.Rule{anomaly.IfIdempotent, anomaly.IfExactlyOnce, anomaly.PerEntry, anomaly.Never, anomaly.Unjudged} {
		for i, d := range analyzers {
			for _, k := range d.Anomalies() {
				if k.Rule != rule || n[k.Name] == 0 || (k.Counts(o) && rule != anomaly.PerEntry) {
					continue
				}
				switch line := a.found[i].Uncounted(k, n[k.Name]); {
				case line == "":
				case rule == anomaly.PerEntry || rule == anomaly.Unjudged:
					unknown = append(unknown, line)
				default:
					notes = append(notes, line)
				}
			}
		}
	}
	for _, f := range a.found {
		notes = append(notes, f.Notes()...)
	}
	sent := make([]bool, len(c.TPs))
	for i := range c.Sends {
		sent[c.Sends[i].TP] = true
	}
	for i := range c.TxnSends {
		sent[c.TxnSends[i].TP] = true
	}
	for tp, t := range c.TPs {
		if sent[tp] && t.Final < 0 {
			unknown = append(unknown, fmt.Sprintf("no completed final read of %s%s", t.Name(), a.finalTries(int32(tp))))
		}
	}
	if len(c.Sends) == 0 && len(c.TxnSends) == 0 {
		// Every kchaos workload sends (workload.producers is at least 1):
		// a run that sent nothing is a workload that never ran.
		r.Unexercised = append(r.Unexercised, "nothing was sent")
	}
	r.Unexercised = append(r.Unexercised, a.nothingAcked()...)
	for _, f := range a.found {
		r.Unexercised = append(r.Unexercised, f.Unexercised()...)
	}
	unknown = append(unknown, r.Unexercised...)
	for _, f := range a.found {
		unknown = append(unknown, f.Unknowns()...)
	}
	if len(c.ignored) > 0 {
		fs := sortedKeys(c.ignored)
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

// nothingAcked says why a history that sent is still not known to be
// valid when nothing in it was acknowledged: no plain send completed ok
// with an offset (an ok without one, under acks=0, is an unknown outcome
// by the contract, like info: the broker promised nothing) and no
// transaction meant to commit committed. Every check of acknowledged
// records then holds vacuously (a compacted topic refusing keyless records with
// INVALID_RECORD, a min.insync.replicas the ISR never met, a broker
// nobody reached), and "valid" would vouch for a durability the run never
// exercised. Jepsen's stats checker fails a test in which some operation
// never completed ok; kchaos says unknown, as it does when nothing was
// sent, and names what the sends and commits ended with. A history that
// acknowledged something of one kind (plain sends beside transactions
// that all failed) is judged as it stands.
func (a *analysis) nothingAcked() []string {
	c := a.c
	var parts []string
	if len(c.Sends) > 0 {
		var fail, info int
		errs := map[string]int{}
		for i := range c.Sends {
			switch c.Sends[i].Typ {
			case model.OpOK:
				return nil
			case model.OpOKNoOffset:
				info++
				errs["ok without an offset (acks=0)"]++
			case model.OpFail:
				fail++
			default:
				info++
			}
			if e := c.SendErr[int32(i)]; e != "" {
				errs[e]++
			}
		}
		parts = append(parts, fmt.Sprintf("%s (%d failed, %d unknown%s)", tally.N(len(c.Sends), "send", "sends"), fail, info, topErrors(errs)))
	}
	var meant, fail, info int
	errs := map[string]int{}
	for i, t := range c.Txns {
		if t.Abort {
			continue
		}
		meant++
		switch t.Typ {
		case model.OpOK:
			return nil
		case model.OpFail:
			fail++
		default:
			info++
		}
		if e := c.TxnErr[int32(i)]; e != "" {
			errs[e]++
		}
	}
	if meant > 0 {
		parts = append(parts, fmt.Sprintf("%s meant to commit (%d failed, %d unknown%s)", tally.N(meant, "transaction", "transactions"), fail, info, topErrors(errs)))
	}
	if len(parts) == 0 {
		return nil // nothing sent: said apart
	}
	return []string{"nothing was acknowledged: " + strings.Join(parts, ", ") + "; no acknowledged record to check for loss"}
}

// topErrors is "; E1 n1, E2 n2, E3 n3, ...": the errors most completions
// ended with, most first ("" for none).
func topErrors(errs map[string]int) string {
	if len(errs) == 0 {
		return ""
	}
	return "; " + tally.Top(errs, 3)
}
