package harness

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/report"
)

// The exit code of a batch is the engine's rule, not the page's: report
// says what a status is (a page's Pass, Fail and Skip sort them, for
// junit.xml too) and renders rows; the engine, which ran the cells and
// knows whether it was interrupted or told to accept nothing judged,
// decides what the batch ends with. One rule for matrix, suite, audit
// and a merge of suite shards.
//
// Rows are the engine's in the same way: it makes them (RunBatch, each
// Plan's Judge) and decides from them. Their type stays report.Row
// because the pages render it and report must import nothing that runs a
// cluster (harness does); report only renders the rows it is given.

// exitRule is what a kind of batch asks of the exit rule beyond its
// page's sorting of statuses.
type exitRule struct {
	// refused are the Skip statuses that --allow-empty does not accept as
	// a pass on nothing: a cell refused for what kchaos lacks (a suite's
	// "needs") is not one Kafka ruled out, and a batch of only such cells
	// proved nothing.
	refused []string
	// interruptedUnknown makes an interrupted batch exit 2 whatever its
	// rows (a suite: a gate must not pass or fail on part of its cells);
	// otherwise an interruption only turns 0 into 2.
	interruptedUnknown bool
}

// exitRules are the kinds of batch whose rule asks more than the
// sorting, by their page's File (a suite's, and a merge of its shards,
// which rebuilds the suite's page): the engine's policy, kept beside the
// rule rather than in the page that renders the rows.
var exitRules = map[string]exitRule{
	report.SuitePage.File: {refused: []string{report.CellNeeds}, interruptedUnknown: true},
}

// ExitCode is the batch's exit code over rows sorted by p: 1 when any
// row has a Fail status, else 2 when any has a status neither Pass nor
// Skip, else 0; an interruption makes 0 into 2 (or everything, in a
// suite: exitRule.interruptedUnknown). A batch in which nothing was
// judged (every row skipped, or none) is 2, a gate is not green on
// nothing, unless
// allowEmpty (--allow-empty) accepts a batch whose rows were all skipped
// (not applicable) as one of passes; not one with a row refused for what
// kchaos lacks (exitRule.refused: a suite's "needs" cells), which stays 2.
func ExitCode(p *report.Page, rows []report.Row, interrupted, allowEmpty bool) int {
	code := 0
	for _, r := range rows {
		switch {
		case slices.Contains(p.Fail, r.Status):
			code = 1
		case code == 0 && !slices.Contains(p.Pass, r.Status) && !slices.Contains(p.Skip, r.Status):
			code = 2
		}
	}
	rule := exitRules[p.File]
	refused := slices.ContainsFunc(rows, func(r report.Row) bool { return slices.Contains(rule.refused, r.Status) })
	if code == 0 && (!allowEmpty || refused) && judged(p, rows) == 0 {
		code = 2
	}
	if interrupted && (code == 0 || rule.interruptedUnknown) {
		code = 2
	}
	return code
}

// judged counts the rows the batch judged: those of a Pass or Fail
// status of p (not skipped, not unjudged, not failed to run).
func judged(p *report.Page, rows []report.Row) int {
	n := 0
	for _, r := range rows {
		if slices.Contains(p.Pass, r.Status) || slices.Contains(p.Fail, r.Status) {
			n++
		}
	}
	return n
}

// NothingJudged says, when no row was judged, why ("nothing was judged:
// ..."), naming how many rows of which status; nil when one was. Every
// batch command ends with it (exit 2) rather than pass on nothing.
func NothingJudged(p *report.Page, rows []report.Row) error {
	if judged(p, rows) > 0 {
		return nil
	}
	noun := p.RowsKey
	if noun == "" {
		noun = "rows"
	}
	if len(rows) == 0 {
		return fmt.Errorf("nothing was judged: no %s", noun)
	}
	n := report.StatusCounts(rows)
	var parts []string
	for _, st := range slices.Sorted(maps.Keys(n)) {
		parts = append(parts, fmt.Sprintf("%d %s", n[st], st))
	}
	msg := fmt.Sprintf("nothing was judged: %d %s, %s", len(rows), noun, strings.Join(parts, ", "))
	if r := rows[0]; r.Reason != "" {
		msg += fmt.Sprintf(" (%s: %s)", r.ID, r.Reason)
	}
	return errors.New(msg)
}
