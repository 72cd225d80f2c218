package checker

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// maxFuzzInput bounds what the fuzz targets check: past it an exec would
// take long enough (the real histories take a second each) that a minute
// of fuzzing tries a few dozen inputs and finds nothing. The checker's
// behaviour on large histories is what the scale tests and benchmarks pin.
const maxFuzzInput = 16 << 10

// addTestdata seeds a fuzz corpus with the testdata histories small enough
// to fuzz (the hand-made ones, not the real runs).
func addTestdata(f *testing.F, each func([]byte)) {
	paths, _ := filepath.Glob(filepath.Join(testdataDir, "*.jsonl"))
	sub, _ := filepath.Glob(filepath.Join(testdataDir, "*", HistoryFile))
	n := 0
	for _, p := range append(paths, sub...) {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		if len(b) <= maxFuzzInput {
			each(b)
			n++
		}
	}
	if n < 15 {
		f.Fatalf("only %d small testdata histories to seed with", n)
	}
}

// FuzzCheck: the reader and the checker never panic, whatever the input,
// and hold the invariants of holdsInvariants on what they accept.
func FuzzCheck(f *testing.F) {
	addTestdata(f, func(b []byte) { f.Add(b) })
	var buf bytes.Buffer
	writeSynth(&buf, synthConfig{Ops: 40, Partitions: 2, Workers: 4, Seed: 9, InfoRate: 0.1, FailRate: 0.1})
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzInput {
			return
		}
		holdsInvariants(t, data)
	})
}
