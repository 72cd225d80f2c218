package report

import (
	"bytes"
	"html/template"
	"strconv"
	"strings"
)

// The page must open from a copied run folder on a machine without
// network access, so it carries its CSS inline, has no script, and links
// only to files of the run folder by relative path. html/template escapes
// every string that came from the history or the checker.

var pageTmpl = template.Must(template.New("page").Funcs(template.FuncMap{
	"num":         func(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) },
	"secs":        secs,
	"upper":       func(v RunVerdict) string { return strings.ToUpper(string(v)) },
	"yesno":       yesNo,
	"over":        overrideText,
	"ivsecs":      func(i interval) float64 { return i.seconds() },
	"markerColor": markerColor,
	"refsHTML":    refsHTML,
	"offset":      offsetCell,
}).Parse(pageHTML + svgHTML + lanesHTML))

func renderHTML(v *view) ([]byte, error) {
	var b bytes.Buffer
	if err := pageTmpl.ExecuteTemplate(&b, "page", v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

const svgHTML = `
{{define "svg"}}<svg class="timeline" width="{{num .W}}" height="{{num .H}}" viewBox="0 0 {{num .W}} {{num .H}}" role="img" aria-label="{{.Label}}">
<g class="under">{{range .Under}}{{template "el" .}}{{end}}</g>
{{range .Els}}{{template "el" .}}{{end}}
</svg>{{end}}
{{define "el"}}{{if eq .Kind "rect"}}<rect x="{{num .X}}" y="{{num .Y}}" width="{{num .W}}" height="{{num .H}}" fill="{{.Fill}}"{{if .Opacity}} fill-opacity="{{.Opacity}}"{{end}}{{if .Class}} class="{{.Class}}"{{end}}>{{if .Title}}<title>{{.Title}}</title>{{end}}</rect>
{{else if eq .Kind "text"}}<text x="{{num .X}}" y="{{num .Y}}"{{if .Anchor}} text-anchor="{{.Anchor}}"{{end}}{{if .Class}} class="{{.Class}}"{{end}}>{{.Text}}</text>
{{else if eq .Kind "path"}}<path d="{{.D}}" fill="none" stroke="{{.Stroke}}" stroke-width="{{num .SW}}"{{if .Class}} class="{{.Class}}"{{end}}/>
{{else if eq .Kind "line"}}<line x1="{{num .X}}" y1="{{num .Y}}" x2="{{num .X2}}" y2="{{num .Y2}}" stroke="{{.Stroke}}" stroke-width="{{num .SW}}"{{if .Dash}} stroke-dasharray="{{.Dash}}"{{end}}{{if .Class}} class="{{.Class}}"{{end}}/>
{{end}}{{end}}`

const pageHTML = `{{define "page"}}<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>kchaos {{.Name}} {{.RunID}}: {{upper .Verdict}}</title>
<style>
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px;color:#222;background:#fff;max-width:1400px}
h1{font-size:22px;margin:0 0 6px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:3px}
table{border-collapse:collapse;margin:6px 0}td,th{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f4f4f4}td.n{text-align:right;font-variant-numeric:tabular-nums}
.verdict{display:inline-block;padding:3px 12px;border-radius:4px;color:#fff;font-weight:bold;margin-right:8px}
.v-valid{background:#2e8b57}.v-invalid{background:#c0392b}.v-unknown{background:#d68910}.v-unchecked{background:#777}
.problems{background:#fff4e5;border:1px solid #f0c36d;padding:6px 12px}
.bad{color:#c0392b;font-weight:bold}.zero{color:#888}
.legend span{display:inline-block;margin-right:14px}.legend i{display:inline-block;width:14px;height:10px;margin-right:4px;vertical-align:middle}
.bar{background:#c0392b;height:10px;display:inline-block;vertical-align:middle}
svg.timeline{font:11px system-ui,sans-serif;border:1px solid #e5e5e5;background:#fff;width:100%;height:auto}
svg .tick{fill:#666}svg .lane-head{font-weight:bold;fill:#333}svg .part-head{font-weight:bold;font-size:12px;fill:#000}
svg .lane{fill:#444}svg .seg-label{fill:#111}svg .fault-label{fill:#fff;font-weight:bold}svg .fault-label-out{fill:#333;font-weight:bold}svg .epoch-label{fill:#8e44ad}
li{margin:3px 0}.cols{display:flex;gap:40px;flex-wrap:wrap}code{background:#f4f4f4;padding:0 3px}
</style></head><body>
<h1>kchaos report: {{.Name}} <small>({{.RunID}})</small></h1>
<p><span class="verdict v-{{.Verdict}}">{{upper .Verdict}}</span>{{.Summary}}</p>
{{if .Reasons}}<ul>{{range .Reasons}}<li>{{.}}</li>{{end}}</ul>{{end}}
<p>History: {{.Events}} events over {{.Duration}}.</p>
{{if .Expect}}<p>Expected (the scenario's words; they never change the verdict): {{.Expect}}</p>{{end}}
{{if or .Jira .Docs}}<p>Guards against: {{refsHTML .Jira .Docs}}</p>{{end}}
{{with .Finding}}<p>JIRA status: {{.Status}}</p><p>Minimal steps: {{.Steps}}</p>{{end}}
{{if .Problems}}<div class="problems"><b>Problems reading the run</b><ul>{{range .Problems}}<li>{{.}}</li>{{end}}</ul></div>{{end}}

<div class="cols"><div>
<h2>Configuration</h2>
<table><tr><th>setting</th><th>value</th><th>from</th></tr>
{{range .Settings}}<tr><td>{{.Name}}</td><td><b>{{.Value}}</b></td><td>{{.Source}}</td></tr>
{{end}}</table></div>

<div>{{if .Counts}}<h2>Anomalies</h2>
<table><tr><th>anomaly</th><th>count</th><th>counts against validity</th></tr>
{{range .Counts}}<tr><td>{{.Kind}}</td><td class="n {{if and .N .Counted}}bad{{else if not .N}}zero{{end}}">{{.N}}</td><td>{{yesno .Counted}}</td></tr>
{{end}}</table>
{{range .Lost}}<p class="bad">Acked records lost: {{.TP}} offsets {{.Ranges}} ({{.N}})</p>{{end}}
{{range .Reused}}<p class="bad">Offsets reused: {{.TP}} offsets {{.Ranges}} ({{.N}})</p>{{end}}{{end}}
{{range .Epochs}}<p>Final read, {{.TP}}: {{.Ranges}}</p>{{end}}
</div></div>

<h2>Timeline</h2>
<p class="legend">{{range .Legend}}<span><i style="background:{{.Color}}"></i>{{.Text}}</span>{{end}}
<span><i style="background:#3c9a5f"></i>send ok</span><span><i style="background:#f39c12"></i>send info (unknown)</span><span><i style="background:#7b241c"></i>send fail</span>
<span><i style="background:#5b7fa6"></i>acked offset</span><span><i style="background:#e31a1c"></i>lost</span><span><i style="background:#ff8c00"></i>offset reused</span></p>
<p>Shaded bands: {{.Timeline.Bands}} fault(s), from injection to the op that undid it. Lanes per partition come from the observer's samples; ISR is green at full size, yellow when shrunk, orange at one member.{{if .Markers}} "log:" rows mark what each node's own log said (<a href="#broker-logs">Broker logs</a>).{{end}} Hover for details.</p>
{{template "svg" .Timeline}}
{{with .Group}}<h2>Consumer group {{.ID}}</h2>
<p>One lane per member: the partitions it held (a bar per partition, top to bottom by number), its rebalances (blue ticks) and commits (green ok, grey fail, orange unknown; red: a commit past records no member delivered, lost by commit). Hover for details.</p>
{{range .Lost}}<p class="bad">{{.}}</p>{{end}}
{{range .Outside}}<p class="bad">{{.}}</p>{{end}}
{{range .ReadBack}}<p>{{.}}</p>{{end}}
{{template "svg" .SVG}}
<table><tr><th>member</th><th>processes</th><th>rebalances</th><th>commits ok</th><th>fail</th><th>info</th><th>partitions held (seconds)</th></tr>
{{range .Members}}<tr><td>{{.Member}}</td><td>{{.Processes}}</td><td class="n">{{.Rebalances}}</td><td class="n">{{.OK}}</td><td class="n">{{.Fail}}</td><td class="n">{{.Info}}</td><td>{{.Held}}</td></tr>
{{end}}</table>{{end}}
{{template "shares" .Shares}}
{{template "quorum" .Quorum}}

{{if .LinResult}}<h2>Linearizability (porcupine)</h2>
<p>Overall: <b>{{.LinResult}}</b>.</p>
{{if .Lin}}<table><tr><th>partition</th><th>result</th><th>ops</th><th>windows</th><th>illegal windows</th><th>visualization</th></tr>
{{range .Lin}}<tr><td>{{.TP}}</td><td>{{.Result}}</td><td class="n">{{.Ops}}</td><td class="n">{{.Windows}}</td><td class="n">{{.Illegal}}</td><td>{{if .Visualization}}<a href="{{.Visualization}}">{{.Visualization}}</a>{{end}}</td></tr>
{{end}}</table>
{{range .Lin}}{{if .Why}}<p>{{.TP}}: {{.Why}}</p>
{{end}}{{end}}{{end}}{{end}}

<h2>Offline windows per partition</h2>
<p>Source: {{.OfflineSource}}.</p>
{{if .Offline}}<table><tr><th>partition</th><th>from</th><th>to</th><th>seconds</th><th>cause</th></tr>
{{range $o := .Offline}}{{range .Windows}}<tr><td>{{$o.TP}}</td><td class="n">{{secs .Start}}</td><td class="n">{{secs .End}}</td><td class="n">{{num (ivsecs .)}}</td><td>{{.Cause}}</td></tr>
{{end}}<tr><th>{{.TP}} total</th><th></th><th></th><th class="n">{{num .Total}}</th><th></th></tr>
{{end}}</table>{{else}}<p>No partition was offline.</p>{{end}}

<h2>Errors by code</h2>
<p>Source: {{.ErrorsSource}}.</p>
{{if .Errors}}<table><tr><th>code</th><th>sends</th><th>other ops</th><th></th></tr>
{{range .Errors}}<tr><td><code>{{.Code}}</code></td><td class="n">{{.Sends}}</td><td class="n">{{.Rest}}</td><td style="width:320px"><span class="bar" style="width:{{num .Pct}}%"></span></td></tr>
{{end}}</table>{{else}}<p>No operation completed with an error.</p>{{end}}
{{if .Ops}}<table><tr><th>op</th><th>ok</th><th>fail</th><th>info</th></tr>
{{range .Ops}}<tr><td>{{.F}}</td><td class="n">{{.OK}}</td><td class="n">{{.Fail}}</td><td class="n">{{.Info}}</td></tr>
{{end}}</table>{{end}}

<h2>Explained anomalies</h2>
{{if .Explanations}}<ul>{{range .Explanations}}<li>{{if .Kind}}<b>{{.Kind}}</b>: {{end}}{{.Text}}{{with .LogsSay}}<br>Broker logs say: <a href="#{{.ID}}">{{.Brief}}</a>{{end}}</li>
{{end}}</ul>{{else}}<p>The checker gave no explanations.</p>{{end}}

{{if or .LogNodes .Markers}}<h2 id="broker-logs">Broker logs</h2>
<p>Each node's own log (<code>logs/</code>, counted into <code>logs/summary.json</code>); they corroborate the explanations and never change the verdict.</p>
{{if .LogNodes}}<table><tr><th>node</th><th>entries</th><th>WARN</th><th>ERROR</th><th>FATAL</th><th>markers</th><th>most frequent ERROR/FATAL</th></tr>
{{range .LogNodes}}<tr><td><a href="{{.File}}">{{.Node}}</a></td><td class="n">{{.Lines}}</td><td class="n">{{.Warn}}</td><td class="n {{if .Error}}bad{{else}}zero{{end}}">{{.Error}}</td><td class="n {{if .Fatal}}bad{{else}}zero{{end}}">{{.Fatal}}</td><td>{{.Markers}}</td><td>{{if .TopError}}{{.TopErrorN}} × <code>{{.TopError}}</code>{{end}}</td></tr>
{{end}}</table>{{end}}
{{if .Markers}}<table><tr><th>at</th><th>node</th><th>marker</th><th>partition</th><th>fields</th><th>line</th></tr>
{{range .Markers}}<tr id="{{.ID}}"><td class="n">{{.At}}</td><td>{{.Node}}</td><td><span style="color:{{markerColor .Name}}">■</span> {{.Name}}</td><td>{{.Partition}}</td><td>{{.Fields}}</td><td><a href="{{.File}}">{{.File}}</a> line {{.Line}}: <code>{{.Text}}</code></td></tr>
{{end}}</table>{{else}}<p>No known marker (truncation, unclean election, log dir failure, fencing, unclean recovery) in the logs.</p>{{end}}{{end}}

{{if .Nemesis}}<h2>Faults</h2>
<table><tr><th>invoked</th><th>completed</th><th>what</th></tr>
{{range .Nemesis}}<tr><td class="n">{{.Start}}</td><td class="n">{{.End}}</td><td>{{.Desc}}</td></tr>
{{end}}</table>{{end}}

<h2>Settings kchaos overrode</h2>
{{if .Overrides}}<ul>{{range .Overrides}}<li>{{over .}}</li>{{end}}</ul>{{else}}<p>None: every setting is as the scenario (or the user's config) gave it.</p>{{end}}

<h2>Files</h2>
<ul><li><a href="report.md">report.md</a>, <a href="results.json">results.json</a>, <a href="history.jsonl">history.jsonl</a>, <a href="scenario.yaml">scenario.yaml</a>, <a href="run.json">run.json</a>, <a href="junit.xml">junit.xml</a></li>
{{if .Visuals}}<li>porcupine visualizations: {{range $i, $f := .Visuals}}{{if $i}}, {{end}}<a href="{{$f}}">{{$f}}</a>{{end}}</li>{{end}}
{{if .Logs}}<li>logs: {{range $i, $f := .Logs}}{{if $i}}, {{end}}<a href="{{$f}}">{{$f}}</a>{{end}}</li>{{end}}
</ul>
</body></html>
{{end}}`
