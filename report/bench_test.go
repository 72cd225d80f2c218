package report

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/kchaos/kchaos/checker"
	"github.com/kchaos/kchaos/checker/synth"
)

// BenchmarkCheckCommandVsPython runs what `kchaos check RUN` runs on the
// 1M-op history of the checker's BenchmarkCheckVsPython (which times the
// checker alone): the check with the report's Scan on its pass, results.json
// and the porcupine pages, then report.md, report.html and junit.xml from
// that pass. In the same run it times a bare python3 json.loads loop over
// the same file (skipped without python3), and reports both in seconds and
// their ratio: the target is a check at most half the loop (issue 36).
func BenchmarkCheckCommandVsPython(b *testing.B) {
	py, err := exec.LookPath("python3")
	if err != nil {
		b.Skip("no python3")
	}
	dir := b.TempDir()
	f, err := os.Create(filepath.Join(dir, HistoryFile))
	if err != nil {
		b.Fatal(err)
	}
	synth.Write(f, synth.Config{Ops: 1_000_000, Partitions: 8, Workers: 16, Seed: 1, InfoRate: 0.002, FailRate: 0.003})
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	script := "import json,sys\nfor l in open(sys.argv[1]):\n    json.loads(l)\n"
	b.ResetTimer()
	var goS, pyS float64
	for range b.N {
		start := time.Now()
		// As cmd/kchaos's check command: report.Check, then WriteScan.
		res, out, scan, err := Check(dir, checker.Options{PorcupineTimeout: checker.DefaultPorcupineTimeout})
		if err != nil {
			b.Fatal(err)
		}
		if res.Valid != checker.Valid {
			b.Fatalf("generated history judged %v: %v", res.Valid, res.Reasons)
		}
		if err := WriteScan(filepath.Dir(out), scan); err != nil {
			b.Fatal(err)
		}
		goS += time.Since(start).Seconds()
		start = time.Now()
		if out, err := exec.Command(py, "-c", script, filepath.Join(dir, HistoryFile)).CombinedOutput(); err != nil {
			b.Fatalf("python3: %v: %s", err, out)
		}
		pyS += time.Since(start).Seconds()
	}
	b.ReportMetric(goS/float64(b.N), "check-s")
	b.ReportMetric(pyS/float64(b.N), "python-json-s")
	b.ReportMetric(goS/pyS, "check/python")
}
