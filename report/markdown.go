package report

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// renderMarkdown writes report.md: the same evidence as the HTML page
// without the charts, in a form that pastes into a review document or a
// pull request and diffs between runs.
func renderMarkdown(v *view) []byte {
	var b bytes.Buffer
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p("# kchaos report: %s (%s)\n\n", v.Name, v.RunID)
	p("**Verdict: %s** — %s\n\n", strings.ToUpper(string(v.Verdict)), v.Summary)
	for _, r := range v.Reasons {
		p("- %s\n", mdText(r))
	}
	if len(v.Reasons) > 0 {
		p("\n")
	}
	p("History: %d events over %s.\n\n", v.Events, v.Duration)
	if v.Expect != "" {
		p("Expected (the scenario's words; they never change the verdict): %s\n\n", mdText(strings.Join(strings.Fields(v.Expect), " ")))
	}
	if refs := refsMarkdown(v.Jira, v.Docs); refs != "" {
		p("Guards against: %s\n\n", refs)
	}
	if f := v.Finding; f != nil {
		p("JIRA status: %s\n\nMinimal steps: %s\n\n", mdText(f.Status), mdText(f.Steps))
	}
	if len(v.Problems) > 0 {
		p("## Problems reading the run\n\n")
		for _, s := range v.Problems {
			p("- %s\n", mdText(s))
		}
		p("\n")
	}

	p("## Configuration\n\n| setting | value | from |\n|---|---|---|\n")
	for _, s := range v.Settings {
		p("| %s | %s | %s |\n", mdCell(s.Name), mdCell(s.Value), mdCell(s.Source))
	}
	p("\n")

	if len(v.Counts) > 0 {
		p("## Anomalies\n\n| anomaly | count | counts against validity |\n|---|---:|---|\n")
		for _, c := range v.Counts {
			p("| %s | %d | %s |\n", c.Kind, c.N, yesNo(c.Counted))
		}
		p("\n")
	}
	if len(v.Lost) > 0 {
		p("### Acked records lost\n\n")
		for _, r := range v.Lost {
			p("- %s offsets %s (%d offsets)\n", r.TP, r.Ranges, r.N)
		}
		p("\n")
	}
	if len(v.Reused) > 0 {
		p("### Offsets reused\n\n")
		for _, r := range v.Reused {
			p("- %s offsets %s (%d offsets)\n", r.TP, r.Ranges, r.N)
		}
		p("\n")
	}
	if len(v.Epochs) > 0 {
		p("### Leader epochs in the final read\n\nAn epoch that begins inside the range of acked offsets marks where a new leader's log diverged.\n\n")
		for _, r := range v.Epochs {
			p("- %s: %s\n", r.TP, r.Ranges)
		}
		p("\n")
	}
	if len(v.Explanations) > 0 {
		p("## Explained anomalies\n\n")
		for _, e := range v.Explanations {
			if e.Kind != "" {
				p("- **%s**: %s\n", e.Kind, mdText(e.Text))
			} else {
				p("- %s\n", mdText(e.Text))
			}
			if m := e.LogsSay; m != nil {
				p("  - broker logs say: %s\n", mdText(m.Brief()))
			}
		}
		p("\n")
	}
	if len(v.LogNodes) > 0 || len(v.Markers) > 0 {
		p("## Broker logs\n\nEach node's own log (`logs/`, counted into `logs/summary.json`); they corroborate the explanations and never change the verdict.\n\n")
		if len(v.LogNodes) > 0 {
			p("| node | entries | WARN | ERROR | FATAL | markers | most frequent ERROR/FATAL |\n|---|---:|---:|---:|---:|---|---|\n")
			for _, n := range v.LogNodes {
				top := ""
				if n.TopError != "" {
					top = n.TopErrorN + " × `" + mdCell(n.TopError) + "`"
				}
				p("| [%s](%s) | %d | %d | %d | %d | %s | %s |\n", n.Node, n.File, n.Lines, n.Warn, n.Error, n.Fatal, mdCell(n.Markers), top)
			}
			p("\n")
		}
		if len(v.Markers) > 0 {
			p("| at | node | marker | partition | fields | line |\n|---:|---|---|---|---|---|\n")
			for _, m := range v.Markers {
				p("| %s | %s | %s | %s | %s | %s line %d |\n", m.At, m.Node, m.Name, m.Partition, mdCell(m.Fields), m.File, m.Line)
			}
			p("\n")
		}
	}

	if v.LinResult != "" {
		p("## Linearizability (porcupine)\n\nOverall: **%s**.\n\n", v.LinResult)
		if len(v.Lin) > 0 {
			p("| partition | result | ops | windows | illegal windows | visualization |\n|---|---|---:|---:|---:|---|\n")
			for _, l := range v.Lin {
				vis := ""
				if l.Visualization != "" {
					vis = fmt.Sprintf("[%s](%s)", l.Visualization, l.Visualization)
				}
				p("| %s | %s | %d | %d | %d | %s |\n", mdCell(l.TP), mdCell(l.Result), l.Ops, l.Windows, l.Illegal, vis)
			}
			p("\n")
			why := false
			for _, l := range v.Lin {
				if l.Why != "" {
					p("- %s: %s\n", l.TP, l.Why)
					why = true
				}
			}
			if why {
				p("\n")
			}
		}
	}

	p("## Offline windows per partition\n\nSource: %s.\n\n", v.OfflineSource)
	if len(v.Offline) == 0 {
		p("No partition was offline.\n\n")
	} else {
		p("| partition | from | to | seconds | cause |\n|---|---:|---:|---:|---|\n")
		for _, o := range v.Offline {
			for _, w := range o.Windows {
				p("| %s | %s | %s | %.1f | %s |\n", mdCell(o.TP), secs(w.Start), secs(w.End), w.seconds(), mdCell(w.Cause))
			}
			p("| **%s total** | | | **%.1f** | |\n", mdCell(o.TP), o.Total)
		}
		p("\n")
	}

	p("## Errors by code\n\nSource: %s.\n\n", v.ErrorsSource)
	if len(v.Errors) == 0 {
		p("No operation completed with an error.\n\n")
	} else {
		p("| code | sends | other ops |\n|---|---:|---:|\n")
		for _, e := range v.Errors {
			p("| %s | %d | %d |\n", mdCell(e.Code), e.Sends, e.Rest)
		}
		p("\n")
	}
	if g := v.Group; g != nil {
		p("## Consumer group %s\n\n", mdText(g.ID))
		for _, l := range slices.Concat(g.Lost, g.Outside) {
			p("- **%s**\n", mdText(l))
		}
		for _, l := range g.ReadBack {
			p("- %s\n", mdText(l))
		}
		if len(g.Lost)+len(g.Outside)+len(g.ReadBack) > 0 {
			p("\n")
		}
		p("| member | processes | rebalances | commits ok | fail | info | partitions held (seconds) |\n|---|---|---:|---:|---:|---:|---|\n")
		for _, m := range g.Members {
			p("| %s | %s | %d | %d | %d | %d | %s |\n", mdCell(m.Member), mdCell(m.Processes), m.Rebalances, m.OK, m.Fail, m.Info, mdCell(m.Held))
		}
		p("\n")
	}
	mdShares(p, v.Shares)
	mdQuorum(p, v.Quorum)
	if len(v.Ops) > 0 {
		p("## Operations\n\n| op | ok | fail | info |\n|---|---:|---:|---:|\n")
		for _, o := range v.Ops {
			p("| %s | %d | %d | %d |\n", mdCell(o.F), o.OK, o.Fail, o.Info)
		}
		p("\n")
	}
	if len(v.Nemesis) > 0 {
		p("## Faults\n\n| invoked | completed | what |\n|---:|---:|---|\n")
		for _, n := range v.Nemesis {
			p("| %s | %s | %s |\n", n.Start, n.End, mdCell(n.Desc))
		}
		p("\n")
	}

	p("## Settings kchaos overrode\n\n")
	if len(v.Overrides) == 0 {
		p("None: every setting is as the scenario (or the user's config) gave it.\n\n")
	} else {
		for _, o := range v.Overrides {
			p("- %s\n", mdText(overrideText(o)))
		}
		p("\n")
	}

	p("## Files\n\n- [report.html](report.html), [results.json](results.json), [history.jsonl](history.jsonl), [scenario.yaml](scenario.yaml), [run.json](run.json)\n")
	for _, f := range v.Visuals {
		p("- porcupine: [%s](%s)\n", f, f)
	}
	for _, f := range v.Logs {
		p("- log: [%s](%s)\n", f, f)
	}
	return b.Bytes()
}

// overrideText is one overridden setting as a sentence.
func overrideText(o override) string {
	s := o.Key
	switch {
	case o.User != "" && o.Value != "":
		s += fmt.Sprintf(": %s replaced by %s", o.User, o.Value)
	case o.Value != "":
		s += ": set to " + o.Value
	}
	if o.Reason != "" {
		s += " (" + o.Reason + ")"
	}
	return s
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// mdText keeps free text from the checker on one line.
func mdText(s string) string { return strings.Join(strings.Fields(s), " ") }

// mdCell also escapes the table separator.
func mdCell(s string) string { return strings.ReplaceAll(mdText(s), "|", `\|`) }
