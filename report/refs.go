package report

import (
	"html/template"
	"strings"

	"github.com/kchaos/kchaos/histories"
)

// A scenario's Kafka bugs (JIRA keys) and documents, as every output
// shows them: plain text, HTML links, junit properties.

// refsText is "KAFKA-1, KAFKA-2; https://..." ("" for none).
func refsText(jira, docs []string) string {
	var parts []string
	for _, l := range [][]string{jira, docs} {
		if len(l) > 0 {
			parts = append(parts, strings.Join(l, ", "))
		}
	}
	return strings.Join(parts, "; ")
}

// refsMarkdown links each JIRA key and document.
func refsMarkdown(jira, docs []string) string {
	var parts []string
	for _, id := range jira {
		parts = append(parts, "["+id+"]("+histories.JiraURL(id)+")")
	}
	for _, d := range docs {
		parts = append(parts, "<"+d+">")
	}
	return strings.Join(parts, ", ")
}

// refsHTML links each JIRA key and document.
func refsHTML(jira, docs []string) template.HTML {
	var parts []string
	link := func(href, text string) string {
		return `<a href="` + template.HTMLEscapeString(href) + `">` + template.HTMLEscapeString(text) + `</a>`
	}
	for _, id := range jira {
		parts = append(parts, link(histories.JiraURL(id), id))
	}
	for _, d := range docs {
		parts = append(parts, link(d, d))
	}
	return template.HTML(strings.Join(parts, ", "))
}

// junitProperties is a testcase's <properties>, absent when nil.
type junitProperties struct {
	List []junitProperty `xml:"property"`
}

// caseProperties is refsProperties for a testcase: nil when none.
func caseProperties(jira, docs []string, f *histories.Finding) *junitProperties {
	if ps := refsProperties(jira, docs, f); len(ps) > 0 {
		return &junitProperties{ps}
	}
	return nil
}

// refsProperties are junit.xml's properties for them: "jira" and "docs",
// each comma-separated, and a finding's "jira_status" and "steps"; each
// absent when empty.
func refsProperties(jira, docs []string, f *histories.Finding) []junitProperty {
	var out []junitProperty
	if len(jira) > 0 {
		out = append(out, junitProperty{"jira", strings.Join(jira, ",")})
	}
	if len(docs) > 0 {
		out = append(out, junitProperty{"docs", strings.Join(docs, ",")})
	}
	if f != nil {
		out = append(out, junitProperty{"jira_status", f.Status}, junitProperty{"steps", f.Steps})
	}
	return out
}
