package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCampaignRefusedBeforeAnyCluster: a bad campaign file, flag or cell
// is exit 254 naming the field, line or cell, before any session.
func TestCampaignRefusedBeforeAnyCluster(t *testing.T) {
	dir := t.TempDir()
	store := t.TempDir()
	good := "name: c\nscenarios: [s2]\nversions: [4.4.x]\nbudget: 10m\n"
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"unknown field", []string{"campaign", write(t, dir, "a.yaml", good+"bogus: 1\n")}, []string{"line 5: field bogus not found"}},
		{"bad budget", []string{"campaign", write(t, dir, "b.yaml", strings.Replace(good, "10m", "ten", 1))}, []string{`line 4: budget: "ten"`}},
		{"unknown scenario", []string{"campaign", write(t, dir, "c.yaml", strings.Replace(good, "[s2]", "[s99]", 1))}, []string{"cell s99/-/4.4.0", `s99" is neither a built-in scenario`}},
		{"bad set", []string{"campaign", write(t, dir, "d.yaml", strings.Replace(good, "[s2]", "[{scenario: s2, set: [workload.acks=2]}]", 1))}, []string{"cell s2/workload.acks=2/4.4.0", "workload.acks"}},
		{"bad shard", []string{"campaign", write(t, dir, "e.yaml", good), "--shard", "3/2"}, []string{`--shard "3/2"`}},
		{"bad budget flag", []string{"campaign", write(t, dir, "f.yaml", good), "--budget", "0s"}, []string{"--budget 0s"}},
		{"no file", []string{"campaign", filepath.Join(dir, "nope.yaml")}, []string{"nope.yaml"}},
	} {
		t.Run(c.name, func(t *testing.T) { wantRefused(t, append(c.args, "--store", store), c.want) })
	}
	if ents, _ := os.ReadDir(store); len(ents) > 0 {
		t.Errorf("the store has %v", ents)
	}
	for _, args := range [][]string{
		{"campaign", write(t, dir, "ok.yaml", good), "--shard", "1/2", "--budget", "1m"},
		{"campaign", "../../examples/campaigns/small.yaml"},
		{"campaign", "../../examples/campaigns/nightly.yaml", "--shard", "4/4"},
	} {
		code, out, started, _ := guardCLI(t, append(args, "--store", store)...)
		if !started {
			t.Errorf("%v started no session (exit %d):\n%s", args, code, out)
		}
	}
}

// TestMergeCampaignCLI: kchaos merge given campaign folders joins them
// as a campaign: one signature seen on both shards, counted twice, new
// (exit 1); --out writes campaign.md and campaign.json.
func TestMergeCampaignCLI(t *testing.T) {
	shard := func(i int, cell string) string {
		d := t.TempDir()
		body := `{"name": "c", "shard": "` + string(rune('0'+i)) + `/2", "seed": 4, "strategy": "random", "versions": ["4.4.0"],
 "all_cells": ["s2/-/4.4.0", "w/-/4.4.0"], "started": "2026-12-05T17:00:00Z",
 "cells": [{"id": "` + cell + `", "scenario": "s2", "kafka": "4.4.0", "index": ` + string(rune('0'+i-1)) + `, "runs": 3, "findings": 1}],
 "signatures": [{"id": "S1", "key": "lost-write :: kill@leader :: -", "signature": {"class": "lost-write", "faults": ["kill@leader"], "source": "repro-run"},
   "count": 1, "cells": ["` + cell + `"], "label": "new",
   "first": {"time": "2026-12-05T17:0` + string(rune('0'+i)) + `:00Z", "cell": "` + cell + `", "run": 0, "finding": "cells/00/f", "reproduced": "2/3"},
   "seen": [{"time": "2026-12-05T17:0` + string(rune('0'+i)) + `:00Z", "cell": "` + cell + `", "run": 0, "finding": "cells/00/f", "reproduced": "2/3"}]}]}`
		if err := os.WriteFile(filepath.Join(d, "campaign.json"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return d
	}
	a, b := shard(1, "s2/-/4.4.0"), shard(2, "w/-/4.4.0")
	out := filepath.Join(t.TempDir(), "merged")
	code, text := runCLI(t, "merge", a, b, "--out", out)
	if code != exitInvalid || !strings.Contains(text, "Merged from 2 shard(s)") || !strings.Contains(text, "| S1 | lost-write | kill@leader | 2 | s2/-/4.4.0, w/-/4.4.0 |") ||
		!strings.Contains(text, "| 4/6 | new |") {
		t.Errorf("exit %d:\n%s", code, text)
	}
	if _, err := os.Stat(filepath.Join(out, "campaign.md")); err != nil {
		t.Error(err)
	}
	code, text = runCLI(t, "merge", b)
	if code != exitInvalid || !strings.Contains(text, "Missing shards: [1]") {
		t.Errorf("one shard: exit %d:\n%s", code, text)
	}
}
