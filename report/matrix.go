package report

import (
	"fmt"
	"html/template"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// MatrixPage shows the verdicts: per configuration, acked records lost
// against seconds each partition was offline (the trade-off of seeds 000
// and 001, docs/SCENARIOS.md), with the other anomalies and the send
// errors seen. A row's Status is its verdict.
var MatrixPage = &Page{
	File:           "matrix",
	SettingColumns: true,
	Columns: []Column{
		{Head: "verdict", Class: func(r Row) string { return string(r.Verdict) },
			Text: func(r Row) string {
				if r.Reason != "" {
					return string(r.Verdict) + " (" + r.Reason + ")"
				}
				return string(r.Verdict)
			},
			HTML: func(r Row, _ []Row) template.HTML {
				h := template.HTMLEscapeString(string(r.Verdict))
				if r.Reason != "" {
					h += `<div class="err">` + template.HTMLEscapeString(r.Reason) + `</div>`
				}
				return template.HTML(h)
			}},
		{Head: "acked lost", Right: true, Text: func(r Row) string { l, _, _, _ := measured(r); return l },
			HTML: func(r Row, all []Row) template.HTML {
				l, _, _, _ := measured(r)
				return bar("lost", float64(r.Lost), all, func(x Row) float64 { return float64(x.Lost) }, l)
			}},
		{Head: "offsets reused", Right: true, Text: func(r Row) string { _, u, _, _ := measured(r); return u }},
		{Head: "other anomalies", Text: func(r Row) string { _, _, o, _ := measured(r); return o }},
		{Head: "seconds offline", Right: true, Text: func(r Row) string { return offlineText(r.Offline) },
			HTML: func(r Row, all []Row) template.HTML {
				return bar("off", offlineTotal(r), all, offlineTotal, offlineText(r.Offline))
			}},
		{Head: "send errors", Text: func(r Row) string { _, _, _, e := measured(r); return e }},
		{Head: "report", Text: reportText, HTML: func(r Row, _ []Row) template.HTML { return reportLink(r) }},
	},
	RowsKey: "rows",
	JSON: []Field{{Key: "config", From: "settings"}, {Key: "run_dir"}, {Key: "scenario", Omit: true},
		{Key: "verdict"}, {Key: "acked_lost"}, {Key: "offsets_reused"}, {Key: "other_anomalies", Omit: true},
		{Key: "offline_seconds"}, {Key: "offline_source", Omit: true}, {Key: "send_errors", Omit: true},
		{Key: "error", From: "reason", Omit: true}},
	Pass: []string{string(Valid)}, Fail: []string{string(Invalid)},
}

// MatrixBatch is a matrix's page family over rows.
func MatrixBatch(name string, rows []Row) Batch {
	return Batch{Page: MatrixPage, Name: name, Title: "kchaos matrix", Rows: rows,
		Intro:    "Acked records lost against seconds each partition was offline, per configuration.",
		JSONHead: []Value{{Key: "columns", Value: settingKeys(rows)}}}
}

// measured formats a row's counts; an unchecked run measured nothing, so
// its cells say so instead of showing zeros that read as "no loss".
func measured(r Row) (lost, reused, other, errs string) {
	if r.Verdict == Unchecked || r.NotRun {
		return "—", "—", "—", "—"
	}
	return strconv.Itoa(r.Lost), strconv.Itoa(r.Reused), countsText(r.Other), countsText(r.SendErrors)
}

// bar is a row's figure with a bar scaled to the largest of all rows.
func bar(class string, v float64, all []Row, of func(Row) float64, text string) template.HTML {
	top := 0.0
	for _, r := range all {
		top = max(top, of(r))
	}
	pct := 0.0
	if top > 0 {
		pct = 100 * v / top
	}
	return template.HTML(fmt.Sprintf(`<span class="bar %s" style="width:%spx"></span>%s`, class,
		strconv.FormatFloat(pct, 'f', 1, 64), template.HTMLEscapeString(text)))
}

func offlineTotal(r Row) float64 {
	t := 0.0
	for _, s := range r.Offline {
		t += s
	}
	return t
}

// countsText is "A 3, B 1" by count, then name; "0" when empty.
func countsText(m map[string]int) string {
	if len(m) == 0 {
		return "0"
	}
	ks := slices.Sorted(maps.Keys(m))
	sort.SliceStable(ks, func(i, j int) bool { return m[ks[i]] > m[ks[j]] })
	parts := make([]string, len(ks))
	for i, k := range ks {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// offlineText is the seconds alone for one partition, else per partition.
func offlineText(m map[string]float64) string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }
	switch len(m) {
	case 0:
		return "—"
	case 1:
		for _, v := range m {
			return f(v)
		}
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, k+" "+f(m[k]))
	}
	return strings.Join(parts, "; ")
}
