package report

import (
	"encoding/json"
	"fmt"
	"html/template"
	"path/filepath"
	"strings"

	"github.com/kchaos/kchaos/histories"
)

// Suite cell statuses, as the harness's expectation judge names them
// (harness/expect.Status); report keeps them as strings so that it never
// imports the harness.
const (
	CellMatch         = "match"
	CellDiffer        = "differ"
	CellUnjudged      = "unjudged"
	CellNotApplicable = "not-applicable"
	CellNoExpectation = "no-expectation"
	// CellNeeds is a cell of a finding kchaos cannot drive yet (the
	// scenario's finding.needs): refused before any cluster starts, its
	// reason "needs ...". A skip (junit skipped, with the reason), so it
	// is neither green nor red and counts as not judged.
	CellNeeds = "needs"
)

// NotRun starts the reason of a row whose story never ran (a cluster that
// could not start, a missing image): such a row carries no loss or
// offline figure, only this and why.
const NotRun = "not run: "

// SuitePage judges against expectations: a cell is one scenario under one
// set of settings on one Kafka version, its Status whether the run agreed
// with the scenario's checkable expectation. Not-applicable cells (Kafka
// rules the combination out) count for nothing; a suite interrupted is
// unknown whatever its cells, as a gate must not pass or fail on part of
// them.
var SuitePage = &Page{
	File: "suite",
	Columns: []Column{
		// A cell that guards against Kafka bugs names them (and its
		// documents) under its id.
		{Head: "cell", Text: func(r Row) string {
			if refs := refsText(r.Jira, r.Docs); refs != "" {
				return r.ID + " (" + refs + ")"
			}
			return r.ID
		}, HTML: func(r Row, _ []Row) template.HTML {
			h := template.HTMLEscapeString(r.ID)
			if len(r.Jira)+len(r.Docs) > 0 {
				h += `<div class="refs">` + string(refsHTML(r.Jira, r.Docs)) + "</div>"
			}
			return template.HTML(h)
		}},
		{Head: "expectation", Text: func(r Row) string {
			exp := strings.Join(r.Checks, "; ")
			if r.Reason != "" {
				exp = strings.TrimPrefix(exp+"; "+r.Reason, "; ")
			}
			return exp
		}, HTML: func(r Row, _ []Row) template.HTML {
			h := "<ul>"
			for _, c := range r.Checks {
				h += "<li>" + template.HTMLEscapeString(c) + "</li>"
			}
			h += "</ul>"
			if r.Reason != "" {
				h += `<div class="reason">` + template.HTMLEscapeString(r.Reason) + "</div>"
			}
			return template.HTML(h)
		}},
		{Head: "outcome", Text: func(r Row) string { return r.Summary }},
		{Head: "status", Text: func(r Row) string { return r.Status }, Class: func(r Row) string { return r.Status }},
		{Head: "seconds (story + overhead)", Text: func(r Row) string {
			if r.Seconds <= 0 {
				return ""
			}
			return fmt.Sprintf("%.0f (%.0f + %.0f)", r.Seconds, r.StorySeconds, r.Seconds-r.StorySeconds)
		}},
		{Head: "report", Text: reportText, HTML: func(r Row, _ []Row) template.HTML { return reportLink(r) }},
	},
	RowsKey: "cells",
	JSON: []Field{{Key: "id"}, {Key: "scenario"}, {Key: "settings", Omit: true}, {Key: "kafka"}, {Key: "status"},
		{Key: "checks", Omit: true}, {Key: "outcome", Omit: true}, {Key: "reason", Omit: true},
		{Key: "run_dir", Omit: true}, {Key: "seconds", Omit: true}, {Key: "story_seconds", Omit: true},
		{Key: "jira", Omit: true}, {Key: "docs", Omit: true}, {Key: "finding", Omit: true},
		// The verdict and anomaly counts, which the Findings section
		// reads: a merge of shards (kchaos merge) rebuilds the page from
		// suite.json alone.
		{Key: "verdict", Omit: true}, {Key: "acked_lost", Omit: true}, {Key: "offsets_reused", Omit: true},
		{Key: "other_anomalies", Omit: true}},
	Pass: []string{CellMatch}, Fail: []string{CellDiffer}, Skip: []string{CellNotApplicable, CellNeeds},
	FailMessage: "outcome differs from the expectation",
	JUnit:       true,
}

// Change is a cell whose status differs from the baseline suite's.
type Change struct {
	ID     string `json:"id"`
	Before string `json:"before"` // "" when the baseline had no such cell
	After  string `json:"after"`
}

// SuiteFile is what suite.json holds.
type SuiteFile struct {
	Name     string   `json:"name"`
	Cells    []Row    `json:"cells"`
	Baseline string   `json:"baseline,omitempty"`
	Changes  []Change `json:"changes,omitempty"`
}

// SuiteBatch is a suite's page family: its cells, and with a baseline the
// cells whose status changed.
func SuiteBatch(f SuiteFile) Batch {
	b := Batch{Page: SuitePage, Name: f.Name, Title: "kchaos suite " + f.Name, Rows: f.Cells,
		Intro:    suiteSummary(f.Cells) + ". A cell is one scenario under one set of settings on one Kafka version, judged against the scenario's checkable expectation.",
		JSONHead: []Value{{Key: "name", Value: f.Name}},
		JSONTail: []Value{{Key: "baseline", Value: f.Baseline, Omit: true}, {Key: "changes", Value: f.Changes, Omit: true}}}
	if s := findingsSection(f.Cells); s != nil {
		b.Sections = append(b.Sections, *s)
	}
	if f.Baseline != "" {
		s := Section{Title: "Changes against " + f.Baseline}
		if len(f.Changes) == 0 {
			s.Para = []Span{plain("None: every cell has the baseline's status.")}
		}
		for _, ch := range f.Changes {
			s.Items = append(s.Items, []Span{plain("%s: %s → %s", ch.ID, orNone(ch.Before), orNone(ch.After))})
		}
		b.Sections = append(b.Sections, s)
	}
	return b
}

// ReadSuite reads an earlier suite folder's suite.json (for --baseline).
func ReadSuite(dir string) (SuiteFile, error) {
	var f SuiteFile
	b, err := histories.ReadRegular(filepath.Join(dir, "suite.json"))
	if err != nil {
		return f, fmt.Errorf("baseline: %w", err)
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return f, fmt.Errorf("baseline %s: suite.json: %v", dir, err)
	}
	return f, nil
}

// Compare lists the cells of cur whose status differs from base's, and the
// cells of base that cur lacks, in cur's order then base's.
func Compare(base, cur []Row) []Change {
	before := map[string]string{}
	for _, c := range base {
		before[c.ID] = c.Status
	}
	var out []Change
	seen := map[string]bool{}
	for _, c := range cur {
		seen[c.ID] = true
		if b, ok := before[c.ID]; !ok || b != c.Status {
			out = append(out, Change{ID: c.ID, Before: b, After: c.Status})
		}
	}
	for _, c := range base {
		if !seen[c.ID] {
			out = append(out, Change{ID: c.ID, Before: c.Status, After: ""})
		}
	}
	return out
}

// StatusCounts counts the rows by status.
func StatusCounts(rows []Row) map[string]int {
	n := map[string]int{}
	for _, c := range rows {
		n[c.Status]++
	}
	return n
}

func suiteSummary(cells []Row) string {
	n := StatusCounts(cells)
	var parts []string
	for _, st := range []string{CellMatch, CellDiffer, CellUnjudged, CellNoExpectation, CellNotApplicable, CellNeeds} {
		if n[st] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[st], st))
		}
	}
	return fmt.Sprintf("%d cells: %s", len(cells), strings.Join(parts, ", "))
}

func orNone(s string) string {
	if s == "" {
		return "(absent)"
	}
	return s
}
