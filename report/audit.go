package report

import (
	"fmt"
	"html/template"
	"maps"
	"slices"
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
		{Head: "outcome: what the history shows", Text: auditOutcome, Class: func(r Row) string {
			if r.NotRun {
				return "err"
			}
			return string(r.Verdict)
		}, HTML: func(r Row, _ []Row) template.HTML {
			if r.NotRun {
				return template.HTML(template.HTMLEscapeString(auditOutcome(r)))
			}
			cls := "lost"
			if r.Status == AuditNothing {
				cls = "ok"
			}
			h := `<b class="` + cls + `">` + template.HTMLEscapeString(auditWord(r.Status)) + `</b>`
			if r.Account != "" {
				h += ": " + template.HTMLEscapeString(r.Account)
			}
			if r.Verdict != "" && r.Verdict != Valid {
				h += " (checker: " + template.HTMLEscapeString(string(r.Verdict)) + ")"
			}
			if r.Reason != "" {
				h += `<div class="err">` + template.HTMLEscapeString(r.Reason) + `</div>`
			}
			return template.HTML(h)
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
	JSON: []Field{{Key: "story", From: "id"}, {Key: "description"}, {Key: "status"}, {Key: "verdict"}, {Key: "account", Omit: true},
		{Key: "acked"}, {Key: "acked_lost"}, {Key: "offsets_reused"}, {Key: "offline_seconds"},
		{Key: "reason", Omit: true}, {Key: "not_run", Omit: true}, {Key: "run_dir", Omit: true}},
	Pass: []string{AuditNothing}, Fail: []string{AuditLost},
}

// auditWord is an audit status in a reviewer's words.
func auditWord(status string) string {
	switch status {
	case AuditNothing:
		return "pass"
	case AuditLost:
		return "FAIL"
	case AuditNotRun:
		return "not run"
	}
	return "not judged"
}

// auditOutcome is a row's outcome cell: its status in a reviewer's words,
// what the history shows the story did, the checker's verdict when it is
// not valid, and why the run is not a clean measurement.
func auditOutcome(r Row) string {
	if r.NotRun {
		return r.Reason
	}
	w := auditWord(r.Status)
	if r.Account != "" {
		w += ": " + r.Account
	}
	if r.Verdict != "" && r.Verdict != Valid {
		w += " (checker: " + string(r.Verdict) + ")"
	}
	if r.Reason != "" {
		w += " (" + r.Reason + ")"
	}
	return w
}

// auditSummary is the page's verdict in one line, from the rows' statuses.
func auditSummary(rows []Row) string {
	var lost, passed, other []string
	for _, r := range rows {
		switch r.Status {
		case AuditLost:
			lost = append(lost, r.ID)
		case AuditNothing:
			passed = append(passed, r.ID)
		default:
			other = append(other, r.ID)
		}
	}
	switch {
	case len(rows) == 0:
		return "No story has run yet."
	case len(lost) > 0:
		return "FAIL: " + strings.Join(lost, ", ") + " lost acked records or reused offsets."
	case len(other) > 0:
		return "Not every story could be judged (" + strings.Join(other, ", ") + "); the others lost nothing."
	}
	return "Pass: every story ran, and none lost an acked record or reused an offset."
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
	// Driver, ProducerConfig and ConsumerConfig are the client settings
	// the stories ran with, in the Java client's names: the scenario's
	// workload with the service's --producer-config and --consumer-config
	// applied (workloads.Config.ClientSettings), so that the page says
	// under which client settings the stories lost what they lost.
	Driver                         string
	ProducerConfig, ConsumerConfig map[string]string
}

// auditClient is the page's client settings as audit.json has them.
type auditClient struct {
	Driver   string            `json:"driver,omitempty"`
	Producer map[string]string `json:"producer,omitempty"`
	Consumer map[string]string `json:"consumer,omitempty"`
}

// AuditBatch is an audit's page family: the stories' rows, which stories
// it has nothing on, the facts that explain the rows and the keys kchaos
// overrode.
func AuditBatch(a Audit, rows []Row) Batch {
	b := Batch{Page: AuditPage, Title: "kchaos audit (Kafka " + a.Kafka + ")", Rows: rows,
		Intro:    "The failure stories run under your settings: what each lost and how long the partition was offline.",
		JSONHead: []Value{{Key: "kafka", Value: a.Kafka}},
		JSONTail: []Value{{Key: "facts", Value: a.Facts}, {Key: "overridden", Value: a.Overridden, Omit: true},
			{Key: "broker_config", Value: a.BrokerConfig, Omit: true}, {Key: "topic_config", Value: a.TopicConfig, Omit: true},
			{Key: "client", Value: auditClient{Driver: a.Driver, Producer: a.ProducerConfig, Consumer: a.ConsumerConfig}, Omit: true}}}
	b.Sections = append(b.Sections, Section{Para: []Span{strong(auditSummary(rows))}})
	var notRun []string
	for _, r := range rows {
		if r.NotRun {
			notRun = append(notRun, r.ID)
		}
	}
	if len(notRun) > 0 {
		b.Sections = append(b.Sections, Section{Para: []Span{strong("Incomplete: " + strings.Join(notRun, ", ") + " did not run"),
			plain(", so this page says nothing about what they would lose.")}})
	}
	facts := Section{Title: "What explains it"}
	for _, f := range a.Facts {
		facts.Items = append(facts.Items, []Span{code(f.Setting), plain(" = %s: %s (%s)", f.Value, f.Meaning, strings.Join(f.Stories, ", "))})
	}
	b.Sections = append(b.Sections, facts)
	if cs := clientSection(a); len(cs.Items) > 0 {
		b.Sections = append(b.Sections, cs)
	}
	if len(a.Overridden) > 0 {
		var p []Span
		for i, k := range a.Overridden {
			if i > 0 {
				p = append(p, plain(", "))
			}
			p = append(p, code(k))
		}
		p = append(p, plain(": kchaos owns these to run the cluster and show faults within seconds."))
		b.Sections = append(b.Sections, Section{Title: "Settings kchaos overrode", Para: p})
	}
	return b
}

// clientSection states the client settings beside the configuration
// facts: the driver, then each producer and consumer setting, sorted.
func clientSection(a Audit) Section {
	sec := Section{Title: "Client settings"}
	if a.Driver != "" {
		sec.Items = append(sec.Items, []Span{plain("driver: "), code(a.Driver)})
	}
	for _, side := range []struct {
		name string
		m    map[string]string
	}{{"producer", a.ProducerConfig}, {"consumer", a.ConsumerConfig}} {
		for _, k := range slices.Sorted(maps.Keys(side.m)) {
			sec.Items = append(sec.Items, []Span{plain("%s: ", side.name), code(k), plain(" = %s", side.m[k])})
		}
	}
	return sec
}
