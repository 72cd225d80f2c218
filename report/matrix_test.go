package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The matrix of seed 001's story over unclean=false,true must show the
// trade-off: no loss but a longer offline window, against loss and offset
// reuse with a shorter one.
func TestMatrixFromRuns(t *testing.T) {
	store := t.TempDir()
	var rows []Row
	for _, unclean := range []string{"false", "true"} {
		dir := filepath.Join(store, "s2", "unclean-"+unclean)
		s2Run(t, dir, unclean == "true")
		row, err := rowFromRun(dir, map[string]string{"unclean": unclean, "run": "1", "acks": "all"})
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, row)
	}
	tests := []struct {
		row            int
		verdict        RunVerdict
		lost, reused   int
		offline        float64
		sendErrorCodes int
	}{
		{0, Valid, 0, 0, 4.4, 2},
		{1, Invalid, 3, 3, 2.3, 2},
	}
	for _, tc := range tests {
		r := rows[tc.row]
		if r.Verdict != tc.verdict || r.Lost != tc.lost || r.Reused != tc.reused ||
			len(r.SendErrors) != tc.sendErrorCodes || !near(r.Offline["orders-0"], tc.offline) {
			t.Errorf("row %d = %+v, want verdict %s lost %d reused %d offline %.1f", tc.row, r, tc.verdict, tc.lost, tc.reused, tc.offline)
		}
	}

	out := filepath.Join(store, "matrix")
	if err := MatrixBatch("s2", rows).Write(out); err != nil {
		t.Fatal(err)
	}
	md := readString(t, filepath.Join(out, "matrix.md"))
	for _, want := range []string{
		"| unclean | acks | run | verdict | acked lost | offsets reused | other anomalies | seconds offline | send errors | report |",
		"| false | all | 1 | valid | 0 | 0 | 0 | 4.4 | NOT_LEADER_OR_FOLLOWER 2, timeout 1 | [report](../s2/unclean-false/report.html) |",
		"| true | all | 1 | invalid | 3 | 3 | 0 | 2.3 | NOT_LEADER_OR_FOLLOWER 1, timeout 1 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("matrix.md lacks %q\n%s", want, md)
		}
	}
	var mf struct {
		Columns []string `json:"columns"`
		Rows    []Row    `json:"rows"`
	}
	if err := json.Unmarshal([]byte(readString(t, filepath.Join(out, "matrix.json"))), &mf); err != nil {
		t.Fatal(err)
	}
	if len(mf.Rows) != 2 || mf.Rows[1].Lost != 3 || mf.Rows[1].Verdict != Invalid || mf.Rows[0].RunDir != "../s2/unclean-false" {
		t.Errorf("matrix.json rows: %+v", mf.Rows)
	}
	html := readString(t, filepath.Join(out, "matrix.html"))
	if m := externalRef.FindString(html); m != "" {
		t.Errorf("matrix.html refers outside: %q", m)
	}
	if !strings.Contains(html, `<a href="../s2/unclean-true/report.html">`) {
		t.Error("matrix.html lacks the link to the run's report")
	}
}

// A run that crashed before results.json is still a row; without the
// checker's unavailability the observer's leaderless spans are used.
func TestRowFromIncompleteRuns(t *testing.T) {
	dir := t.TempDir()
	s2Run(t, dir, false)
	os.Remove(filepath.Join(dir, ResultsFile))
	row, err := rowFromRun(dir, map[string]string{"unclean": "false"})
	if err == nil || row.Verdict != Unchecked || row.Reason == "" {
		t.Errorf("no results.json: row %+v, err %v", row, err)
	}
	if _, ok := row.Offline["orders-0"]; !ok {
		t.Error("a failed run's row does not list the topic's partitions")
	}
	if md := string(MatrixBatch("s2", []Row{row}).markdown()); !strings.Contains(md, "| — | — | — | 0.0 | — |") {
		t.Errorf("an unchecked row shows counts as if measured:\n%s", md)
	}

	writeJSON(t, filepath.Join(dir, ResultsFile), map[string]any{"valid": true})
	row, err = rowFromRun(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !near(row.Offline["orders-0"], 4.4) || !strings.HasPrefix(row.OfflineSource, "observer") {
		t.Errorf("observer fallback: offline %v from %q", row.Offline, row.OfflineSource)
	}
	if row.SendErrors["NOT_LEADER_OR_FOLLOWER"] != 2 || row.SendErrors["timeout"] != 1 {
		t.Errorf("send errors from the history: %v", row.SendErrors)
	}

	row, err = rowFromRun(filepath.Join(dir, "missing"), map[string]string{"x": "1"})
	if err == nil || row.Reason == "" || row.Settings["x"] != "1" {
		t.Errorf("missing folder: %+v, %v", row, err)
	}
}

func TestMatrixColumns(t *testing.T) {
	rows := []Row{
		{Settings: map[string]string{"run": "1", "zeta": "a", "min.insync": "2", "unclean": "true"}},
		{Settings: map[string]string{"run": "2", "kafka": "4.1.2", "alpha": "b"}},
	}
	got := strings.Join(settingKeys(rows), ",")
	if want := "kafka,unclean,min.insync,alpha,zeta,run"; got != want {
		t.Errorf("columns %s, want %s", got, want)
	}
}

func near(a, b float64) bool { return a-b < 0.01 && b-a < 0.01 }

// TestReportColumn: a row's report column links the run's report, or,
// where the story never ran and so wrote none, its run folder; nothing
// without a folder.
func TestReportColumn(t *testing.T) {
	for _, c := range []struct {
		name       string
		row        Row
		text, html string
	}{
		{"ran", Row{RunDir: "../s1/r1"}, "[report](../s1/r1/report.html)", `<a href="../s1/r1/report.html">report</a>`},
		{"never ran", Row{RunDir: "../s1/r2", NotRun: true}, "[run folder](../s1/r2)", `<a href="../s1/r2">run folder</a>`},
		{"no folder", Row{NotRun: true}, "—", ""},
	} {
		if got := reportText(c.row); got != c.text {
			t.Errorf("%s: markdown %q, want %q", c.name, got, c.text)
		}
		if got := string(reportLink(c.row)); got != c.html {
			t.Errorf("%s: html %q, want %q", c.name, got, c.html)
		}
	}
}
