package checker

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/checker/logorder"
	"github.com/kchaos/kchaos/checker/txncheck"
)

// expectation is a testdata history's NAME.expected.json.
type expectation struct {
	Valid              Verdict        `json:"valid"`
	Counts             map[string]int `json:"counts"`
	Linearizable       string         `json:"linearizable"`
	Texts              []string       `json:"texts"`
	ReclassifiedAsInfo int            `json:"reclassified_as_info"`
	// Reasons must each be among the verdict's reasons (the notes and
	// unknowns that explain a verdict beyond its anomalies).
	Reasons []string `json:"reasons"`
}

type testdataCase struct {
	name, path, expected string
	folder               bool // a run folder, checked through CheckPath
}

const testdataDir = "../histories/testdata"

func testdataCases(t *testing.T) []testdataCase {
	t.Helper()
	entries, err := os.ReadDir(testdataDir)
	if err != nil {
		t.Fatal(err)
	}
	var out []testdataCase
	for _, e := range entries {
		p := filepath.Join(testdataDir, e.Name())
		switch {
		case e.IsDir():
			if _, err := os.Stat(filepath.Join(p, HistoryFile)); err == nil {
				out = append(out, testdataCase{e.Name(), p, filepath.Join(p, "expected.json"), true})
			}
		case strings.HasSuffix(e.Name(), ".jsonl"):
			name := strings.TrimSuffix(e.Name(), ".jsonl")
			out = append(out, testdataCase{name, p, filepath.Join(testdataDir, name+".expected.json"), false})
		}
	}
	if len(out) < 15 {
		t.Fatalf("only %d testdata histories in %s", len(out), testdataDir)
	}
	return out
}

// TestTestdata checks every hand-made history against its expected
// verdict, exact counts, linearizability result and explanation texts.
func TestTestdata(t *testing.T) {
	for _, tc := range testdataCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			var want expectation
			b, err := os.ReadFile(tc.expected)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &want); err != nil {
				t.Fatalf("%s: %v", tc.expected, err)
			}
			res := checkCase(t, tc)
			if res.Valid != want.Valid {
				t.Errorf("valid = %v, want %v; reasons %q", res.Valid, want.Valid, res.Reasons)
			}
			if got := res.Counts; !maps.Equal(got, want.Counts) {
				t.Errorf("counts = %v, want %v", got, want.Counts)
			}
			if res.Linearizable == nil || res.Linearizable.Result != want.Linearizable {
				t.Errorf("linearizable = %+v, want %s", res.Linearizable, want.Linearizable)
			}
			var texts []string
			for _, e := range res.Explanations {
				texts = append(texts, e.Text)
			}
			for _, w := range want.Texts {
				if !slices.Contains(texts, w) {
					t.Errorf("no explanation\n  %s\namong\n  %s", w, strings.Join(texts, "\n  "))
				}
			}
			for _, w := range want.Reasons {
				if !slices.Contains(res.Reasons, w) {
					t.Errorf("no reason\n  %s\namong\n  %s", w, strings.Join(res.Reasons, "\n  "))
				}
			}
			if res.Stats.Sends.ReclassifiedAsInfo != want.ReclassifiedAsInfo {
				t.Errorf("reclassified = %d, want %d", res.Stats.Sends.ReclassifiedAsInfo, want.ReclassifiedAsInfo)
			}
			checkEntriesNamed(t, res)
		})
	}
}

func checkCase(t *testing.T, tc testdataCase) *Result {
	t.Helper()
	if tc.folder {
		dir := t.TempDir()
		for _, f := range []string{HistoryFile, "run.json"} {
			b, err := os.ReadFile(filepath.Join(tc.path, f))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		res, out, err := CheckPath(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if out != filepath.Join(dir, ResultsFile) {
			t.Errorf("results written to %s", out)
		}
		return res
	}
	f, err := os.Open(tc.path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := checkReader(f, Options{VisualizeDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// checkEntriesNamed: every anomaly entry names its records and offsets.
func checkEntriesNamed(t *testing.T, r *Result) {
	t.Helper()
	a := &r.Anomalies
	for _, e := range a.LostWrite {
		if e.Value == "" || e.Topic == "" {
			t.Errorf("lost-write entry without value: %+v", e)
		}
	}
	for _, e := range a.OffsetReuse {
		if len(e.Values) < 2 || e.Values[0].Value == "" || len(e.Values[0].Sources) == 0 {
			t.Errorf("offset-reuse entry without values or sources: %+v", e)
		}
	}
	for _, list := range [][]logorder.ValueEntry{a.Duplicate, a.AbortedRead, a.Unexpected} {
		for _, e := range list {
			if e.Value == "" || len(e.Offsets) == 0 {
				t.Errorf("entry without value or offsets: %+v", e)
			}
		}
	}
	for _, e := range append(append([]logorder.PollEntry(nil), a.PollSkip...), a.NonmonotonicPoll...) {
		if e.Value == "" || e.PrevValue == "" {
			t.Errorf("poll entry without values: %+v", e)
		}
	}
	for _, list := range [][]txncheck.TxnValueEntry{a.TxnAbortedRead, a.TxnUncommittedRead, a.TxnDuplicate} {
		for _, e := range list {
			if e.Value == "" || len(e.Offsets) == 0 || e.Txn.TransactionalID == "" || e.Text == "" {
				t.Errorf("txn entry without value, offsets, txn or text: %+v", e)
			}
		}
	}
	for _, e := range a.TxnLostWrite {
		if e.Value == "" || e.Txn.TransactionalID == "" || e.Text == "" {
			t.Errorf("txn-lost-write entry without value, txn or text: %+v", e)
		}
	}
	for _, e := range a.LostByCommit {
		if e.Group == "" || e.Count == 0 || len(e.Values) == 0 || e.Commit.Offset <= e.LastOffset || e.Text == "" {
			t.Errorf("lost-by-commit entry without group, records, covering commit or text: %+v", e)
		}
	}
	for _, e := range a.CommitBackwards {
		if e.Group == "" || e.By <= 0 || len(e.Causes) == 0 || e.Text == "" {
			t.Errorf("commit-backwards entry without group, amount, causes or text: %+v", e)
		}
	}
	for _, e := range a.Redelivery {
		if e.Group == "" || e.Count == 0 || e.Cause == "" || e.Text == "" {
			t.Errorf("redelivery entry without group, records, cause or text: %+v", e)
		}
	}
	for _, e := range a.TxnTorn {
		if len(e.Partitions) == 0 || e.Txn.TransactionalID == "" || e.Text == "" {
			t.Errorf("txn-torn entry without partitions, txn or text: %+v", e)
		}
	}
	for _, e := range append(append([]txncheck.CycleEntry(nil), a.G0...), a.G1c...) {
		if len(e.Txns) < 2 || len(e.Steps) != len(e.Txns) || e.Text == "" {
			t.Errorf("cycle entry without txns, steps or text: %+v", e)
		}
		for _, s := range e.Steps {
			if len(s.Values) == 0 || len(s.Offsets) != len(s.Values) {
				t.Errorf("cycle step without values and offsets: %+v", s)
			}
		}
	}
	for _, e := range a.Nonlinearizable {
		if len(e.Windows) == 0 {
			t.Errorf("nonlinearizable entry without windows: %+v", e)
		}
	}
}

// TestTestdataCoversEveryAnomaly: the corpus has a history for each
// anomaly name and for each thing that must not be flagged.
func TestTestdataCoversEveryAnomaly(t *testing.T) {
	seen := map[string]bool{}
	names := map[string]bool{}
	for _, tc := range testdataCases(t) {
		names[tc.name] = true
		b, err := os.ReadFile(tc.expected)
		if err != nil {
			t.Fatal(err)
		}
		var want expectation
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		for k := range want.Counts {
			seen[k] = true
		}
	}
	for _, n := range AnomalyNames {
		if !seen[n] {
			t.Errorf("no testdata history finds %s", n)
		}
	}
	for _, n := range []string{"info-missing", "nera-present", "acks0", "assign", "txn-valid"} {
		if !names[n] {
			t.Errorf("no testdata history %s", n)
		}
	}
}
