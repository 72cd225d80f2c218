package report

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func writtenRun(t *testing.T, unclean bool) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "s2", "20260101T000000")
	s2Run(t, dir, unclean)
	if err := Write(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestWriteShowsTheEvidence(t *testing.T) {
	dir := writtenRun(t, true)
	files := map[string]string{}
	for _, f := range []string{ReportMD, ReportHTML, JUnitFile} {
		files[f] = readString(t, filepath.Join(dir, f))
	}
	tests := []struct {
		file, want, why string
	}{
		{ReportMD, "**Verdict: INVALID**", "verdict"},
		{ReportMD, "orders-0 offsets 10-12 (3 offsets)", "lost range from the lost-write entries"},
		{ReportMD, "| acks | all | producer |", "acks"},
		{ReportMD, "| min.insync.replicas | 1 | broker config |", "broker-level min.insync from run.json's broker configs"},
		{ReportMD, "| unclean.leader.election.enable | true | live change (set-config) at 5.0 s |", "live change as a change"},
		{ReportMD, "| unclean.leader.election.enable | true | topic config |", "unclean"},
		{ReportMD, "| Eligible Leader Replicas (ELR) | off |", "ELR"},
		{ReportMD, "| Kafka version | 4.1.2 |", "Kafka version"},
		{ReportMD, "| lost-write | 3 | yes |", "counts"},
		{ReportMD, "| duplicate | 0 | no |", "uncounted kind for a non-idempotent producer"},
		{ReportMD, "broker 1 became leader at epoch 1 by unclean election at 5.5 s", "explanation sentence"},
		{ReportMD, "| orders-0 | 3.2 s | 5.5 s | 2.3 | no leader |", "offline window from the checker"},
		{ReportMD, "| NOT_LEADER_OR_FOLLOWER | 1 | 0 |", "errors by code"},
		{ReportMD, "replica.lag.time.max.ms: 30000 replaced by 3000 (fast ISR shrink)", "override with values"},
		{ReportMD, "- listeners\n", "override given as a bare key"},
		{ReportMD, "| orders-0 | illegal | 21 | 1 | 1 | [linearizability-orders-0.html](linearizability-orders-0.html) |", "porcupine result and link"},
		{ReportMD, "- orders-0: offsets 10-12 have no linearization\n", "why the partition has no linearization"},
		{ReportHTML, "<p>orders-0: offsets 10-12 have no linearization</p>", "why, on the page"},
		{ReportMD, "- 3 lost-write: acked sends missing from the final read\n", "the checker's reasons"},
		{ReportMD, "[logs/broker-0.log](logs/broker-0.log)", "log link"},
		{ReportMD, "set-config; unclean.leader.election.enable=true", "live config change listed with the faults"},
		{ReportMD, "- orders-0: epoch 0 from offset 0, epoch 1 from offset 10\n", "divergence offset from the final read's epochs"},
		{ReportHTML, "final log: leader epoch 1 from offset 10", "epoch line on the offset plot"},
		{ReportHTML, `class="verdict v-invalid"`, "verdict badge"},
		{ReportHTML, "Acked records lost: orders-0 offsets 10-12 (3)", "lost range"},
		{ReportHTML, `<a href="linearizability-orders-0.html">`, "porcupine link"},
		{ReportHTML, `<a href="logs/broker-0.log">`, "log link"},
		{ReportHTML, "ISR [0] from 2.0 s to 5.5 s", "ISR lane tooltip"},
		{ReportHTML, "leader none from 3.2 s to 5.5 s", "offline leader lane"},
		{ReportHTML, "leader epoch 1 from 5.5 s", "epoch lane"},
		{ReportHTML, "https://kafka.apache.org/documentation/#design_uncleanleader", "a URL in the checker's text is kept as text"},
		{JUnitFile, `<failure message="3 lost-write" type="lost-write">`, "failing case per anomaly kind"},
		{JUnitFile, "orders-0 offsets 10-12\norders-0 offsets 10-12: 3 acked records lost", "failure carries ranges and explanation"},
		{JUnitFile, `<testcase name="verdict" classname="kchaos.s2.20260101T000000">`, "verdict case"},
	}
	for _, tc := range tests {
		if !strings.Contains(files[tc.file], tc.want) {
			t.Errorf("%s lacks %s: %q", tc.file, tc.why, tc.want)
		}
	}
}

// The lost sends (acked at 2.2-2.4 s) and the new sends at their offsets
// (acked after 7.7 s) fall in different bins, so the page has separate red
// and orange marks, each saying how many sends it covers.
func TestOffsetPlotMarksLostAndReused(t *testing.T) {
	page := readString(t, filepath.Join(writtenRun(t, true), ReportHTML))
	count := func(re string) int { return len(regexp.MustCompile(re).FindAllString(page, -1)) }
	lost := count(`class="lost"><title>\d+ lost acked send\(s\), offsets? 1[0-2]`)
	reused := count(`class="reused"><title>\d+ reused acked send\(s\), offsets? 1[0-2]`)
	if lost == 0 || reused == 0 {
		t.Fatalf("lost marks %d, reused marks %d: want both", lost, reused)
	}
	sum := 0
	for _, m := range regexp.MustCompile(`class="lost"><title>(\d+) lost`).FindAllStringSubmatch(page, -1) {
		sum += atoi(t, m[1])
	}
	if sum != 3 {
		t.Errorf("lost marks cover %d sends, want 3", sum)
	}
	clean := readString(t, filepath.Join(writtenRun(t, false), ReportHTML))
	if strings.Contains(clean, `class="lost"`) || strings.Contains(clean, `class="reused"`) {
		t.Error("a run without loss has lost or reused marks")
	}
}

func atoi(t *testing.T, s string) int {
	var n int
	if err := json.Unmarshal([]byte(s), &n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestTimelineHasABandPerFault(t *testing.T) {
	tests := []struct {
		unclean bool
		bands   int // partition and kill, plus set-config when unclean
	}{{false, 2}, {true, 3}}
	for _, tc := range tests {
		page := readString(t, filepath.Join(writtenRun(t, tc.unclean), ReportHTML))
		if got := strings.Count(page, `class="fault-band"`); got != tc.bands {
			t.Errorf("unclean=%v: %d fault bands, want %d", tc.unclean, got, tc.bands)
		}
	}
}

var externalRef = regexp.MustCompile(`(?i)(?:\b(?:src|href|action|xlink:href)\s*=\s*["']?\s*(?:https?:)?//)|url\(\s*["']?\s*(?:https?:)?//|@import|<link\b|<script\b[^>]*\bsrc=`)

// The page must work offline: nothing it loads may come from a URL. A URL
// in the checker's text is fine (it is only shown).
func TestHTMLHasNoExternalReferences(t *testing.T) {
	page := readString(t, filepath.Join(writtenRun(t, true), ReportHTML))
	if m := externalRef.FindString(page); m != "" {
		t.Errorf("report.html refers outside the run folder: %q", m)
	}
	for _, bad := range []string{`<a href="https://kafka`, `<img`} {
		if strings.Contains(page, bad) {
			t.Errorf("report.html has %q", bad)
		}
	}
	// The detector itself must catch the forms it claims to.
	for _, s := range []string{`<img src="https://x/y.png">`, `<link rel=stylesheet href="x.css">`,
		`background:url( "//cdn/x.png")`, `<script src="a.js"></script>`, `<a href='http://x'>`} {
		if !externalRef.MatchString(s) {
			t.Errorf("detector misses %q", s)
		}
	}
}

func TestJUnitByVerdict(t *testing.T) {
	tests := []struct {
		name              string
		mutate            func(dir string)
		failures, errors  int
		verdictHasProblem bool
	}{
		{"invalid", func(string) {}, 3, 0, true}, // verdict, lost-write, offset-reuse
		{"valid", func(dir string) {
			writeJSON(t, filepath.Join(dir, ResultsFile), map[string]any{"valid": true, "counts": map[string]int{"duplicate": 2}})
		}, 0, 0, false},
		{"unknown", func(dir string) {
			writeJSON(t, filepath.Join(dir, ResultsFile), map[string]any{"valid": "unknown", "counts": map[string]int{"unseen": 4}})
		}, 0, 1, true},
		{"unchecked", func(dir string) { os.Remove(filepath.Join(dir, ResultsFile)) }, 0, 1, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s2Run(t, dir, true)
			tc.mutate(dir)
			if err := Write(dir); err != nil {
				t.Fatal(err)
			}
			var js junitSuites
			if err := xml.Unmarshal([]byte(readString(t, filepath.Join(dir, JUnitFile))), &js); err != nil {
				t.Fatal(err)
			}
			s := js.Suites[0]
			if s.Failures != tc.failures || s.Errors != tc.errors {
				t.Errorf("failures %d errors %d, want %d %d", s.Failures, s.Errors, tc.failures, tc.errors)
			}
			v := s.Cases[0]
			if v.Name != "verdict" || (v.Failure != nil || v.Error != nil) != tc.verdictHasProblem {
				t.Errorf("verdict case %+v", v)
			}
			if tc.name != "unchecked" && s.Tests != 1+len(anomalyOrder) {
				t.Errorf("%d cases, want the verdict and one per anomaly kind", s.Tests)
			}
		})
	}
}

// A crashed run (torn history, no results.json) still gets a report that
// says what is missing instead of no report at all.
func TestWriteOnADamagedRun(t *testing.T) {
	dir := t.TempDir()
	s2Run(t, dir, false)
	os.Remove(filepath.Join(dir, ResultsFile))
	os.Remove(filepath.Join(dir, "run.json"))
	f, _ := os.OpenFile(filepath.Join(dir, HistoryFile), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"index":999,"time":1`)
	f.Close()
	if err := Write(dir); err != nil {
		t.Fatal(err)
	}
	md := readString(t, filepath.Join(dir, ReportMD))
	for _, want := range []string{"**Verdict: UNCHECKED**", "the last line was torn", "results.json:",
		"| run.json | missing: acks, ELR, Kafka version and configs unknown |",
		"| min.insync.replicas | unknown |", "| unclean.leader.election.enable | unknown |",
		"Source: observer: no leader observed", "| orders-0 | 3.2 s | 7.6 s | 4.4 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	if err := Write(filepath.Join(dir, "nope")); err == nil {
		t.Error("Write on a missing folder succeeded")
	}
}
