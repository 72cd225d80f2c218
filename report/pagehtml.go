package report

import (
	"encoding/xml"
	"fmt"
	"html/template"
	"slices"
	"sort"
	"strings"
)

// settingOrder puts the usual varied settings in the order the issue
// spells the matrix command; others follow alphabetically, run last.
var settingOrder = []string{"kafka", "kafka_version", "unclean", "elr", "acks", "min.insync", "idempotent"}

// settingKeys are the varied settings of rows, in settingOrder.
func settingKeys(rows []Row) []string {
	seen := map[string]bool{}
	for _, r := range rows {
		for k := range r.Settings {
			seen[k] = true
		}
	}
	var out, rest []string
	for _, k := range settingOrder {
		if seen[k] {
			out = append(out, k)
			delete(seen, k)
		}
	}
	hasRun := seen["run"]
	delete(seen, "run")
	for k := range seen {
		rest = append(rest, k)
	}
	sort.Strings(rest)
	out = append(out, rest...)
	if hasRun {
		out = append(out, "run")
	}
	return out
}

type pageCell struct {
	Class string
	Right bool
	HTML  template.HTML
}

type pageView struct {
	Title, Intro string
	Heads        []string
	Rows         [][]pageCell
	Sections     []htmlSection
}

type htmlSection struct {
	Title string
	Items []template.HTML
	Para  template.HTML
}

func (b Batch) view() pageView {
	v := pageView{Title: b.Title, Intro: b.Intro}
	cols := b.columns()
	for _, c := range cols {
		v.Heads = append(v.Heads, c.Head)
	}
	for _, r := range b.Rows {
		var cells []pageCell
		for _, c := range cols {
			pc := pageCell{Right: c.Right}
			if c.HTML != nil {
				pc.HTML = c.HTML(r, b.Rows)
			} else {
				pc.HTML = template.HTML(template.HTMLEscapeString(c.Text(r)))
			}
			if c.Class != nil {
				pc.Class = c.Class(r)
			}
			cells = append(cells, pc)
		}
		v.Rows = append(v.Rows, cells)
	}
	for _, s := range b.Sections {
		hs := htmlSection{Title: s.Title, Para: htmlSpans(s.Para)}
		for _, it := range s.Items {
			hs.Items = append(hs.Items, htmlSpans(it))
		}
		v.Sections = append(v.Sections, hs)
	}
	return v
}

func htmlSpans(spans []Span) template.HTML {
	var out strings.Builder
	for _, s := range spans {
		t := template.HTMLEscapeString(s.Text)
		switch {
		case s.Code:
			out.WriteString("<code>" + t + "</code>")
		case s.Strong:
			out.WriteString("<b>" + t + "</b>")
		default:
			out.WriteString(t)
		}
	}
	return template.HTML(out.String())
}

// reportTarget is where a row's report column points and what it says:
// the run's report, or, for a story that never ran (NotRun: no report
// was written), its run folder, which holds what the start left (the
// scenario, a refusing broker's log); "" without a run folder.
func reportTarget(r Row) (href, text string) {
	switch {
	case r.RunDir == "":
		return "", ""
	case r.NotRun:
		return r.RunDir, "run folder"
	}
	return r.RunDir + "/" + ReportHTML, "report"
}

// reportLink is the link to a row's run report ("" without a run).
func reportLink(r Row) template.HTML {
	href, text := reportTarget(r)
	if href == "" {
		return ""
	}
	return template.HTML(`<a href="` + template.HTMLEscapeString(href) + `">` + text + `</a>`)
}

// reportText is reportLink in markdown ("—" without a run).
func reportText(r Row) string {
	href, text := reportTarget(r)
	if href == "" {
		return "—"
	}
	return fmt.Sprintf("[%s](%s)", text, href)
}

var batchTmpl = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#222;background:#fff}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f4f4f4}td.n{text-align:right;font-variant-numeric:tabular-nums}ul{margin:0;padding-left:16px}
.valid,.match{color:#2e8b57;font-weight:bold}.invalid,.differ,.lost{color:#c0392b;font-weight:bold}
.unknown,.unchecked,.unjudged,.no-expectation{color:#d68910;font-weight:bold}.not-applicable,.needs{color:#7f8c8d}
.bar{display:inline-block;height:10px;vertical-align:middle;margin-right:6px}.bar.lost{background:#e31a1c}.bar.off{background:#7f8c8d}
.err{color:#c0392b;font-size:12px}.reason{color:#555;font-size:12px}code{background:#f4f4f4;padding:0 3px}
</style></head><body>
<h1>{{.Title}}</h1>
<p>{{.Intro}}</p>
<table><tr>{{range .Heads}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td{{if or .Class .Right}} class="{{.Class}}{{if .Right}}{{if .Class}} {{end}}n{{end}}"{{end}}>{{.HTML}}</td>{{end}}</tr>
{{end}}</table>
{{range .Sections}}{{if .Title}}<h2>{{.Title}}</h2>{{end}}
{{if .Items}}<ul>{{range .Items}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{if .Para}}<p>{{.Para}}</p>{{end}}
{{end}}</body></html>
`))

// junit is one testsuite with one testcase per row: failure for a Fail
// status, skipped for a Skip status, error for any status neither Pass
// nor Skip (the cell could not be judged).
func (b Batch) junit() ([]byte, error) {
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
		// A cell's Kafka bugs and documents (refs.go).
		Properties *junitProperties `xml:"properties,omitempty"`
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
	p := b.Page
	class := "kchaos." + p.File
	if b.Name != "" {
		class += "." + b.Name
	}
	s := ts{Name: class, Tests: len(b.Rows)}
	for _, r := range b.Rows {
		k := tc{Name: r.ID, ClassName: class, SystemOut: r.Summary, Properties: caseProperties(r.Jira, r.Docs, r.Finding)}
		if r.Seconds > 0 {
			k.Time = fmt.Sprintf("%.1f", r.Seconds)
		}
		text := strings.Join(r.Checks, "\n")
		switch {
		case slices.Contains(p.Fail, r.Status):
			s.Failures++
			k.Failure = &junitProblem{Message: p.FailMessage, Type: r.Status, Text: text}
		case slices.Contains(p.Skip, r.Status):
			s.Skipped++
			k.Skipped = &skipped{Message: r.Reason}
		case !slices.Contains(p.Pass, r.Status):
			s.Errors++
			k.Error = &junitProblem{Message: r.Status + ": " + r.Reason, Type: r.Status, Text: text}
		}
		s.Cases = append(s.Cases, k)
	}
	out, err := xml.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), append(out, '\n')...), nil
}
