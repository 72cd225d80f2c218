package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"strings"
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
)

// NotRun starts the reason of a suite cell or an audit row whose story
// never ran (a cluster that could not start, a missing image): such a
// row carries no loss or offline figure, only this and why.
const NotRun = "not run: "

// Cell is one scenario × settings × Kafka version of a suite: what was
// expected, what the run measured, and whether the two agree.
type Cell struct {
	// ID is "scenario/settings/version", e.g. "s9/unclean=true/4.1.2";
	// junit.xml names its testcase so, and --baseline matches cells by it.
	ID       string            `json:"id"`
	Scenario string            `json:"scenario"`
	Settings map[string]string `json:"settings,omitempty"` // the varied ones
	Kafka    string            `json:"kafka"`
	Status   string            `json:"status"`
	// Checks is each applicable expectation with what the run gave:
	// "lost-write > 0: got 2518".
	Checks []string `json:"checks,omitempty"`
	// Outcome is the run's measured verdict and anomaly counts, in one line.
	Outcome string `json:"outcome,omitempty"`
	// Reason says why a cell is unjudged or not applicable.
	Reason string `json:"reason,omitempty"`
	RunDir string `json:"run_dir,omitempty"`
	// Seconds is the cell's wall time; StorySeconds the part its history
	// spans (workload, faults, final read). The rest is kchaos's overhead:
	// cluster start, check, report, teardown.
	Seconds      float64 `json:"seconds,omitempty"`
	StorySeconds float64 `json:"story_seconds,omitempty"`
}

// Change is a cell whose status differs from the baseline suite's.
type Change struct {
	ID     string `json:"id"`
	Before string `json:"before"` // "" when the baseline had no such cell
	After  string `json:"after"`
}

// SuiteFile is suite.json.
type SuiteFile struct {
	Name     string   `json:"name"`
	Cells    []Cell   `json:"cells"`
	Baseline string   `json:"baseline,omitempty"`
	Changes  []Change `json:"changes,omitempty"`
}

// ReadSuite reads an earlier suite folder's suite.json (for --baseline).
func ReadSuite(dir string) (SuiteFile, error) {
	var f SuiteFile
	b, err := os.ReadFile(filepath.Join(dir, "suite.json"))
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
func Compare(base, cur []Cell) []Change {
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

// WriteSuite writes suite.json, suite.md, suite.html and junit.xml into
// dir. Run folders are linked relative to dir. It is called after every
// cell, so an interrupted suite leaves the cells it finished.
func WriteSuite(dir string, f SuiteFile) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	rel := f
	rel.Cells = make([]Cell, len(f.Cells))
	for i, c := range f.Cells {
		rel.Cells[i] = c
		if p, err := filepath.Rel(dir, c.RunDir); err == nil && c.RunDir != "" {
			rel.Cells[i].RunDir = filepath.ToSlash(p)
		}
	}
	js, err := json.MarshalIndent(rel, "", "  ")
	if err != nil {
		return err
	}
	var html bytes.Buffer
	if err := suiteTmpl.Execute(&html, rel); err != nil {
		return err
	}
	junit, err := suiteJUnit(rel)
	if err != nil {
		return err
	}
	for name, b := range map[string][]byte{
		"suite.json": append(js, '\n'),
		"suite.md":   suiteMarkdown(rel),
		"suite.html": html.Bytes(),
		"junit.xml":  junit,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// SuiteCounts counts the cells by status.
func SuiteCounts(cells []Cell) map[string]int {
	n := map[string]int{}
	for _, c := range cells {
		n[c.Status]++
	}
	return n
}

func suiteSummary(cells []Cell) string {
	n := SuiteCounts(cells)
	var parts []string
	for _, st := range []string{CellMatch, CellDiffer, CellUnjudged, CellNoExpectation, CellNotApplicable} {
		if n[st] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[st], st))
		}
	}
	return fmt.Sprintf("%d cells: %s", len(cells), strings.Join(parts, ", "))
}

func suiteMarkdown(f SuiteFile) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# kchaos suite %s\n\n%s.\n\n", f.Name, suiteSummary(f.Cells))
	b.WriteString("| cell | expectation | outcome | status | seconds (story + overhead) | report |\n|---|---|---|---|---|---|\n")
	for _, c := range f.Cells {
		exp := strings.Join(c.Checks, "; ")
		if c.Reason != "" {
			exp = strings.TrimPrefix(exp+"; "+c.Reason, "; ")
		}
		link := ""
		if c.RunDir != "" {
			link = "[report](" + c.RunDir + "/report.html)"
		}
		secs := ""
		if c.Seconds > 0 {
			secs = fmt.Sprintf("%.0f (%.0f + %.0f)", c.Seconds, c.StorySeconds, c.Seconds-c.StorySeconds)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", mdCell(c.ID), mdCell(exp), mdCell(c.Outcome), c.Status, secs, link)
	}
	if f.Baseline != "" {
		fmt.Fprintf(&b, "\n## Changes against %s\n\n", mdText(f.Baseline))
		if len(f.Changes) == 0 {
			b.WriteString("None: every cell has the baseline's status.\n")
		}
		for _, ch := range f.Changes {
			fmt.Fprintf(&b, "- %s: %s → %s\n", mdText(ch.ID), orNone(ch.Before), orNone(ch.After))
		}
	}
	return b.Bytes()
}

func orNone(s string) string {
	if s == "" {
		return "(absent)"
	}
	return s
}

// suiteJUnit is one testsuite with one testcase per cell: failure when the
// outcome differs from the expectation, error when it could not be judged,
// skipped when Kafka rules the combination out.
func suiteJUnit(f SuiteFile) ([]byte, error) {
	type skipped struct {
		Message string `xml:"message,attr"`
	}
	type tc struct {
		Name      string        `xml:"name,attr"`
		ClassName string        `xml:"classname,attr"`
		Time      string        `xml:"time,attr,omitempty"`
		Failure   *junitProblem `xml:"failure,omitempty"`
		Error     *junitProblem `xml:"error,omitempty"`
		Skipped   *skipped      `xml:"skipped,omitempty"`
		SystemOut string        `xml:"system-out,omitempty"`
	}
	type ts struct {
		XMLName  xml.Name `xml:"testsuite"`
		Name     string   `xml:"name,attr"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Errors   int      `xml:"errors,attr"`
		Skipped  int      `xml:"skipped,attr"`
		Cases    []tc     `xml:"testcase"`
	}
	s := ts{Name: "kchaos.suite." + f.Name, Tests: len(f.Cells)}
	for _, c := range f.Cells {
		k := tc{Name: c.ID, ClassName: "kchaos.suite." + f.Name, SystemOut: c.Outcome}
		if c.Seconds > 0 {
			k.Time = fmt.Sprintf("%.1f", c.Seconds)
		}
		text := strings.Join(c.Checks, "\n")
		switch c.Status {
		case CellDiffer:
			s.Failures++
			k.Failure = &junitProblem{Message: "outcome differs from the expectation", Type: CellDiffer, Text: text}
		case CellUnjudged, CellNoExpectation:
			s.Errors++
			k.Error = &junitProblem{Message: c.Status + ": " + c.Reason, Type: c.Status, Text: text}
		case CellNotApplicable:
			s.Skipped++
			k.Skipped = &skipped{Message: c.Reason}
		}
		s.Cases = append(s.Cases, k)
	}
	b, err := xml.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), append(b, '\n')...), nil
}

var suiteTmpl = template.Must(template.New("suite").Funcs(template.FuncMap{
	"summary": suiteSummary,
	"none":    orNone,
}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>kchaos suite {{.Name}}</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#222;background:#fff}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f4f4f4}ul{margin:0;padding-left:16px}
.match{color:#2e8b57;font-weight:bold}.differ{color:#c0392b;font-weight:bold}
.unjudged,.no-expectation{color:#d68910;font-weight:bold}.not-applicable{color:#7f8c8d}
.reason{color:#555;font-size:12px}
</style></head><body>
<h1>kchaos suite {{.Name}}</h1>
<p>{{summary .Cells}}. A cell is one scenario under one set of settings on one Kafka version, judged against the scenario's checkable expectation.</p>
<table><tr><th>cell</th><th>expectation</th><th>outcome</th><th>status</th><th>report</th></tr>
{{range .Cells}}<tr><td>{{.ID}}</td>
<td><ul>{{range .Checks}}<li>{{.}}</li>{{end}}</ul>{{if .Reason}}<div class="reason">{{.Reason}}</div>{{end}}</td>
<td>{{.Outcome}}</td><td class="{{.Status}}">{{.Status}}</td>
<td>{{if .RunDir}}<a href="{{.RunDir}}/report.html">report</a>{{end}}</td></tr>
{{end}}</table>
{{if .Baseline}}<h2>Changes against {{.Baseline}}</h2>
{{if .Changes}}<ul>{{range .Changes}}<li>{{.ID}}: {{none .Before}} → {{none .After}}</li>{{end}}</ul>{{else}}<p>None: every cell has the baseline's status.</p>{{end}}{{end}}
</body></html>
`))
