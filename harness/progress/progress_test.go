package progress

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kchaos/kchaos/workloads"
)

func TestLine(t *testing.T) {
	st := workloads.Stats{Elapsed: 12300 * time.Millisecond, OpsPerSec: 1204.4, Acked: 48122, Failed: 10, Indeterminate: 2,
		Errors: map[string]int64{"NOT_ENOUGH_REPLICAS": 10, "timeout": 2}}
	txn := workloads.Stats{Elapsed: 5 * time.Second, OpsPerSec: 40, Txns: 200, TxnCommitted: 150, TxnAborted: 48, TxnUnknown: 1,
		TxnCrashes: 3, TxnFenced: 3, Errors: map[string]int64{"PRODUCER_FENCED": 3}}
	for _, c := range []struct {
		e    Event
		want string
	}{
		{Event{Phase: Cluster, Text: "ready in 15.2 s"}, "cluster: ready in 15.2 s"},
		{Event{Phase: Workload, Stats: &st}, "workload: 12s, 1,204 ops/s, acked 48,122, failed 10, indeterminate 2; errors NOT_ENOUGH_REPLICAS 10, timeout 2"},
		{Event{Phase: Workload, Stats: &txn}, "workload: 5s, 40 ops/s, transactions committed 150, aborted 48, unknown 1 (crashes 3, fenced 3); errors PRODUCER_FENCED 3"},
		{Event{Phase: Nemesis, Step: 3, Steps: 8, Text: "kill: injected on nodes [0]"}, "nemesis step 3 of 8: kill: injected on nodes [0]"},
		{Event{Phase: Heal}, "heal"},
	} {
		if got := c.e.line(); got != c.want {
			t.Errorf("Line() = %q, want %q", got, c.want)
		}
	}
}

func TestReadable(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{map[string]any{"shape": "leader-followers", "groups": [][]int32{{0}, {1, 2}}}, "{groups: [[0] [1 2]], shape: leader-followers}"},
		{[]int32{0, 2}, "[0 2]"},
		{1500 * time.Microsecond, "2ms"},
		{nil, "-"},
		{struct{ Node, skip int }{Node: 3}, "{node: 3}"},
	} {
		if got := Readable(c.v); got != c.want {
			t.Errorf("Readable(%#v) = %q, want %q", c.v, got, c.want)
		}
		if strings.Contains(Readable(c.v), "map[") {
			t.Errorf("Readable(%#v) uses Go map syntax", c.v)
		}
	}
}

func boolp(b bool) *bool { return &b }

// TestPrinter: plain lines off a terminal; in place on one (each finished
// phase keeps its line); JSON records; quiet shows no progress; log lines
// are readable and warnings show in normal mode.
func TestPrinter(t *testing.T) {
	events := []Event{
		{Phase: Cluster, Text: "starting"},
		{Phase: Cluster, Text: "ready", Done: true},
		{Phase: Workload, Text: "1 ops/s"},
		{Phase: Nemesis, Step: 1, Steps: 2, Text: "pause"},
		{Phase: Workload, Text: "2 ops/s"},
		{Phase: Nemesis, Text: "schedule done", Done: true},
		{Phase: Workload, Text: "done", Done: true},
	}
	for _, c := range []struct {
		name     string
		o        Options
		want     []string
		not      []string
		jsonRecs int
	}{
		{"plain", Options{Terminal: boolp(false)}, []string{"] cluster: starting\n", "] cluster: ready\n", "] nemesis step 1 of 2: pause\n", "warning: w: details {a: 1}\n"},
			[]string{"\x1b[", "info line"}, 0},
		{"terminal", Options{Terminal: boolp(true)}, []string{"\r\x1b[Kcluster: starting", "\r\x1b[Kcluster: ready\n", "\x1b[1A", "\x1b[Knemesis step 1 of 2: pause", "warning: w"}, nil, 0},
		{"quiet", Options{Verbosity: Quiet, Terminal: boolp(true)}, []string{"warning: w"}, []string{"cluster", "\x1b["}, 0},
		{"verbose", Options{Verbosity: Verbose, Terminal: boolp(true)}, []string{"] cluster: ready\n", "info line", "debug: dbg"}, []string{"\x1b["}, 0},
		{"json", Options{JSON: true}, []string{`"msg":"progress"`, `"phase":"nemesis"`, `"step":1`, `"msg":"info line"`}, []string{"\x1b["}, len(events) + 2},
	} {
		var b bytes.Buffer
		p := NewPrinter(&b, c.o)
		log := p.Logger()
		for i, e := range events {
			p.Event(e)
			if i == 2 {
				log.Warn("w", "details", map[string]any{"a": 1})
				log.Info("info line")
				log.Debug("dbg")
			}
		}
		p.Finish()
		out := b.String()
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: output lacks %q:\n%q", c.name, w, out)
			}
		}
		for _, n := range c.not {
			if strings.Contains(out, n) {
				t.Errorf("%s: output has %q:\n%q", c.name, n, out)
			}
		}
		if c.jsonRecs > 0 {
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if len(lines) != c.jsonRecs {
				t.Errorf("%s: %d lines, want %d", c.name, len(lines), c.jsonRecs)
			}
			for _, l := range lines {
				if !json.Valid([]byte(l)) {
					t.Errorf("%s: not JSON: %q", c.name, l)
				}
			}
		}
	}
}
