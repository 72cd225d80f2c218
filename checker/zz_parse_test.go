package checker

import (
	"errors"
	"io"
	"os"
	"testing"
	"time"
	"runtime"

	"github.com/kchaos/kchaos/histories"
)

func TestParseSpeed(t *testing.T) {
	f, _ := os.Create("/tmp/scratch/h.jsonl")
	t0 := time.Now()
	n := writeSynth(f, synthConfig{Ops: 1000000, Partitions: 8, Workers: 16, Seed: 1, InfoRate: 0.002, FailRate: 0.003})
	f.Close()
	st, _ := os.Stat("/tmp/scratch/h.jsonl")
	t.Logf("gen %d lines %d MB in %v", n, st.Size()>>20, time.Since(t0))
	t0 = time.Now()
	f, _ = os.Open("/tmp/scratch/h.jsonl")
	rd := histories.NewReader(f)
	cnt := 0
	for {
		e, err := rd.Next()
		if errors.Is(err, io.EOF) { break }
		if err != nil { t.Fatal(err) }
		switch e.F {
		case "send":
			var v histories.SendValue
			e.Decode(&v)
		case "poll", "final-read":
			if e.Type == histories.OK {
				var v histories.ReadResult
				e.Decode(&v)
			}
		}
		cnt++
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("read %d events in %v, total alloc %d MB", cnt, time.Since(t0), ms.TotalAlloc>>20)
}
