package checker

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kchaos/kchaos/histories"
)

func synthResult(t *testing.T, cfg synthConfig, opts Options) *Result {
	t.Helper()
	var buf bytes.Buffer
	writeSynth(&buf, cfg)
	res, err := checkReader(&buf, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestSynthValid: generated histories of a correct Kafka pass, whole and in
// windows, with infos and fails mixed in.
func TestSynthValid(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  synthConfig
		opts Options
	}{
		{"small whole", synthConfig{Ops: 3000, Partitions: 3, Workers: 8, Seed: 1, InfoRate: 0.02, FailRate: 0.02}, Options{}},
		{"windowed", synthConfig{Ops: 12000, Partitions: 2, Workers: 12, Seed: 2, InfoRate: 0.01, FailRate: 0.01}, Options{Window: 128}},
		{"one worker per partition", synthConfig{Ops: 2000, Partitions: 1, Workers: 4, Seed: 3}, Options{}},
		// The scenarios' shape: one partition, every producer on it. Without
		// the model's pruning porcupine takes minutes on this.
		{"sixteen workers on one partition", synthConfig{Ops: 30000, Partitions: 1, Workers: 16, Seed: 6, InfoRate: 0.01, FailRate: 0.01}, Options{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := synthResult(t, c.cfg, c.opts)
			if res.Valid != Valid || res.Linearizable.Result != "ok" || len(res.Counts) != 0 {
				t.Fatalf("valid %v, linearizable %s, counts %v, reasons %v", res.Valid, res.Linearizable.Result, res.Counts, res.Reasons)
			}
			if res.Stats.Sends.OK == 0 || len(res.Stats.Partitions) != c.cfg.Partitions {
				t.Errorf("stats: %+v", res.Stats.Sends)
			}
		})
	}
}

// TestSynthLoss: records cut from the tail of a partition's final read are
// lost writes, explained as one range, and porcupine fails the window that
// holds them, with a visualization.
func TestSynthLoss(t *testing.T) {
	dir := t.TempDir()
	res := synthResult(t, synthConfig{Ops: 12000, Partitions: 2, Workers: 12, Seed: 4, LoseTail: 7},
		Options{Window: 256, VisualizeDir: dir})
	if res.Valid != Invalid || res.Counts[LostWrite] != 7 || res.Counts[Nonlinearizable] != 1 {
		t.Fatalf("valid %v counts %v", res.Valid, res.Counts)
	}
	if len(res.Explanations) != 1 || !strings.HasPrefix(res.Explanations[0].Text, "t-0 offsets ") ||
		!strings.Contains(res.Explanations[0].Text, "7 acked records lost") {
		t.Errorf("explanations: %+v", res.Explanations)
	}
	lp := res.Linearizable.Partitions["t-0"]
	if lp == nil || lp.Result != "illegal" || len(lp.Illegal) != 1 || res.Linearizable.Partitions["t-1"].Result != "ok" {
		t.Fatalf("linearizable: %+v", res.Linearizable)
	}
	if w := lp.Illegal[0]; w.LastOffset < res.Explanations[0].LastOffset || w.FirstOffset > res.Explanations[0].FirstOffset {
		t.Errorf("illegal window %+v does not hold the lost range", w)
	}
	if _, err := os.Stat(filepath.Join(dir, lp.Visualization)); lp.Visualization == "" || err != nil {
		t.Errorf("visualization %q: %v", lp.Visualization, err)
	}
}

// TestCheckAndCheckReaderAgree: the in-memory and streaming entry points
// give the same results.json.
func TestCheckAndCheckReaderAgree(t *testing.T) {
	var buf bytes.Buffer
	writeSynth(&buf, synthConfig{Ops: 1500, Partitions: 2, Workers: 8, Seed: 5, InfoRate: 0.05, FailRate: 0.05, LoseTail: 2})
	events, _, err := histories.ReadAll(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	a, err := checkEvents(events, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := checkReader(&buf, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if !bytes.Equal(ja, jb) {
		t.Errorf("Check and CheckReader differ:\n%s\n%s", ja, jb)
	}
}

func TestResultJSON(t *testing.T) {
	for _, c := range []struct {
		file  string
		valid string
		keys  []string
		none  []string
	}{
		{"valid.jsonl", "true", []string{"valid", "stats", "linearizable"}, []string{"anomalies", "counts", "reasons", "explanations"}},
		{"lost-write.jsonl", "false", []string{"valid", "anomalies", "counts", "stats", "explanations"}, nil},
		{"unseen.jsonl", `"unknown"`, []string{"valid", "anomalies", "counts", "reasons"}, []string{"explanations"}},
	} {
		f, err := os.Open(filepath.Join(testdataDir, c.file))
		if err != nil {
			t.Fatal(err)
		}
		res, err := checkReader(f, Options{})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if string(m["valid"]) != c.valid {
			t.Errorf("%s: valid %s, want %s", c.file, m["valid"], c.valid)
		}
		for _, k := range c.keys {
			if _, ok := m[k]; !ok {
				t.Errorf("%s: no %q in %s", c.file, k, b)
			}
		}
		for _, k := range c.none {
			if _, ok := m[k]; ok {
				t.Errorf("%s: %q present though empty: %s", c.file, k, m[k])
			}
		}
		var back struct {
			Valid Verdict `json:"valid"`
		}
		if err := json.Unmarshal(b, &back); err != nil || back.Valid != res.Valid {
			t.Errorf("%s: valid does not round-trip: %v %v", c.file, back.Valid, err)
		}
	}
}

// TestOperationModelErrors: events that break the operation model or the
// value shapes are bad input naming their line.
func TestOperationModelErrors(t *testing.T) {
	send := `{"topic":"t","partition":0,"value":"a"}`
	line := func(i int, p int, typ, f, v string) string {
		s := `{"index":` + itoa(i) + `,"time":` + itoa(i) + `,"process":` + itoa(p) + `,"type":"` + typ + `","f":"` + f + `"`
		if v != "" {
			s += `,"value":` + v
		}
		return s + "}\n"
	}
	for _, c := range []struct {
		name, history string
		line          int
	}{
		{"completion without invoke", line(0, 0, "ok", "send", send), 1},
		{"double invoke", line(0, 0, "invoke", "send", send) + line(1, 0, "invoke", "send", send), 2},
		{"other f", line(0, 0, "invoke", "send", send) + line(1, 0, "ok", "poll", `{"topic":"t","records":[]}`), 2},
		{"invoke after info", line(0, 0, "invoke", "send", send) + line(1, 0, "info", "send", send) + line(2, 0, "invoke", "send", send), 3},
		{"bad send value", line(0, 0, "invoke", "send", `{"partition":"x"}`), 1},
		{"bad records", line(0, 1, "invoke", "poll", `{}`) + line(1, 1, "ok", "poll", `{"records":[{"offset":"x"}]}`), 2},
		{"negative offset", line(0, 0, "invoke", "send", send) + line(1, 0, "ok", "send", `{"topic":"t","partition":0,"value":"a","offset":-1}`), 2},
		{"malformed line", line(0, 0, "invoke", "send", send) + "{oops}\n", 2},
	} {
		_, err := checkReader(strings.NewReader(c.history), Options{})
		var le *histories.LineError
		if !errors.As(err, &le) || le.Line != c.line {
			t.Errorf("%s: error %v, want a LineError at line %d", c.name, err, c.line)
		}
	}
}

// TestPorcupineTimeoutIsUnknown: a linearizability check that runs out of
// time gives "unknown", never a pass.
func TestPorcupineTimeoutIsUnknown(t *testing.T) {
	f, err := os.Open(filepath.Join(testdataDir, "valid.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := checkReader(f, Options{PorcupineTimeout: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Valid != Unknown || res.Linearizable.Result != "unknown" ||
		!strings.Contains(strings.Join(res.Reasons, ";"), "ran out of time") {
		t.Errorf("valid %v, linearizable %s, reasons %v", res.Valid, res.Linearizable.Result, res.Reasons)
	}
}

func TestTimeGoingBackIsBadInput(t *testing.T) {
	h := `{"index":0,"time":50,"process":0,"type":"invoke","f":"send","value":{"topic":"t","partition":0,"value":"a"}}
{"index":1,"time":40,"process":0,"type":"info","f":"send"}
`
	var le *histories.LineError
	if _, err := checkReader(strings.NewReader(h), Options{}); !errors.As(err, &le) || le.Line != 2 {
		t.Errorf("got %v, want a LineError at line 2", err)
	}
}
