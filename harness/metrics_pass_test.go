package harness

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/kchaos/kchaos/checker"
	"github.com/kchaos/kchaos/report"
)

// TestMeasureFromCheckPass: a run measures its cell and writes its report
// from the check's pass over the history (one decode); the figures are
// those of a pass of their own over the folder (Metrics, MeasureRun, and
// report.Write for folders alone), for every recorded run folder.
func TestMeasureFromCheckPass(t *testing.T) {
	const testdata = "../histories/testdata"
	entries, err := os.ReadDir(testdata)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		src := filepath.Join(testdata, e.Name())
		if _, err := os.Stat(filepath.Join(src, report.HistoryFile)); !e.IsDir() || err != nil {
			continue
		}
		n++
		t.Run(e.Name(), func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range []string{report.HistoryFile, "run.json"} {
				if b, err := os.ReadFile(filepath.Join(src, f)); err == nil {
					if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			rp := newRunPass()
			if _, _, err := checker.CheckPath(dir, checker.Options{Pass: rp.p}); err != nil {
				t.Fatal(err)
			}
			if !rp.p.Finished() {
				t.Fatal("the check did not end its pass")
			}
			if err := report.WriteScan(dir, rp.report); err != nil {
				t.Fatal(err)
			}
			onePass := readOutputs(t, dir)
			row, m, err := measure(dir, rp)
			again, m2, err2 := measure(dir, nil)
			if !reflect.DeepEqual(row, again) || !reflect.DeepEqual(m, m2) || (err == nil) != (err2 == nil) {
				t.Errorf("from the check's pass:\n%+v\n%v\n%v\nread again:\n%+v\n%v\n%v", row, m, err, again, m2, err2)
			}
			if err := report.Write(dir); err != nil {
				t.Fatal(err)
			}
			if alone := readOutputs(t, dir); !reflect.DeepEqual(onePass, alone) {
				t.Errorf("report from the check's pass differs from report.Write's")
			}
		})
	}
	if n < 3 {
		t.Fatalf("only %d run folders in %s", n, testdata)
	}
}

func readOutputs(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range []string{report.ReportMD, report.ReportHTML, report.JUnitFile} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		out[f] = string(b)
	}
	return out
}
