package checker

import (
	"bytes"
	"io"
	"os/exec"
	"testing"
	"time"
)

// BenchmarkCheckVsPython checks the 1M-op history of BenchmarkCheck1M and,
// in the same run, times a bare python3 json.loads loop over the same file
// (skipped without python3). It reports both in seconds: the target is a
// check no slower than the loop. BenchmarkCheckCommandVsPython (package
// report, which may import the checker but not the other way round)
// times what `kchaos check` runs on the same history, the report
// included, against the same loop.
func BenchmarkCheckVsPython(b *testing.B) {
	py, err := exec.LookPath("python3")
	if err != nil {
		b.Skip("no python3")
	}
	path := synth1M(b)
	script := "import json,sys\nfor l in open(sys.argv[1]):\n    json.loads(l)\n"
	b.ResetTimer()
	var goS, pyS float64
	for range b.N {
		start := time.Now()
		if _, _, err := CheckPath(path, Options{}); err != nil {
			b.Fatal(err)
		}
		goS += time.Since(start).Seconds()
		start = time.Now()
		if out, err := exec.Command(py, "-c", script, path).CombinedOutput(); err != nil {
			b.Fatalf("python3: %v: %s", err, out)
		}
		pyS += time.Since(start).Seconds()
	}
	b.ReportMetric(goS/float64(b.N), "check-s")
	b.ReportMetric(pyS/float64(b.N), "python-json-s")
}

// BenchmarkHostile times the hostile shapes of TestHostileShapes,
// TestHostileVanished (values a poll saw that the final reads lack: lost,
// at one offset, at many, and lacked by many final reads) and
// TestTxnManySends (target 2 s each).
func BenchmarkHostile(b *testing.B) {
	for _, c := range []struct {
		name  string
		write func(io.Writer)
	}{
		{"sparse-2^26", hostileSparse},
		{"40000-values-one-offset", func(w io.Writer) { hostileOneOffset(w, 40000) }},
		{"one-value-40000-offsets", func(w io.Writer) { hostileOneValue(w, 40000) }},
		{"vanished-40000-values-one-offset", func(w io.Writer) { hostileVanishedOneOffset(w, 40000) }},
		{"vanished-40000-values-40000-offsets", func(w io.Writer) { hostileVanishedOffsets(w, 40000, 1) }},
		{"vanished-40000-values-200-offsets", func(w io.Writer) { hostileVanishedOffsets(w, 40000, 200) }},
		{"vanished-40000-values-10000-final-reads", func(w io.Writer) { hostileVanishedFinals(w, 40000, 10000) }},
		{"txn-40000-sends", func(w io.Writer) { io.WriteString(w, lines2hist(txnManySends(40000, "")...)) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			var buf bytes.Buffer
			c.write(&buf)
			b.ResetTimer()
			for range b.N {
				if _, err := checkReader(bytes.NewReader(buf.Bytes()), Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
