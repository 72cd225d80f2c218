package checker

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/histories"
)

// TestBadInput (class 1): a line that lacks a field the format requires,
// contradicts its invoke or is impossible is bad input naming the line and
// the field; nothing is filled in with zeros.
func TestBadInput(t *testing.T) {
	okSend := send(0, 10, 20, 0, "a", "ok", 0)
	fin := func(rs string) []string {
		return []string{ev(30, 9, "invoke", "final-read", `{"topic":"t","partitions":[0]}`),
			ev(40, 9, "ok", "final-read", rs)}
	}
	for _, c := range []struct {
		name  string
		lines []string
		opts  Options
		line  int
		field string
	}{
		{"send invoke without value", one(ev(10, 0, "invoke", "send", `{"topic":"t","partition":0}`)), Options{}, 1, `"value"`},
		{"send invoke without topic", one(ev(10, 0, "invoke", "send", `{"partition":0,"value":"a"}`)), Options{}, 1, `"topic"`},
		{"send invoke without partition", one(ev(10, 0, "invoke", "send", `{"topic":"t","value":"a"}`)), Options{}, 1, `"partition"`},
		{"send invoke without any value", one(ev(10, 0, "invoke", "send", "")), Options{}, 1, `"value"`},
		{"event without process", one(`{"time":1,"type":"invoke","f":"send","value":{"topic":"t","partition":0,"value":"a"}}`), Options{}, 1, `"process"`},
		{"event without time", one(`{"process":0,"type":"invoke","f":"send","value":{"topic":"t","partition":0,"value":"a"}}`), Options{}, 1, `"time"`},
		{"event without type", one(`{"time":1,"process":0,"f":"send","value":{"topic":"t","partition":0,"value":"a"}}`), Options{}, 1, `"type"`},
		{"final read without topic", cat(okSend, fin(`{"records":[{"partition":0,"offset":0,"value":"a","leader_epoch":1}],"end_offsets":{"0":1}}`)), Options{}, 4, `"topic"`},
		{"record without offset", cat(okSend, fin(`{"topic":"t","records":[{"partition":0,"value":"a","leader_epoch":1}]}`)), Options{}, 4, `"offset"`},
		{"record without value", cat(okSend, fin(`{"topic":"t","records":[{"partition":0,"offset":0,"leader_epoch":1}]}`)), Options{}, 4, `"value"`},
		{"record without partition", cat(okSend, fin(`{"topic":"t","records":[{"offset":0,"value":"a","leader_epoch":1}]}`)), Options{}, 4, `"partition"`},
		{"ok send naming another partition", cat(one(ev(10, 0, "invoke", "send", sendV(0, "a"))), one(ev(20, 0, "ok", "send", ackV(1, "a", 0)))), Options{}, 2, `"partition"`},
		{"ok send naming another value", cat(one(ev(10, 0, "invoke", "send", sendV(0, "a"))), one(ev(20, 0, "ok", "send", ackV(0, "b", 0)))), Options{}, 2, `"value"`},
		{"ok send without value", cat(one(ev(10, 0, "invoke", "send", sendV(0, "a"))), one(ev(20, 0, "ok", "send", ""))), Options{}, 2, `"value"`},
		{"negative partition", one(ev(10, 0, "invoke", "send", sendV(-1, "a"))), Options{}, 1, `"partition"`},
		{"negative record partition", cat(okSend, fin(`{"topic":"t","records":[{"partition":-3,"offset":0,"value":"a","leader_epoch":1}]}`)), Options{}, 4, `"partition"`},
		{"offset outside int64", cat(one(ev(10, 0, "invoke", "send", sendV(0, "a"))), one(ev(20, 0, "ok", "send", `{"topic":"t","partition":0,"value":"a","offset":92233720368547758070}`))), Options{}, 2, `"offset"`},
		{"record offset outside int64", cat(okSend, fin(`{"topic":"t","records":[{"partition":0,"offset":1e30,"value":"a","leader_epoch":1}]}`)), Options{}, 4, `"offset"`},
		{"partition the run never had", one(ev(10, 0, "invoke", "send", sendV(3, "a"))), Options{Topic: "t", Partitions: 2}, 1, `"partition"`},
		{"topic the run never had", one(ev(10, 0, "invoke", "send", `{"topic":"u","partition":0,"value":"a"}`)), Options{Topic: "t", Partitions: 2}, 1, `"topic"`},
		{"negative end offset", cat(okSend, fin(`{"topic":"t","records":[],"end_offsets":{"0":-2}}`)), Options{}, 4, `"end_offsets"`},
		{"record at or past the end it reports", cat(okSend, fin(`{"topic":"t","records":[{"partition":0,"offset":5,"value":"a","leader_epoch":1}],"end_offsets":{"0":1}}`)), Options{}, 4, `"end_offsets"`},
		{"poll without topic", cat(okSend, one(ev(30, 5, "invoke", "poll", `{"topic":"t","partitions":[0]}`)), one(ev(31, 5, "ok", "poll", `{"records":[{"partition":0,"offset":0,"value":"a","leader_epoch":1}]}`))), Options{}, 4, `"topic"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := checkReader(strings.NewReader(lines2hist(c.lines...)), c.opts)
			var le *histories.LineError
			if !errors.As(err, &le) || le.Line != c.line || !strings.Contains(err.Error(), c.field) {
				t.Fatalf("error %v, want a LineError at line %d naming %s", err, c.line, c.field)
			}
		})
	}
}

// TestRunInfoBoundsPartitions: CheckPath takes the run's topic and
// partition count from run.json, so a partition the run never had is bad
// input (exit 254).
func TestRunInfoBoundsPartitions(t *testing.T) {
	dir := t.TempDir()
	h := lines2hist(cat(send(0, 10, 20, 5, "a", "ok", 0))...)
	if err := os.WriteFile(filepath.Join(dir, HistoryFile), []byte(h), 0o644); err != nil {
		t.Fatal(err)
	}
	ri := `{"topic":"t","partitions":2,"producer":{"idempotent":false}}`
	if err := os.WriteFile(filepath.Join(dir, histories.RunInfoFile), []byte(ri), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := CheckPath(dir, Options{})
	if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "line 1") || !strings.Contains(err.Error(), `"partition"`) {
		t.Fatalf("got %v, want bad input at line 1 naming the partition", err)
	}
}
