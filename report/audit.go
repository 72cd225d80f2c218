package report

import (
	"fmt"
	"html/template"
	"strconv"
	"strings"
)

// Audit statuses: what a story's row means for the user's settings.
const (
	AuditLost    = "lost"         // acked records lost or offsets reused
	AuditNothing = "nothing-lost" // checked valid, nothing lost
	AuditNotRun  = "not-run"      // the story never ran
	AuditUnknown = "unknown"      // ran, but not to a valid check
)

// AuditPage explains for a reviewer: the failure stories run under a
// user's settings, what each lost and how long it was offline, and (in
// its sections) the configuration facts that explain it. A story that
// never ran shows no figure: a 0 would read as "nothing lost".
var AuditPage = &Page{
	File: "audit",
	Columns: []Column{
		{Head: "story", Text: func(r Row) string { return r.ID }},
		{Head: "what happens", Text: func(r Row) string { return r.Description }},
		{Head: "verdict", Text: auditVerdict, Class: func(r Row) string {
			if r.NotRun {
				return "err"
			}
			return string(r.Verdict)
		}, HTML: func(r Row, _ []Row) template.HTML {
			if r.NotRun || r.Reason == "" {
				return template.HTML(template.HTMLEscapeString(auditVerdict(r)))
			}
			return template.HTML(template.HTMLEscapeString(string(r.Verdict)) +
				`<div class="err">` + template.HTMLEscapeString(r.Reason) + `</div>`)
		}},
		{Head: "acked", Right: true, Text: auditFigure(func(r Row) string { return strconv.Itoa(r.Acked) })},
		{Head: "acked lost", Right: true, Text: auditFigure(func(r Row) string { return strconv.Itoa(r.Lost) }),
			Class: func(r Row) string {
				if r.Lost > 0 {
					return "lost"
				}
				return ""
			}},
		{Head: "offsets reused", Right: true, Text: auditFigure(func(r Row) string { return strconv.Itoa(r.Reused) })},
		{Head: "seconds offline", Right: true, Text: auditFigure(func(r Row) string { return fmt.Sprintf("%.1f", r.LongestOffline()) })},
		{Head: "report", Text: reportText, HTML: func(r Row, _ []Row) template.HTML { return reportLink(r) }},
	},
	RowsKey: "rows",
	JSON: []Field{{Key: "story", From: "id"}, {Key: "description"}, {Key: "status"}, {Key: "verdict"},
		{Key: "acked"}, {Key: "acked_lost"}, {Key: "offsets_reused"}, {Key: "offline_seconds"},
		{Key: "reason", Omit: true}, {Key: "not_run", Omit: true}, {Key: "run_dir", Omit: true}},
	Pass: []string{AuditNothing}, Fail: []string{AuditLost},
}

func auditVerdict(r Row) string {
	switch {
	case r.NotRun:
		return r.Reason
	case r.Reason != "":
		return strings.TrimSpace(string(r.Verdict) + " (" + r.Reason + ")")
	}
	return string(r.Verdict)
}

// auditFigure is "—" for a story that never ran.
func auditFigure(f func(Row) string) func(Row) string {
	return func(r Row) string {
		if r.NotRun {
			return "—"
		}
		return f(r)
	}
}

// AuditFact is a setting as the stories ran and what it means for them.
type AuditFact struct {
	Setting string   `json:"setting"`
	Value   string   `json:"value"`
	Meaning string   `json:"meaning"`
	Stories []string `json:"stories"`
}

// Audit is an audit page's content beside its rows.
type Audit struct {
	Kafka string
	Facts []AuditFact
	// Overridden lists the user's keys kchaos had to replace to run at all
	// (listeners, node ids, the quorum, failure-detection timeouts).
	Overridden                []string
	BrokerConfig, TopicConfig map[string]string
}

// AuditBatch is an audit's page family: the stories' rows, which stories
// it has nothing on, the facts that explain the rows and the keys kchaos
// overrode.
func AuditBatch(a Audit, rows []Row) Batch {
	b := Batch{Page: AuditPage, Title: "kchaos audit (Kafka " + a.Kafka + ")", Rows: rows,
		Intro:    "The failure stories run under your settings: what each lost and how long the partition was offline.",
		JSONHead: []Value{{Key: "kafka", Value: a.Kafka}},
		JSONTail: []Value{{Key: "facts", Value: a.Facts}, {Key: "overridden", Value: a.Overridden, Omit: true},
			{Key: "broker_config", Value: a.BrokerConfig, Omit: true}, {Key: "topic_config", Value: a.TopicConfig, Omit: true}}}
	var notRun []string
	for _, r := range rows {
		if r.NotRun {
			notRun = append(notRun, r.ID)
		}
	}
	if len(notRun) > 0 {
		b.Sections = append(b.Sections, Section{Para: []Span{Strong("Incomplete: " + strings.Join(notRun, ", ") + " did not run"),
			Plain(", so this page says nothing about what they would lose.")}})
	}
	facts := Section{Title: "What explains it"}
	for _, f := range a.Facts {
		facts.Items = append(facts.Items, []Span{Code(f.Setting), Plain(" = %s: %s (%s)", f.Value, f.Meaning, strings.Join(f.Stories, ", "))})
	}
	b.Sections = append(b.Sections, facts)
	if len(a.Overridden) > 0 {
		var p []Span
		for i, k := range a.Overridden {
			if i > 0 {
				p = append(p, Plain(", "))
			}
			p = append(p, Code(k))
		}
		p = append(p, Plain(": kchaos owns these to run the cluster and show faults within seconds."))
		b.Sections = append(b.Sections, Section{Title: "Settings kchaos overrode", Para: p})
	}
	return b
}
