package report

import (
	"encoding/xml"
	"fmt"
	"strings"
)

// JUnit XML is what CI dashboards (GitHub Actions test reporters, Jenkins,
// GitLab) already read: a nightly matrix shows up as one suite per run, a
// red test per anomaly kind found, with the checker's explanation as the
// failure text, so nobody has to open the run folder to see what broke.

type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Name    string       `xml:"name,attr"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",cdata"`
}

// renderJUnit writes one suite for the run: a "verdict" case (failure
// when invalid, error when unknown or unchecked: the run proved nothing)
// and one case per anomaly kind (failure when it occurred and counts
// against validity; an uncounted occurrence passes with a note).
func renderJUnit(v *view) ([]byte, error) {
	// The run id is in the class name so that the runs of a matrix, all
	// of one scenario, stay apart in a CI test view.
	class := "kchaos." + v.Name + "." + v.RunID
	s := junitSuite{Name: class, Time: strings.TrimSuffix(v.Duration, " s")}
	for _, st := range v.Settings {
		s.Properties = append(s.Properties, junitProperty{st.Name, st.Value})
	}
	s.Properties = append(s.Properties, refsProperties(v.Jira, v.Docs, v.Finding)...)
	byKind := map[string][]string{}
	var unkinded []string
	for _, e := range v.Explanations {
		if e.Kind == "" {
			unkinded = append(unkinded, e.Text)
		} else {
			byKind[e.Kind] = append(byKind[e.Kind], e.Text)
		}
	}
	verdict := junitCase{Name: "verdict", ClassName: class}
	allText := func() string {
		var all []string
		for _, c := range v.Counts {
			all = append(all, byKind[c.Kind]...)
		}
		return strings.Join(append(all, unkinded...), "\n")
	}
	switch v.Verdict {
	case Invalid:
		verdict.Failure = &junitProblem{Message: "invalid: " + v.Summary, Type: "invalid", Text: allText()}
	case Unknown, Unchecked:
		verdict.Error = &junitProblem{Message: string(v.Verdict) + ": " + v.Summary, Type: string(v.Verdict),
			Text: strings.Join(append(v.Problems, allText()), "\n")}
	default:
		verdict.SystemOut = string(v.Verdict) + ": " + v.Summary
	}
	s.Cases = append(s.Cases, verdict)
	for _, c := range v.Counts {
		tc := junitCase{Name: c.Kind, ClassName: class}
		text := strings.Join(byKind[c.Kind], "\n")
		if extra := rangesText(v, c.Kind); extra != "" {
			text = strings.TrimSpace(extra + "\n" + text)
		}
		switch {
		case c.N > 0 && c.Counted:
			tc.Failure = &junitProblem{Message: fmt.Sprintf("%d %s", c.N, c.Kind), Type: c.Kind, Text: text}
		case c.N > 0:
			tc.SystemOut = fmt.Sprintf("%d %s, not counted against validity for this run\n%s", c.N, c.Kind, text)
		}
		s.Cases = append(s.Cases, tc)
	}
	s.Tests = len(s.Cases)
	for _, tc := range s.Cases {
		if tc.Failure != nil {
			s.Failures++
		}
		if tc.Error != nil {
			s.Errors++
		}
	}
	out, err := xml.MarshalIndent(junitSuites{Name: "kchaos", Suites: []junitSuite{s}}, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), append(out, '\n')...), nil
}

// rangesText lists the lost or reused offset ranges of a kind.
func rangesText(v *view, kind string) string {
	var rows []rangeRow
	switch kind {
	case "lost-write":
		rows = v.Lost
	case "offset-reuse":
		rows = v.Reused
	}
	var lines []string
	for _, r := range rows {
		lines = append(lines, fmt.Sprintf("%s offsets %s", r.TP, r.Ranges))
	}
	return strings.Join(lines, "\n")
}
