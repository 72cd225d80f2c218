package report

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/kchaos/kchaos/checker"
	"github.com/kchaos/kchaos/checker/metadata"
	"github.com/kchaos/kchaos/histories"
)

// RunVerdict is the report's verdict: checker's three, plus Unchecked for a
// run folder without a readable results.json (the checker never ran, or
// crashed), which a report must not show as valid or as unknown.
type RunVerdict string

const (
	Valid     RunVerdict = "valid"
	Invalid   RunVerdict = "invalid"
	Unknown   RunVerdict = "unknown"
	Unchecked RunVerdict = "unchecked"
)

// UnmarshalJSON reads matrix.json's spelling (the four names) and
// results.json's (true, false, "unknown").
func (v *RunVerdict) UnmarshalJSON(b []byte) error {
	switch strings.TrimSpace(string(b)) {
	case "true", `"valid"`:
		*v = Valid
	case "false", `"invalid"`:
		*v = Invalid
	case `"unknown"`:
		*v = Unknown
	case `"unchecked"`:
		*v = Unchecked
	default:
		return fmt.Errorf("verdict %s: want true, false, \"unknown\" or a verdict name", b)
	}
	return nil
}

func verdictOf(v checker.Verdict) RunVerdict {
	switch v {
	case checker.Valid:
		return Valid
	case checker.Invalid:
		return Invalid
	}
	return Unknown
}

// interval is a span of run time in nanoseconds (the history's clock).
type interval struct {
	Start int64
	End   int64
	Cause string
}

func (i interval) seconds() float64 { return float64(i.End-i.Start) / 1e9 }

// explanation is one human sentence of the checker and the anomaly kind
// it explains.
type explanation struct {
	Kind string
	Text string
	// LogsSay is the broker-log marker that supports it (logsSay), if any.
	LogsSay *markerRow
	src     checker.Explanation
}

// anomalyLoc is where one lost send or reused offset sits.
type anomalyLoc struct {
	Topic     string
	Partition int32
	Offset    int64
	Value     string // of a lost send; empty for a reused offset
}

// linRow is porcupine's verdict on one topic-partition.
type linRow struct {
	TP, Result, Visualization string
	Ops, Windows, Illegal     int
	// Why is why an illegal partition has no linearization (its offsets,
	// the first real-time violation: LinPartition.Why); "" otherwise.
	Why string
}

// results is the part of checker's results.json that the report shows,
// converted once from checker.Result so that the rest of the package does
// not depend on the checker's Go types.
type results struct {
	Valid        RunVerdict
	Reasons      []string
	Counts       map[string]int
	Lost, Reused []anomalyLoc
	Errors       map[string]int        // completions by error code, all ops
	Unavailable  map[string][]interval // by "topic-P"
	Explanations []explanation
	LinResult    string // porcupine's overall result, "" if not run
	Lin          []linRow
	Idempotent   bool // the producer's idempotence the checker assumed
	// Anoms are the checker's entries as results.json holds them: the
	// share and metadata sections explain theirs (shareexplain.go,
	// quorum.go) without judging anything again.
	Anoms checker.Anomalies
	Terms []metadata.Term // the quorum's leader epochs (information)
	// counted says, from the checker's result, whether a kind counts
	// against validity: the report never restates the rule.
	against func(kind string) bool
}

// counted reports whether kind counts against validity, as the checker's
// result says (checker.Result.Counted).
func (r *results) counted(kind string) bool {
	if r.against == nil {
		return (&checker.Result{Idempotent: r.Idempotent}).Counted(kind)
	}
	return r.against(kind)
}

// readResults reads a results.json written by checker.WriteResults.
func readResults(path string) (*results, error) {
	b, err := histories.ReadRegular(path)
	if err != nil {
		return nil, err
	}
	var cr checker.Result
	if err := json.Unmarshal(b, &cr); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return fromChecker(&cr), nil
}

func fromChecker(cr *checker.Result) *results {
	r := &results{Valid: verdictOf(cr.Valid), Reasons: cr.Reasons, Errors: cr.Stats.Errors, Idempotent: cr.Idempotent,
		Counts: anomalyCounts(&cr.Anomalies), Unavailable: map[string][]interval{}, against: cr.Counted,
		Anoms: cr.Anomalies, Terms: cr.QuorumTerms}
	for k, n := range cr.Counts { // the checker's counts win over list lengths
		r.Counts[k] = n
	}
	for _, e := range cr.Anomalies.LostWrite {
		r.Lost = append(r.Lost, anomalyLoc{e.Topic, e.Partition, e.Offset, e.Value})
	}
	for _, e := range cr.Anomalies.OffsetReuse {
		r.Reused = append(r.Reused, anomalyLoc{Topic: e.Topic, Partition: e.Partition, Offset: e.Offset})
	}
	for name, ps := range cr.Stats.Partitions {
		if ps == nil {
			continue
		}
		ivs := []interval{} // present and empty: the checker saw no outage
		for _, iv := range ps.Unavailable {
			ivs = append(ivs, interval{Start: nanos(iv.FromS), End: nanos(iv.ToS), Cause: intervalCause(iv)})
		}
		r.Unavailable[name] = ivs
	}
	for _, e := range cr.Explanations {
		r.Explanations = append(r.Explanations, explanation{Kind: e.Kind, Text: e.Text, src: e})
	}
	if l := cr.Linearizable; l != nil {
		r.LinResult = l.Result
		names := slices.Sorted(maps.Keys(l.Partitions))
		for _, n := range names {
			p := l.Partitions[n]
			r.Lin = append(r.Lin, linRow{TP: n, Result: p.Result, Visualization: p.Visualization,
				Ops: p.Ops, Windows: p.Windows, Illegal: len(p.Illegal), Why: p.Why()})
		}
	}
	return r
}

// anomalyCounts counts the entries of each kind, for a results.json that
// lacks "counts".
func anomalyCounts(a *checker.Anomalies) map[string]int {
	m := map[string]int{}
	for k, n := range map[string]int{
		checker.LostWrite: len(a.LostWrite), checker.OffsetReuse: len(a.OffsetReuse),
		checker.Duplicate: len(a.Duplicate), checker.AbortedRead: len(a.AbortedRead),
		checker.Unexpected: len(a.Unexpected), checker.NonmonotonicSend: len(a.NonmonotonicSend),
		checker.PollSkip: len(a.PollSkip), checker.NonmonotonicPoll: len(a.NonmonotonicPoll),
		checker.Unseen: len(a.Unseen), checker.Nonlinearizable: len(a.Nonlinearizable),
		checker.TxnLostWrite: len(a.TxnLostWrite), checker.TxnAbortedRead: len(a.TxnAbortedRead),
		checker.TxnUncommittedRead: len(a.TxnUncommittedRead), checker.TxnDuplicate: len(a.TxnDuplicate),
		checker.TxnTorn: len(a.TxnTorn), checker.G0: len(a.G0), checker.G1c: len(a.G1c),
	} {
		if n > 0 {
			m[k] = n
		}
	}
	return m
}

func intervalCause(iv checker.Interval) string {
	c := strings.ReplaceAll(iv.Cause, "-", " ")
	if len(iv.Errors) > 0 {
		c += " (" + countsText(iv.Errors) + ")"
	}
	if iv.Open {
		c += ", until the end of the history"
	}
	return c
}

func nanos(s float64) int64 { return int64(s*1e9 + 0.5) }

// count is the number of anomalies of kind.
func (r *results) count(kind string) int { return r.Counts[kind] }

// kinds lists every anomaly kind that occurred, in HISTORY.md's order and
// then any kind the checker added (nonlinearizable), alphabetically.
func (r *results) kinds() []string {
	var out, extra []string
	for _, k := range anomalyOrder {
		if r.count(k) > 0 {
			out = append(out, k)
		}
	}
	for k, n := range r.Counts {
		if n > 0 && !slices.Contains(anomalyOrder, k) {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	return append(out, extra...)
}

// anomalyOrder are HISTORY.md's anomaly names in its order.
var anomalyOrder = []string{
	checker.LostWrite, checker.OffsetReuse, checker.Duplicate, checker.AbortedRead, checker.Unexpected,
	checker.NonmonotonicSend, checker.PollSkip, checker.NonmonotonicPoll, checker.Unseen,
}

// override is one setting of a user's config that kchaos replaced.
type override struct {
	Key    string
	User   string // the user's value, if known
	Value  string // what kchaos used, if known
	Reason string
}

// readOverrides reads overrides.json: a list of keys, or of objects
// {key|name, user|from|original, value|to|kchaos, reason|why}; the lead's
// harness writes it and its shape is not fixed yet. A missing file is no
// overrides.
func readOverrides(path string) ([]override, error) {
	b, err := histories.ReadRegular(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var list []json.RawMessage
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	var out []override
	for _, r := range list {
		var s string
		if json.Unmarshal(r, &s) == nil {
			out = append(out, override{Key: s})
			continue
		}
		var o map[string]any
		if json.Unmarshal(r, &o) != nil {
			continue
		}
		str := func(keys ...string) string {
			for _, k := range keys {
				if v, ok := o[k]; ok && v != nil {
					return fmt.Sprint(v)
				}
			}
			return ""
		}
		out = append(out, override{
			Key:    str("key", "name"),
			User:   str("user", "from", "original"),
			Value:  str("value", "to", "kchaos"),
			Reason: str("reason", "why"),
		})
	}
	return out, nil
}
