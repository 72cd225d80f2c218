package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kchaos/kchaos/harness/explore"
	"github.com/kchaos/kchaos/report"
)

// gateDirs are the folders the issue 37 probes work on, made once.
type gateDirs struct {
	file                  string // a regular file, where a folder is wanted
	victim                string // a file outside any run folder
	linked, dirReport     string // run folders: report.md a link to victim; report.md a folder
	failedA, failedB      string // explore shards 1/2 and 2/2, every run failed
	judgedA               string // explore shard 1/2, its runs judged
	emptyShard, fifoShard string // explore.json {} ; explore.json a FIFO
	suiteNA, suiteFIFO    string // suite shards: every cell not applicable; a cell whose history is a FIFO
}

func makeGateDirs(t *testing.T) gateDirs {
	t.Helper()
	root := t.TempDir()
	mk := func(parts ...string) string {
		p := filepath.Join(append([]string{root}, parts...)...)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	put := func(path string, v any) {
		b, ok := v.([]byte)
		if !ok {
			var err error
			if b, err = json.Marshal(v); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fifo := func(path string) {
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	history, err := os.ReadFile(filepath.Join("..", "..", "histories", "testdata", "valid.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	d := gateDirs{file: filepath.Join(root, "file"), victim: filepath.Join(root, "victim.md")}
	put(d.file, []byte("x"))
	put(d.victim, []byte("mine"))
	d.linked, d.dirReport = mk("linked"), mk("dirreport")
	for _, dir := range []string{d.linked, d.dirReport} {
		put(filepath.Join(dir, report.HistoryFile), history)
	}
	if err := os.Symlink(d.victim, filepath.Join(d.linked, report.ReportMD)); err != nil {
		t.Fatal(err)
	}
	mk("dirreport", report.ReportMD)
	shard := func(name, sh string, failed bool) string {
		dir := mk(name)
		s := explore.Summary{Scenario: "s2", Kafka: "4.4.0", BaseSeed: 7, Shard: sh, Started: time.Now().UTC(), Findings: []explore.FindingRecord{}}
		for i := range 2 {
			r := explore.RunRecord{Index: i*2 + int(sh[0]-'1'), Seed: int64(i + 1), Verdict: "valid"}
			if failed {
				r.Verdict, r.Err = "unknown", "cluster: image kchaos/kafka:4.4.0 is not built"
			}
			s.RunRecords = append(s.RunRecords, r)
		}
		put(filepath.Join(dir, explore.SummaryFile), s)
		return dir
	}
	d.failedA, d.failedB, d.judgedA = shard("failedA", "1/2", true), shard("failedB", "2/2", true), shard("judgedA", "1/2", false)
	d.emptyShard, d.fifoShard = mk("empty"), mk("fifoshard")
	put(filepath.Join(d.emptyShard, explore.SummaryFile), []byte("{}"))
	fifo(filepath.Join(d.fifoShard, explore.SummaryFile))
	d.suiteNA, d.suiteFIFO = mk("suitena"), mk("suitefifo")
	put(filepath.Join(d.suiteNA, "suite.json"), []byte(`{"name": "shares", "cells": [
		{"id": "w1/share.version=1/3.9.2", "scenario": "w1", "kafka": "3.9.2", "status": "not-applicable", "reason": "share groups need 4.1"}]}`))
	// A cell without a verdict: merge measures its run folder again.
	run := mk("suitefifo", "run")
	fifo(filepath.Join(run, report.HistoryFile))
	put(filepath.Join(d.suiteFIFO, "suite.json"), []byte(`{"name": "x", "cells": [
		{"id": "s1/-/4.4.0", "scenario": "s1", "kafka": "4.4.0", "status": "match", "run_dir": "run"}]}`))
	return d
}

// TestGates (issue 37, items 3-6): each probe ends within 2 s, with exit
// 254 naming the flag, file or field (or 2 and "nothing was judged", for
// a gate with nothing to judge), without Docker: a suite whose every cell
// is not applicable is decided before any cluster starts. On the code
// before issue 37 these exited 0 (a gate green on nothing, help for an
// unknown subcommand), wrote through a link, wrote half a check's outputs,
// hung on a FIFO, or ran with a blank folder as the default.
func TestGates(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix:///nonexistent")
	d := makeGateDirs(t)
	store := filepath.Join(t.TempDir(), "store")
	for _, c := range []struct {
		name    string
		args    []string
		code    int
		want    []string
		session bool // the probe runs a batch (no cell starts a cluster)
	}{
		// Item 3: nothing judged is not a pass.
		{"suite: every cell not applicable", []string{"suite", "shares", "--kafka", "3.9.2", "--store", store}, exitUnknown,
			[]string{"nothing was judged: 11 cells, 11 not-applicable", "--allow-empty"}, true},
		{"suite: --allow-empty", []string{"suite", "shares", "--kafka", "3.9.2", "--store", store, "--allow-empty"}, exitValid, nil, true},
		{"findings suite: its only cells not applicable", []string{"suite", "findings", "--only", "s8", "--kafka", "3.9.2", "--store", store}, exitUnknown,
			[]string{"nothing was judged: 1 cells, 1 not-applicable", "s8/elr=on/3.9.2"}, true},
		{"merge: every run of every shard failed", []string{"merge", d.failedA, d.failedB}, exitUnknown,
			[]string{"nothing was judged: every run of 4 failed before its check", "is not built"}, false},
		{"merge: a shard whose runs all failed", []string{"merge", d.judgedA, d.failedB}, exitUnknown, []string{"shard(s) [2] judged no run"}, false},
		{"merge: explore.json {}", []string{"merge", d.emptyShard}, exitBadInput,
			[]string{filepath.Join(d.emptyShard, explore.SummaryFile), "not an exploration's record", "scenario, kafka, base_seed"}, false},
		{"merge: suite shards, every cell not applicable", []string{"merge", d.suiteNA, "--out", filepath.Join(t.TempDir(), "m")}, exitUnknown,
			[]string{"nothing was judged: 1 cells, 1 not-applicable"}, false},
		// Item 4: kchaos writes only what it owns; no read blocks.
		{"check: report.md a link", []string{"check", d.linked}, exitBadInput,
			[]string{filepath.Join(d.linked, report.ReportMD), "is a symbolic link"}, false},
		{"check: report.md a folder", []string{"check", d.dirReport}, exitBadInput,
			[]string{filepath.Join(d.dirReport, report.ReportMD), "is a folder"}, false},
		{"merge: explore.json a FIFO", []string{"merge", d.fifoShard}, exitBadInput,
			[]string{filepath.Join(d.fifoShard, explore.SummaryFile), "not a regular file (a FIFO)"}, false},
		{"merge: a run's history a FIFO", []string{"merge", d.suiteFIFO, "--out", filepath.Join(t.TempDir(), "m")}, exitValid, []string{"suite:"}, false},
		{"blank --store", []string{"merge", d.suiteNA, "--store", ""}, exitBadInput, []string{`--store "": want a folder`}, false},
		{"blank --out", []string{"merge", d.judgedA, "--out", " "}, exitBadInput, []string{`--out " ": want a folder`}, false},
		{"blank --logs", []string{"cluster", "up", "--logs", ""}, exitBadInput, []string{`--logs "": want a folder`}, false},
		{"blank --data", []string{"clean", "--data", ""}, exitBadInput, []string{`--data "": want a folder`}, false},
		{"--store a file", []string{"merge", d.suiteNA, "--store", d.file}, exitBadInput, []string{"--store", "a file, not a folder"}, false},
		{"--out through a file", []string{"merge", d.judgedA, "--out", d.file + "/.."}, exitBadInput, []string{"--out", "not a directory"}, false},
		{"--logs a file", []string{"cluster", "up", "--logs", d.file}, exitBadInput, []string{"--logs", "a file, not a folder"}, false},
		// Item 5: one flag layer for every command.
		{"check -q -v", []string{"check", "-q", "-v", d.linked}, exitBadInput, []string{"--quiet and --verbose"}, false},
		{"versions --log-format xml", []string{"versions", "--log-format", "xml"}, exitBadInput, []string{`--log-format "xml"`}, false},
		{"validate -q -v", []string{"validate", "s1", "-q", "-v"}, exitBadInput, []string{"--quiet and --verbose"}, false},
		{"scenarios --log-format xml", []string{"scenarios", "--log-format", "xml"}, exitBadInput, []string{`--log-format "xml"`}, false},
		{"merge -q -v", []string{"merge", "-q", "-v", d.judgedA}, exitBadInput, []string{"--quiet and --verbose"}, false},
		{"cluster down", []string{"cluster", "down"}, exitBadInput, []string{`unknown command "down" for "kchaos cluster": want up`}, false},
		{"completion tcsh", []string{"completion", "tcsh"}, exitBadInput, []string{`unknown shell "tcsh"`, "bash, fish, powershell, zsh"}, false},
		{"help bogus", []string{"help", "bogus"}, exitBadInput, []string{`unknown help topic "bogus": want`, "run", "suite"}, false},
		{"explore --faults blank", []string{"explore", "s1", "--faults", " , "}, exitBadInput, []string{`--faults " , ": name 1 is blank`}, false},
		{"explore --for a million hours", []string{"explore", "s1", "--for", "1000000h"}, exitBadInput, []string{"--for 1000000h0m0s: want at most 168h"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var code int
			var out string
			var started bool
			begin := time.Now()
			if c.session {
				code, out = runCLIErr(t, c.args...)
			} else {
				code, out, started, _ = guardCLI(t, c.args...)
			}
			if took := time.Since(begin); took > 2*time.Second {
				t.Errorf("took %s, want under 2 s", took)
			}
			if code != c.code || started {
				t.Errorf("exit %d (want %d), session %v; output:\n%s", code, c.code, started, out)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
	// Nothing was written through the link, nor half of a check's outputs.
	if b, err := os.ReadFile(d.victim); err != nil || string(b) != "mine" {
		t.Errorf("the link's target: %q, %v (kchaos wrote through a link)", b, err)
	}
	for _, f := range []string{report.ResultsFile, report.JUnitFile, report.ReportHTML} {
		for _, dir := range []string{d.linked, d.dirReport} {
			if _, err := os.Lstat(filepath.Join(dir, f)); err == nil {
				t.Errorf("%s written in %s before the refusal", f, dir)
			}
		}
	}
	// Two suites in one second into one store: two folders.
	if ents, _ := os.ReadDir(filepath.Join(store, "suite-shares")); len(ents) != 2 {
		t.Errorf("store/suite-shares has %d folders, want 2 (one per suite)", len(ents))
	}
}
