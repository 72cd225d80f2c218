package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/kchaos/kchaos/histories"
)

// Row is one configuration of a matrix: the settings that were varied and
// what the run measured. It is the "records lost vs seconds offline"
// comparison of seeds 000 and 001 (docs/SCENARIOS.md), one line per configuration.
type Row struct {
	// Config holds the varied settings, e.g. unclean=true, elr=on, run=2.
	Config map[string]string `json:"config"`
	// RunDir is the run folder; matrix.json stores it relative to the
	// matrix folder so that the two can be moved together.
	RunDir   string  `json:"run_dir"`
	Scenario string  `json:"scenario,omitempty"`
	Verdict  Verdict `json:"verdict"`
	// Lost counts acked sends lost (lost-write), Reused offsets that came
	// to hold two values (offset-reuse).
	Lost   int `json:"acked_lost"`
	Reused int `json:"offsets_reused"`
	// Other counts the other anomaly kinds that occurred.
	Other map[string]int `json:"other_anomalies,omitempty"`
	// Offline is the seconds each partition ("topic-P") was unavailable,
	// summed over its windows; every partition of the topic is listed,
	// 0 included, because "never offline" is the finding of half the rows.
	Offline       map[string]float64 `json:"offline_seconds"`
	OfflineSource string             `json:"offline_source,omitempty"`
	// SendErrors counts send completions by error code.
	SendErrors map[string]int `json:"send_errors,omitempty"`
	// Error says what could not be read: a configuration whose run failed
	// is still a row of the table, not a hole in it.
	Error string `json:"error,omitempty"`
}

// RowFromRun reads a finished run folder: results.json and run.json, and
// the history for the send errors by code.
// It always returns a usable Row: err, also kept in Row.Error, says what
// could not be read.
func RowFromRun(runDir string, varied map[string]string) (Row, error) {
	row := Row{Config: varied, RunDir: runDir, Verdict: Unchecked, Offline: map[string]float64{}}
	r, err := loadRun(runDir)
	if err != nil {
		row.Error = err.Error()
		return row, err
	}
	row.Scenario = r.name()
	for p := 0; p < r.Info.Partitions; p++ {
		row.Offline[tp{r.Info.Topic, int32(p)}.String()] = 0
	}
	if r.Res == nil {
		row.Error = r.ResErr
		return row, fmt.Errorf("%s: %s", runDir, r.ResErr)
	}
	res := r.Res
	row.Verdict = res.Valid
	row.Lost, row.Reused = res.count("lost-write"), res.count("offset-reuse")
	for _, k := range res.kinds() {
		if k != "lost-write" && k != "offset-reuse" {
			if row.Other == nil {
				row.Other = map[string]int{}
			}
			row.Other[k] = res.count(k)
		}
	}
	// Send errors are counted from the history: results.json counts the
	// errors of all ops together, polls included.
	tl, herr := scanHistory(filepath.Join(runDir, HistoryFile), marks{})
	by, source := offlineByTP(r, tl)
	row.OfflineSource = source
	for _, o := range offlineRows(by) {
		row.Offline[o.TP] += o.Total
	}
	if herr != nil {
		row.Error = herr.Error()
		row.SendErrors = res.Errors // all ops: better than nothing
		return row, fmt.Errorf("%s: %v", runDir, herr)
	}
	for code, byF := range tl.Errors {
		if n := byF[histories.FSend]; n > 0 {
			if row.SendErrors == nil {
				row.SendErrors = map[string]int{}
			}
			row.SendErrors[code] = n
		}
	}
	return row, nil
}

// matrixFile is matrix.json.
type matrixFile struct {
	Columns []string `json:"columns"`
	Rows    []Row    `json:"rows"`
}

// columnOrder puts the usual varied settings in the order the issue
// spells the matrix command; others follow alphabetically, run last.
var columnOrder = []string{"kafka", "kafka_version", "unclean", "elr", "acks", "min.insync", "idempotent"}

func columns(rows []Row) []string {
	seen := map[string]bool{}
	for _, r := range rows {
		for k := range r.Config {
			seen[k] = true
		}
	}
	var out, rest []string
	for _, k := range columnOrder {
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

// WriteMatrix writes matrix.md, matrix.html and matrix.json into dir,
// one row per configuration in the order given.
func WriteMatrix(dir string, rows []Row) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	cols := columns(rows)
	rel := make([]Row, len(rows))
	for i, r := range rows {
		rel[i] = r
		if p, err := filepath.Rel(dir, r.RunDir); err == nil && r.RunDir != "" {
			rel[i].RunDir = filepath.ToSlash(p)
		}
	}
	js, err := json.MarshalIndent(matrixFile{cols, rel}, "", "  ")
	if err != nil {
		return err
	}
	var html bytes.Buffer
	if err := matrixTmpl.Execute(&html, matrixView(cols, rel)); err != nil {
		return err
	}
	for name, b := range map[string][]byte{
		"matrix.json": append(js, '\n'),
		"matrix.md":   matrixMarkdown(cols, rel),
		"matrix.html": html.Bytes(),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func matrixMarkdown(cols []string, rows []Row) []byte {
	var b bytes.Buffer
	b.WriteString("# kchaos matrix\n\nAcked records lost against seconds each partition was offline, per configuration.\n\n|")
	for _, c := range cols {
		b.WriteString(" " + mdCell(c) + " |")
	}
	b.WriteString(" verdict | acked lost | offsets reused | other anomalies | seconds offline | send errors | report |\n|")
	b.WriteString(strings.Repeat("---|", len(cols)) + "---|---:|---:|---|---:|---|---|\n")
	for _, r := range rows {
		b.WriteString("|")
		for _, c := range cols {
			b.WriteString(" " + mdCell(r.Config[c]) + " |")
		}
		verdict := string(r.Verdict)
		if r.Error != "" {
			verdict += " (" + r.Error + ")"
		}
		link := "—"
		if r.RunDir != "" {
			link = fmt.Sprintf("[report](%s/%s)", r.RunDir, ReportHTML)
		}
		lost, reused, other, errs := measured(r)
		fmt.Fprintf(&b, " %s | %s | %s | %s | %s | %s | %s |\n", mdCell(verdict), lost, reused,
			mdCell(other), mdCell(offlineText(r.Offline)), mdCell(errs), link)
	}
	return b.Bytes()
}

// measured formats a row's counts; an unchecked run measured nothing, so
// its cells say so instead of showing zeros that read as "no loss".
func measured(r Row) (lost, reused, other, errs string) {
	if r.Verdict == Unchecked {
		return "—", "—", "—", "—"
	}
	return strconv.Itoa(r.Lost), strconv.Itoa(r.Reused), countsText(r.Other), countsText(r.SendErrors)
}

// countsText is "A 3, B 1" by count, then name; "0" when empty.
func countsText(m map[string]int) string {
	if len(m) == 0 {
		return "0"
	}
	ks := sortedKeys(m)
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
	for _, k := range sortedKeys(m) {
		parts = append(parts, k+" "+f(m[k]))
	}
	return strings.Join(parts, "; ")
}

type matrixRowView struct {
	Row
	Values               []string
	OfflineTotal         float64
	LostPct, OfflinePct  float64
	LostText, ReusedText string
	OtherText, Offline   string
	ErrorsText, Link     string
}

func matrixView(cols []string, rows []Row) map[string]any {
	var out []matrixRowView
	maxLost, maxOff := 0.0, 0.0
	for _, r := range rows {
		v := matrixRowView{Row: r, Offline: offlineText(r.Offline)}
		v.LostText, v.ReusedText, v.OtherText, v.ErrorsText = measured(r)
		for _, c := range cols {
			v.Values = append(v.Values, r.Config[c])
		}
		for _, s := range r.Offline {
			v.OfflineTotal += s
		}
		if r.RunDir != "" {
			v.Link = r.RunDir + "/" + ReportHTML
		}
		maxLost, maxOff = max(maxLost, float64(r.Lost)), max(maxOff, v.OfflineTotal)
		out = append(out, v)
	}
	for i := range out {
		if maxLost > 0 {
			out[i].LostPct = 100 * float64(out[i].Lost) / maxLost
		}
		if maxOff > 0 {
			out[i].OfflinePct = 100 * out[i].OfflineTotal / maxOff
		}
	}
	return map[string]any{"Cols": cols, "Rows": out}
}

var matrixTmpl = template.Must(template.New("matrix").Funcs(template.FuncMap{
	"num": func(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) },
}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>kchaos matrix</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#222;background:#fff}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:middle}
th{background:#f4f4f4}td.n{text-align:right;font-variant-numeric:tabular-nums}
.valid{color:#2e8b57;font-weight:bold}.invalid{color:#c0392b;font-weight:bold}.unknown,.unchecked{color:#d68910;font-weight:bold}
.bar{display:inline-block;height:10px;vertical-align:middle;margin-right:6px}.lost{background:#e31a1c}.off{background:#7f8c8d}
td.bars{width:160px;white-space:nowrap}.err{color:#c0392b;font-size:12px}
</style></head><body>
<h1>kchaos matrix</h1>
<p>Per configuration: acked records lost against seconds each partition was offline (the trade-off of seeds 000 and 001, measured), with the other anomalies and the send errors seen.</p>
<table><tr>{{range .Cols}}<th>{{.}}</th>{{end}}<th>verdict</th><th>acked lost</th><th>offsets reused</th><th>seconds offline</th><th>other anomalies</th><th>send errors</th><th>report</th></tr>
{{range .Rows}}<tr>{{range .Values}}<td>{{.}}</td>{{end}}
<td class="{{.Verdict}}">{{.Verdict}}{{if .Error}}<div class="err">{{.Error}}</div>{{end}}</td>
<td class="bars"><span class="bar lost" style="width:{{num .LostPct}}px"></span>{{.LostText}}</td>
<td class="n">{{.ReusedText}}</td>
<td class="bars"><span class="bar off" style="width:{{num .OfflinePct}}px"></span>{{.Offline}}</td>
<td>{{.OtherText}}</td><td>{{.ErrorsText}}</td>
<td>{{if .Link}}<a href="{{.Link}}">report</a>{{end}}</td></tr>
{{end}}</table>
</body></html>
`))
