package report

import (
	"bytes"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Audit is one page: the failure stories run under a user's settings, what
// each lost and how long it was offline, and the configuration facts that
// explain it.
type Audit struct {
	Kafka string
	Rows  []AuditRow
	Facts []AuditFact
	// Overridden lists the user's keys kchaos had to replace to run at all
	// (listeners, node ids, the quorum, failure-detection timeouts).
	Overridden                []string
	BrokerConfig, TopicConfig map[string]string
}

// AuditRow is one story's outcome.
type AuditRow struct {
	Story, Description string
	Verdict            string // the checker's verdict; "" when the run failed
	Acked, Lost        int
	Reused             int
	OfflineSeconds     float64
	RunDir             string
	Error              string
	// NotRun is why the story never ran ("" when it did): the row then
	// has no figures, and the page lists it as not run.
	NotRun string
	// Account is what the history shows the story did, in words
	// (StoryWords): which branch it took under these settings, e.g.
	// "when broker 0 was killed, ELR elected broker 1 within a second;
	// broker 0 never led again; nothing lost".
	Account string
}

// A row's status, in a reviewer's terms.
const (
	StatusPass      = "pass"       // ran, checked valid, nothing lost or reused
	StatusFail      = "FAIL"       // acked records lost or offsets reused
	StatusNotJudged = "not judged" // ran, but its run or its check failed
	StatusNotRun    = "not run"    // never ran
)

// Status is the row's outcome: the rule the audit's exit code follows
// too (harness.AuditExitCode), so that page and exit code agree.
func (r AuditRow) Status() string {
	switch {
	case r.NotRun != "":
		return StatusNotRun
	case r.Lost > 0 || r.Reused > 0:
		return StatusFail
	case r.Error != "" || r.Verdict != string(Valid):
		return StatusNotJudged
	}
	return StatusPass
}

// Summary is the page's verdict in one line, from the rows' statuses.
func (a Audit) Summary() string {
	by := map[string][]string{}
	for _, r := range a.Rows {
		by[r.Status()] = append(by[r.Status()], r.Story)
	}
	switch {
	case len(a.Rows) == 0:
		return "No story has run yet."
	case len(by[StatusFail]) > 0:
		return StatusFail + ": " + strings.Join(by[StatusFail], ", ") + " lost acked records or reused offsets."
	case len(by[StatusPass]) < len(a.Rows):
		return "Not every story could be judged (" + strings.Join(append(by[StatusNotJudged], by[StatusNotRun]...), ", ") +
			"); the others lost nothing."
	}
	return "Pass: every story ran, and none lost an acked record or reused an offset."
}

// outcome is the row's outcome cell: its status, what happened and, for a
// run that did not play out, why.
func (r AuditRow) outcome() string {
	w := r.Status()
	if r.Account != "" {
		w += ": " + r.Account
	}
	if r.Verdict != "" && r.Verdict != string(Valid) {
		w += " (checker: " + r.Verdict + ")"
	}
	if r.Error != "" {
		w += " (" + r.Error + ")"
	}
	return w
}

// NotRunStories are the stories of rows whose story never ran.
func (a Audit) NotRunStories() []string {
	var out []string
	for _, r := range a.Rows {
		if r.NotRun != "" {
			out = append(out, r.Story)
		}
	}
	return out
}

// AuditFact is a setting as the stories ran and what it means for them.
type AuditFact struct {
	Setting, Value, Meaning string
	Stories                 []string
}

// WriteAudit writes audit.md and audit.html into dir.
func WriteAudit(dir string, a Audit) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	rel := a
	rel.Rows = slices.Clone(a.Rows)
	for i, r := range rel.Rows {
		if p, err := filepath.Rel(dir, r.RunDir); err == nil && r.RunDir != "" {
			rel.Rows[i].RunDir = filepath.ToSlash(p)
		}
	}
	var html bytes.Buffer
	if err := auditTmpl.Execute(&html, rel); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "audit.html"), html.Bytes(), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "audit.md"), auditMarkdown(rel), 0o644)
}

func auditMarkdown(a Audit) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# kchaos audit (Kafka %s)\n\nThe failure stories run under your settings. **%s**\n\n", mdText(a.Kafka), a.Summary())
	b.WriteString("| story | what happens | outcome: what the history shows | acked | acked lost | offsets reused | seconds offline | report |\n|---|---|---|---:|---:|---:|---:|---|\n")
	for _, r := range a.Rows {
		link := ""
		if r.RunDir != "" {
			link = "[report](" + r.RunDir + "/report.html)"
		}
		if r.NotRun != "" {
			// No figure for a story that never ran: a 0 would read as
			// "nothing lost".
			fmt.Fprintf(&b, "| %s | %s | %s | — | — | — | — | %s |\n", r.Story, mdCell(r.Description), mdCell(NotRun+r.NotRun), link)
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %d | %d | %.1f | %s |\n", r.Story, mdCell(r.Description), mdCell(r.outcome()),
			r.Acked, r.Lost, r.Reused, r.OfflineSeconds, link)
	}
	if n := a.NotRunStories(); len(n) > 0 {
		fmt.Fprintf(&b, "\n**Incomplete: %s did not run**, so this page says nothing about what they would lose.\n", strings.Join(n, ", "))
	}
	b.WriteString("\n## What explains it\n\n")
	for _, f := range a.Facts {
		fmt.Fprintf(&b, "- `%s` = %s: %s (%s)\n", f.Setting, mdText(f.Value), mdText(f.Meaning), strings.Join(f.Stories, ", "))
	}
	if len(a.Overridden) > 0 {
		fmt.Fprintf(&b, "\n## Settings kchaos overrode\n\n%s: kchaos owns these to run the cluster and show faults within seconds.\n",
			"`"+strings.Join(a.Overridden, "`, `")+"`")
	}
	return b.Bytes()
}

var auditTmpl = template.Must(template.New("audit").Funcs(template.FuncMap{
	"join": strings.Join,
	"num":  func(f float64) string { return fmt.Sprintf("%.1f", f) },
}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>kchaos audit</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#222;background:#fff}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f4f4f4}td.n{text-align:right;font-variant-numeric:tabular-nums}
.lost{color:#c0392b;font-weight:bold}.ok{color:#1e7e34}.err{color:#c0392b;font-size:12px}code{background:#f4f4f4;padding:0 3px}
</style></head><body>
<h1>kchaos audit (Kafka {{.Kafka}})</h1>
<p>The failure stories run under your settings: what each lost and how long the partition was offline. <b>{{.Summary}}</b></p>
<table><tr><th>story</th><th>what happens</th><th>outcome: what the history shows</th><th>acked</th><th>acked lost</th><th>offsets reused</th><th>seconds offline</th><th>report</th></tr>
{{range .Rows}}<tr><td>{{.Story}}</td><td>{{.Description}}</td>{{if .NotRun}}<td class="err">not run: {{.NotRun}}</td>
<td class="n">—</td><td class="n">—</td><td class="n">—</td><td class="n">—</td>{{else}}<td><b class="{{if eq .Status "pass"}}ok{{else}}lost{{end}}">{{.Status}}</b>{{with .Account}}: {{.}}{{end}}{{if and .Verdict (ne .Verdict "valid")}} (checker: {{.Verdict}}){{end}}{{if .Error}}<div class="err">{{.Error}}</div>{{end}}</td>
<td class="n">{{.Acked}}</td><td class="n{{if .Lost}} lost{{end}}">{{.Lost}}</td><td class="n">{{.Reused}}</td><td class="n">{{num .OfflineSeconds}}</td>{{end}}
<td>{{if .RunDir}}<a href="{{.RunDir}}/report.html">report</a>{{end}}</td></tr>
{{end}}</table>
{{with .NotRunStories}}<p class="err"><b>Incomplete: {{join . ", "}} did not run</b>, so this page says nothing about what they would lose.</p>{{end}}
<h2>What explains it</h2><ul>
{{range .Facts}}<li><code>{{.Setting}}</code> = {{.Value}}: {{.Meaning}} ({{join .Stories ", "}})</li>
{{end}}</ul>
{{if .Overridden}}<h2>Settings kchaos overrode</h2><p>{{range $i, $k := .Overridden}}{{if $i}}, {{end}}<code>{{$k}}</code>{{end}}: kchaos owns these to run the cluster and show faults within seconds.</p>{{end}}
</body></html>
`))
