package explore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kchaos/kchaos/harness/scenario"
)

func writeCampaign(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLoadCampaignBadInput: every problem is bad input (exit 254) naming
// its field and, where the file has it, its line; all problems at once.
func TestLoadCampaignBadInput(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"empty", "", []string{"name: missing", "scenarios: none", "versions: none", "budget: missing"}},
		{"unknown field", "name: x\nbogus: 1\n", []string{"line 2: field bogus not found"}},
		{"unknown entry field", "name: x\nscenarios:\n  - {scenario: s1, sets: [a=b]}\n", []string{"line 3: field sets not found"}},
		{"bad budget", "name: x\nscenarios: [s1]\nversions: [4.4.x]\nbudget: 5\n", []string{`line 4: budget: "5": not a duration`}},
		{"budget over a week", "name: x\nscenarios: [s1]\nversions: [4.4.x]\nbudget: 200h\n", []string{"line 4: budget: 200h0m0s: want more than 0 and at most"}},
		{"bad version", "name: x\nscenarios: [s1]\nversions: [4.4.x, nope]\nbudget: 1h\n", []string{"line 3: versions: [1]:"}},
		{"version twice", "name: x\nscenarios: [s1]\nversions: [4.4.x, 4.4.0]\nbudget: 1h\n", []string{"line 3: versions: [1]: 4.4.0 twice"}},
		{"bad strategy", "name: x\nscenarios: [s1]\nversions: [4.4.x]\nbudget: 1h\nstrategy: smart\n", []string{"line 5: strategy:"}},
		{"negative cap", "name: x\nscenarios: [s1]\nversions: [4.4.x]\nbudget: 1h\nruns_per_cell: -1\n", []string{"line 5: runs_per_cell: -1"}},
		{"a written zero cap (reads as no cap)", "name: x\nscenarios: [s1]\nversions: [4.4.x]\nbudget: 1h\nruns_per_cell: 0\n", []string{"line 5: runs_per_cell: 0: want at least 1"}},
		{"blank scenario", "name: x\nscenarios:\n  - {set: [a=b]}\nversions: [4.4.x]\nbudget: 1h\n", []string{"line 3: scenarios[0].scenario: missing"}},
		{"bad name", "name: ../x\nscenarios: [s1]\nversions: [4.4.x]\nbudget: 1h\n", []string{"line 1: name:"}},
		{"two documents", "name: x\n---\nname: y\n", []string{"a second YAML document"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadCampaign(writeCampaign(t, c.text))
			var be *scenario.BadInputError
			if !errors.As(err, &be) {
				t.Fatalf("err %v: want a bad input error", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err %q: want %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "explore.") {
				t.Errorf("err %q names a Go type", err)
			}
		})
	}
}

// TestCampaignCells: scenario entries (plain or with sets) and a suite's
// cells (with their vary settings) on every version, in order, a cell
// named twice once, a cell the version rules out left out.
func TestCampaignCells(t *testing.T) {
	c, err := LoadCampaign(writeCampaign(t, `name: c
scenarios:
  - s2
  - {scenario: s2, set: [topic.configs.min.insync.replicas=2]}
  - s2
suites: [findings]
versions: [4.4.x, 4.1.x]
budget: 90m
runs_per_cell: 5
seed: 3
`))
	if err != nil {
		t.Fatal(err)
	}
	if c.budgetDuration() != 90*time.Minute || !slices.Equal(c.resolvedVersions(), []string{"4.4.0", "4.1.2"}) {
		t.Errorf("budget %s, versions %v", c.budgetDuration(), c.resolvedVersions())
	}
	cells, err := c.cells()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, cell := range cells {
		ids = append(ids, cell.ID)
	}
	for i, want := range []string{"s2/-/4.4.0", "s2/-/4.1.2", "s2/topic.configs.min.insync.replicas=2/4.4.0", "s2/topic.configs.min.insync.replicas=2/4.1.2", "r1/-/4.4.0"} {
		if i >= len(ids) || ids[i] != want {
			t.Fatalf("cells %v: want %s at %d", ids, want, i)
		}
	}
	if !slices.Contains(ids, "s8/elr=on/4.1.2") {
		t.Errorf("cells %v: want s8's vary as its sets", ids)
	}
	// k20295 upgrades to the newest release: a cell on it is not
	// applicable (as in the suite) and left out; on an older one it runs.
	if slices.Contains(ids, "k20295/-/4.4.0") || !slices.Contains(ids, "k20295/-/4.1.2") {
		t.Errorf("cells %v: want k20295 on 4.1.2 only", ids)
	}
}

// TestShare: at least the even split of the whole budget, more when the
// cells before left time unused.
func TestShare(t *testing.T) {
	for _, c := range []struct {
		budget, left time.Duration
		cells, left2 int
		want         time.Duration
	}{
		{6 * time.Minute, 6 * time.Minute, 2, 2, 3 * time.Minute},                 // the first of two
		{6 * time.Minute, 5 * time.Minute, 2, 1, 5 * time.Minute},                 // the first left a minute
		{6 * time.Minute, 0, 2, 1, 3 * time.Minute},                               // the first overran: still its even share
		{6 * time.Minute, -2 * time.Minute, 2, 1, 3 * time.Minute},                // overran the whole budget
		{5 * time.Minute, 5 * time.Minute, 3, 3, 100 * time.Second},               // thirds
		{time.Hour, 50 * time.Minute, 4, 2, 25 * time.Minute},                     // half the cells left, most of the time
		{time.Hour, time.Hour, 0, 0, 0}, {0, 0, 1, 1, 0}, {time.Hour, 0, 2, 0, 0}, // nothing to split
	} {
		if got := share(c.budget, c.left, c.cells, c.left2); got != c.want {
			t.Errorf("Share(%s, %s, %d, %d) = %s, want %s", c.budget, c.left, c.cells, c.left2, got, c.want)
		}
	}
}

// campaignClock is a clock that moves 5 s at every reading.
func campaignClock() func() time.Time {
	t := time.Date(2026, 12, 5, 17, 0, 0, 0, time.UTC)
	return func() time.Time { t = t.Add(5 * time.Second); return t }
}

// simCampaign is a campaign of two s2 cells on 4.4.x.
const simCampaign = `name: sim
scenarios:
  - s2
  - {scenario: s2, set: [topic.configs.min.insync.replicas=2]}
versions: [4.4.x]
budget: 1h
runs_per_cell: 6
seed: 11
`

// runSimCampaign runs a campaign of two s2 cells on simulated runs
// (simRunner: even seeds lose, with real-s2's history), not shrunk.
func runSimCampaign(t *testing.T, store string, sh Shard, shares *[]time.Duration) (*CampaignRecord, string) {
	t.Helper()
	c, err := LoadCampaign(writeCampaign(t, simCampaign))
	if err != nil {
		t.Fatal(err)
	}
	r := &simRunner{t: t}
	rec, dir, err := RunCampaign(context.Background(), CampaignConfig{Campaign: c, Shard: sh, Store: store, Now: campaignClock(),
		Explore: func(ctx context.Context, cfg Config) (*Summary, string, error) {
			if shares != nil {
				*shares = append(*shares, cfg.For)
			}
			cfg.NoShrink = true
			return explore(ctx, cfg, r.run)
		}})
	if err != nil {
		t.Fatal(err)
	}
	return rec, dir
}

// TestRunCampaignDedup: both cells find s2's loss; the campaign counts
// one signature, seen in both cells, first seen in the first, labelled
// new (s2 is no findings cell), its report-upstream attempted; the page
// lists it and every cell's runs and coverage. The first cell's share is
// half the budget, the second all that is left.
func TestRunCampaignDedup(t *testing.T) {
	var shares []time.Duration
	rec, dir := runSimCampaign(t, t.TempDir(), Shard{}, &shares)
	if len(rec.Cells) != 2 || rec.Cells[0].Runs != 6 || rec.Cells[1].Runs != 6 {
		t.Fatalf("cells %+v", rec.Cells)
	}
	// Half the hour (less the clock's ticks before it), and the second
	// gets what the first, capped at 6 runs, left.
	if len(shares) != 2 || shares[0] > 30*time.Minute || shares[0] < 29*time.Minute || shares[1] <= 30*time.Minute {
		t.Errorf("shares %v: want about 30m, then more", shares)
	}
	if len(rec.Signatures) != 1 {
		t.Fatalf("signatures %+v: want one", rec.Signatures)
	}
	s := rec.Signatures[0]
	findings := rec.Cells[0].Findings + rec.Cells[1].Findings
	if s.Count != findings || findings < 2 || len(s.Cells) != 2 || s.First.Cell != rec.Cells[0].ID || s.Label != "new" {
		t.Errorf("signature %+v over %d findings", s, findings)
	}
	if s.Upstream == "" && s.UpstreamErr == "" {
		t.Error("a new signature without its report-upstream text or why")
	}
	if s.rate() != "not shrunk" || rec.Exit() != 1 {
		t.Errorf("rate %s, exit %d", s.rate(), rec.Exit())
	}
	if _, err := os.Stat(filepath.Join(dir, s.First.Finding, findingFile)); err != nil {
		t.Errorf("first finding's folder: %v", err)
	}
	page, err := os.ReadFile(filepath.Join(dir, "campaign.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"| S1 | lost-write | kill@leader, partition-leader-followers@links-of-leader, set-config@none |", "| new |",
		"## Cells", "| s2/-/4.4.0 | 6 |"} {
		if !strings.Contains(string(page), w) {
			t.Errorf("campaign.md lacks %q:\n%s", w, page)
		}
	}
}

// TestMergeCampaignShards: two shards of one campaign, one cell each,
// merge into one signature counted over both; a shard given alone names
// the other missing; shards of another campaign are bad input.
func TestMergeCampaignShards(t *testing.T) {
	store := t.TempDir()
	r1, d1 := runSimCampaign(t, store, Shard{I: 1, N: 2}, nil)
	r2, d2 := runSimCampaign(t, store, Shard{I: 2, N: 2}, nil)
	if len(r1.Cells) != 1 || len(r2.Cells) != 1 || r1.Cells[0].ID == r2.Cells[0].ID {
		t.Fatalf("shards' cells %v, %v", r1.Cells, r2.Cells)
	}
	if !IsCampaign(d1) || IsCampaign(store) {
		t.Error("IsCampaign")
	}
	m, err := MergeCampaigns([]string{d1, d2})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Signatures) != 1 || m.Signatures[0].Count != r1.Signatures[0].Count+r2.Signatures[0].Count || len(m.Signatures[0].Cells) != 2 ||
		len(m.Missing) != 0 || m.Exit() != 1 {
		t.Errorf("merged %+v", m)
	}
	if _, err := os.Stat(filepath.Join(m.Signatures[0].First.Finding, findingFile)); err != nil {
		t.Errorf("merged finding folder: %v", err)
	}
	out := t.TempDir()
	if err := m.Write(out); err != nil {
		t.Fatal(err)
	}
	if !IsCampaign(out) {
		t.Error("merge wrote no campaign.json")
	}
	half, err := MergeCampaigns([]string{d2})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(half.Missing, []int{1}) || len(half.MissingCells) != 1 || !strings.Contains(half.Markdown(), "Missing shards: [1]") {
		t.Errorf("missing %v, cells %v", half.Missing, half.MissingCells)
	}
	var be *scenario.BadInputError
	if _, err := MergeCampaigns([]string{d1, d1}); !errors.As(err, &be) {
		t.Errorf("a shard twice: %v", err)
	}
	if _, err := MergeCampaigns([]string{t.TempDir()}); !errors.As(err, &be) {
		t.Errorf("not a campaign: %v", err)
	}
}

// TestRunCampaignShrunkAndBisected: with its findings shrunk, a
// signature is read off the repro's run and its rate summed from the
// shrinker's reruns; bisect: true bisects each new signature's repro over
// the campaign's versions, once, and the page shows the table.
func TestRunCampaignShrunkAndBisected(t *testing.T) {
	c, err := LoadCampaign(writeCampaign(t, "name: sb\nscenarios: [s2]\nversions: [4.4.x, 4.3.x]\nbudget: 1h\nruns_per_cell: 3\nseed: 11\nbisect: true\n"))
	if err != nil {
		t.Fatal(err)
	}
	r := &simRunner{t: t}
	var bisected []string
	rec, dir, err := RunCampaign(context.Background(), CampaignConfig{Campaign: c, Store: t.TempDir(), Now: campaignClock(),
		Explore: func(ctx context.Context, cfg Config) (*Summary, string, error) { return explore(ctx, cfg, r.run) },
		Bisect: func(_ context.Context, repro string, versions []string) (string, []BisectRow, error) {
			bisected = append(bisected, repro)
			if !slices.Equal(versions, []string{"4.4.0", "4.3.2"}) {
				t.Errorf("bisect over %v", versions)
			}
			return "bisect-dir", []BisectRow{{Settings: "kafka=4.3.2", Kafka: "4.3.2", Runs: 3, Reproduced: 3}, {Settings: "kafka=4.4.0", Kafka: "4.4.0", Runs: 3, Reproduced: 2}}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Signatures) == 0 {
		t.Fatalf("no signature: cells %+v", rec.Cells)
	}
	news := 0
	for _, s := range rec.Signatures {
		if s.Label == "new" {
			news++
			if len(s.Bisect) != 2 || s.BisectDir != "bisect-dir" {
				t.Errorf("%s not bisected: %+v", s.ID, s)
			}
		}
		if s.rate() == "not shrunk" {
			t.Errorf("%s: rate %s: its findings were shrunk", s.ID, s.rate())
		}
	}
	if len(bisected) != news || news == 0 {
		t.Errorf("bisected %v for %d new signatures", bisected, news)
	}
	page, _ := os.ReadFile(filepath.Join(dir, "campaign.md"))
	if !strings.Contains(string(page), "| kafka=4.4.0 | 2/3 |") {
		t.Errorf("campaign.md lacks the bisect table:\n%s", page)
	}
}

// TestCampaignUnjudgedCell: a cell whose runs failed before their check
// (an image not built, a cluster that would not start) is not a cell
// that found nothing: the page names it, its runs column says how many
// were judged and its note why, and the campaign exits 2, as that cell's
// exploration alone would; a cell with some runs failed but not stopped
// is only counted.
func TestCampaignUnjudgedCell(t *testing.T) {
	const stopped = "stopped: 3 runs in a row failed before their check; the last: cluster: image kchaos/kafka:4.4.0 is not built"
	run := func(err string) RunRecord { return RunRecord{Verdict: "valid", Err: err} }
	failed := run("cluster: image kchaos/kafka:4.4.0 is not built")
	for _, c := range []struct {
		name     string
		second   []RunRecord
		stop     string
		exit     int
		runsCell string
		bold     bool
	}{
		{"both judged", []RunRecord{run(""), run("")}, "", 0, "| s2/topic.configs.min.insync.replicas=2/4.4.0 | 2 | 0 |", false},
		{"some failed, not stopped", []RunRecord{run(""), failed, run("")}, "", 0, "| s2/topic.configs.min.insync.replicas=2/4.4.0 | 3 (2 judged) | 0 |", false},
		{"every run failed, stopped", []RunRecord{failed, failed, failed}, stopped, 2, "| s2/topic.configs.min.insync.replicas=2/4.4.0 | 3 (0 judged) | 0 |", true},
		{"judged one, then stopped", []RunRecord{run(""), failed, failed, failed}, stopped, 2, "| s2/topic.configs.min.insync.replicas=2/4.4.0 | 4 (1 judged) | 0 |", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			camp, err := LoadCampaign(writeCampaign(t, simCampaign))
			if err != nil {
				t.Fatal(err)
			}
			cell := 0
			rec, _, err := RunCampaign(context.Background(), CampaignConfig{Campaign: camp, Store: t.TempDir(), Now: campaignClock(), Known: []KnownCell{},
				Explore: func(ctx context.Context, cfg Config) (*Summary, string, error) {
					s := &Summary{Scenario: cfg.Scenario.Name, BaseSeed: cfg.Seed, RunRecords: []RunRecord{run(""), run("")}}
					if cell++; cell == 2 {
						s.RunRecords, s.Stopped = c.second, c.stop
					}
					return s, "", nil
				}})
			if err != nil {
				t.Fatal(err)
			}
			md := rec.Markdown()
			bold := "**Cells that judged no run or stopped on runs failing in a row: s2/topic.configs.min.insync.replicas=2/4.4.0**"
			if got := rec.Exit(); got != c.exit || strings.Contains(md, bold) != c.bold || !strings.Contains(md, c.runsCell) ||
				c.stop != "" && !strings.Contains(md, c.stop+" |") {
				t.Errorf("exit %d (want %d), the cell named in bold %v (want %v), its row %q and note %q:\n%s",
					got, c.exit, strings.Contains(md, bold), c.bold, c.runsCell, c.stop, md)
			}
		})
	}
}

// TestCampaignDiff: what tells a folder from a shard of the campaign
// being merged, each said with both values.
func TestCampaignDiff(t *testing.T) {
	m := &MergedCampaign{CampaignRecord: CampaignRecord{Name: "nightly", Seed: 40, AllCells: []string{"s2/-/4.3.2", "s2/-/4.4.0"}}, Shards: 2}
	for _, c := range []struct {
		name   string
		change func(*CampaignRecord)
		n      int
		want   string
	}{
		{"a shard", func(*CampaignRecord) {}, 2, ""},
		{"random is the strategy unsaid", func(r *CampaignRecord) { r.Strategy = StrategyRandom }, 2, ""},
		{"another name", func(r *CampaignRecord) { r.Name = "weekly" }, 2, "campaign nightly against weekly"},
		{"another seed", func(r *CampaignRecord) { r.Seed = 41 }, 2, "seed 40 against 41"},
		{"another count", func(*CampaignRecord) {}, 3, "2 shard(s) against 3"},
		{"another strategy", func(r *CampaignRecord) { r.Strategy = StrategyGuided }, 2, "strategy random against guided"},
		{"another version", func(r *CampaignRecord) { r.AllCells = []string{"s2/-/4.2.2", "s2/-/4.4.0"} }, 2, "cell 1 s2/-/4.3.2 against s2/-/4.2.2"},
		{"fewer cells", func(r *CampaignRecord) { r.AllCells = r.AllCells[:1] }, 2, "2 cells against 1"},
	} {
		r := CampaignRecord{Name: "nightly", Seed: 40, AllCells: []string{"s2/-/4.3.2", "s2/-/4.4.0"}}
		c.change(&r)
		if got := campaignDiff(m, &r, c.n); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestSignatureRate: a signature's rate sums its findings' judged final
// reruns; one whose reruns all failed before their check is no "not
// shrunk".
func TestSignatureRate(t *testing.T) {
	for _, c := range []struct {
		rates []string
		want  string
	}{
		{[]string{"2/3", "3/3"}, "5/6"},
		{[]string{"2/2 (1 more failed before their check)", "1/3"}, "3/5"},
		{[]string{"0/0 (3 more failed before their check)"}, "no rerun judged"},
		{[]string{"not shrunk"}, "not shrunk"},
	} {
		var s SignatureRecord
		for _, r := range c.rates {
			s.Seen = append(s.Seen, Seen{Rate: r})
		}
		if got := s.rate(); got != c.want {
			t.Errorf("%v: %q, want %q", c.rates, got, c.want)
		}
	}
}
