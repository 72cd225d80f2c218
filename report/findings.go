package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// A suite's regression cells (those that name a JIRA or carry a finding)
// get a section of their own on the suite page: the table says how each
// run went; a reader of a bug wants, per scenario and settings, which
// versions showed it and how often, and what upstream says of it.

// findingGroup is one scenario under one set of settings, over versions
// and runs.
type findingGroup struct {
	name     string // "r1" or "t4/unclean=true"
	jira     []string
	status   string // the JIRA's own status (Finding.Status)
	steps    string
	needs    string   // "needs ..." of a cell kchaos cannot drive yet
	versions []string // in the cells' order
	by       map[string]*versionTally
}

// versionTally is what the runs of one version gave.
type versionTally struct {
	runs, invalid int             // runs the checker judged; of them, invalid
	na, unjudged  int             // not applicable; run but no verdict
	needs         int             // refused: kchaos lacks what the bug needs
	statuses      map[string]int  // suite statuses (match, differ, ...)
	anomalies     map[string]bool // the invalid runs' anomaly kinds
}

// findingsSection is the Findings section of a suite page, nil when no
// cell names a JIRA or carries a finding. A run counts as showing the bug
// when the checker found it invalid (acked data lost or a guarantee
// broken): the reproduction rate per version is invalid runs of judged
// runs. Whether that is the expected outcome is the expectation's
// business: the section says where the expectation held too.
func findingsSection(cells []Row) *Section {
	var groups []*findingGroup
	byName := map[string]*findingGroup{}
	for _, r := range cells {
		if len(r.Jira) == 0 && r.Finding == nil {
			continue
		}
		name := r.Scenario
		if s := settingsWords(r.Settings); s != "" {
			name += "/" + s
		}
		g := byName[name]
		if g == nil {
			g = &findingGroup{name: name, jira: r.Jira, by: map[string]*versionTally{}}
			if r.Finding != nil {
				g.status, g.steps = r.Finding.Status, r.Finding.Steps
			}
			if r.Status == CellNeeds {
				g.needs = r.Reason
			}
			byName[name] = g
			groups = append(groups, g)
		}
		t := g.by[r.Kafka]
		if t == nil {
			t = &versionTally{statuses: map[string]int{}, anomalies: map[string]bool{}}
			g.by[r.Kafka] = t
			g.versions = append(g.versions, r.Kafka)
		}
		t.add(r)
	}
	if len(groups) == 0 {
		return nil
	}
	s := &Section{Title: "Findings"}
	for _, g := range groups {
		s.Items = append(s.Items, g.spans())
	}
	s.Para = []Span{plain("A run is invalid when the checker finds acked data lost or a guarantee broken; the rate is such runs " +
		"of those the checker judged, per version. The expectation is the scenario's outcome checks, red where the story " +
		"shows its bug: a bug that loses no data (a refused feature upgrade, an acknowledgement left unanswered) shows there " +
		"alone, with every run valid.")}
	return s
}

func (t *versionTally) add(r Row) {
	switch {
	case r.Status == CellNotApplicable:
		t.na++
		return
	case r.Status == CellNeeds:
		t.needs++
		return
	case r.NotRun || (r.Verdict != Valid && r.Verdict != Invalid):
		t.unjudged++
	case r.Verdict == Invalid:
		t.runs++
		t.invalid++
		for _, k := range anomalyKinds(r.Measure) {
			t.anomalies[k] = true
		}
	default:
		t.runs++
	}
	t.statuses[r.Status]++
}

// anomalyKinds are the kinds a run counted, lost-write and offset-reuse
// first.
func anomalyKinds(m Measure) []string {
	var out []string
	if m.Lost > 0 {
		out = append(out, "lost-write")
	}
	if m.Reused > 0 {
		out = append(out, "offset-reuse")
	}
	for _, k := range slices.Sorted(maps.Keys(m.Other)) {
		if m.Other[k] > 0 {
			out = append(out, k)
		}
	}
	return out
}

func (g *findingGroup) spans() []Span {
	head := g.name
	if len(g.jira) > 0 {
		head += " (" + strings.Join(g.jira, ", ") + ")"
	}
	var shown, clean, na, unjudged, held, differed, refused []string
	for _, v := range g.versions {
		t := g.by[v]
		if t.runs > 0 {
			rate := fmt.Sprintf("%s: %d of %d runs", v, t.invalid, t.runs)
			if t.invalid > 0 {
				shown = append(shown, rate+" ("+strings.Join(slices.Sorted(maps.Keys(t.anomalies)), ", ")+")")
			} else {
				clean = append(clean, rate)
			}
		}
		if t.na > 0 {
			na = append(na, v)
		}
		if t.needs > 0 {
			refused = append(refused, v)
		}
		if t.unjudged > 0 {
			unjudged = append(unjudged, fmt.Sprintf("%s (%d runs)", v, t.unjudged))
		}
		if t.statuses[CellMatch] > 0 {
			held = append(held, fmt.Sprintf("%s %d of %d", v, t.statuses[CellMatch], t.runs+t.unjudged))
		}
		if t.statuses[CellDiffer] > 0 {
			differed = append(differed, fmt.Sprintf("%s %d of %d", v, t.statuses[CellDiffer], t.runs+t.unjudged))
		}
	}
	out := []Span{strong(head), plain(". ")}
	add := func(label string, list []string) {
		if len(list) > 0 {
			out = append(out, plain("%s %s. ", label, strings.Join(list, "; ")))
		}
	}
	if len(refused) > 0 {
		out = append(out, plain("Not run: kchaos %s; refused on %s. ", g.needs, strings.Join(refused, ", ")))
	}
	add("Runs invalid (the checker's verdict) on", shown)
	if len(shown) == 0 && len(refused) < len(g.versions) {
		out = append(out, plain("No run invalid on any version. "))
	}
	add("Every judged run valid on", clean)
	add("Not applicable on", na)
	add("Not judged (run failed, or no verdict) on", unjudged)
	add("Expectation held on", held)
	add("Expectation differed on", differed)
	status := g.status
	if status == "" {
		status = "not recorded (the scenario has no finding: block)"
	}
	out = append(out, plain("JIRA status: %s. ", strings.TrimSuffix(status, ".")))
	if g.steps != "" {
		out = append(out, plain("Minimal steps: %s", g.steps))
	}
	return out
}

// settingsWords is "k=v,k=v" in key order ("" for none), as the cell ids
// write the varied settings.
func settingsWords(s map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(s)) {
		parts = append(parts, k+"="+s[k])
	}
	return strings.Join(parts, ",")
}
