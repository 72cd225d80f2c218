package explore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/kchaos/kchaos/harness"
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/internal/owned"
	"github.com/kchaos/kchaos/report"
)

// CampaignConfig is one campaign run (or one shard of it).
type CampaignConfig struct {
	Campaign *Campaign
	Shard    Shard
	// Store is the store folder: the campaign's is
	// store/campaign-<name>/<timestamp>/, each cell's exploration under
	// its cells/<NN>/.
	Store string
	// Budget overrides the file's budget (0: the file's).
	Budget time.Duration
	// Load reads a cell's scenario with sets (nil: scenario.Load).
	Load func(name string, sets []string) (*scenario.Scenario, error)
	// Explore runs one cell's exploration (the CLI's: a pipeline sharing
	// a cluster between runs, then Explore); tests give a simulated one.
	Explore func(ctx context.Context, cfg Config) (*Summary, string, error)
	// Bisect, when set and the file asks for it, bisects a new
	// signature's repro over the campaign's versions and returns its
	// folder and table (after every cell: outside the budget).
	Bisect func(ctx context.Context, repro string, versions []string) (string, []BisectRow, error)
	// Known are the findings cells signatures are matched against (nil:
	// KnownCells()).
	Known []KnownCell
	// Now is the clock (tests); OnCell is told after each cell.
	Now    func() time.Time
	OnCell func(CellRecord)
	Log    func(string)
}

// RunCampaign explores each cell of this shard in turn, each within its
// Share of the budget, then counts the findings by signature,
// labels each against the findings cells, writes the report-upstream
// text of each new one (report.Upstream on its first finding) and, with
// bisect: true, bisects it. campaign.json and campaign.md are written
// after every cell. Bad cells (a scenario that does not load, a mix that
// cannot be explored) are refused before any cluster.
func RunCampaign(ctx context.Context, cfg CampaignConfig) (*CampaignRecord, string, error) {
	c := cfg.Campaign
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = func(string) {}
	}
	budget := c.budget
	if cfg.Budget > 0 {
		budget = cfg.Budget
	}
	p, err := planCampaign(cfg)
	if err != nil {
		return nil, "", err
	}
	strategy, cells, mine, scen := p.strategy, p.cells, p.mine, p.scen
	known := cfg.Known
	if known == nil {
		if known, err = knownCells(); err != nil {
			return nil, "", err
		}
	}
	dir, err := harness.MakeStoreDir(cfg.Store, "campaign name", c.Name, "campaign-")
	if err != nil {
		return nil, "", err
	}
	begin := cfg.Now()
	seed := c.Seed
	if seed == 0 {
		// Picked and recorded, as explore's base seed is; shards of one
		// campaign need the file to give one.
		seed = begin.UnixNano() & (1<<53 - 1)
	}
	rec := &CampaignRecord{Name: c.Name, Shard: cfg.Shard.String(), Seed: seed, Strategy: strategy, Versions: c.versions,
		BudgetSeconds: budget.Seconds(), Started: begin.UTC()}
	for _, cell := range cells {
		rec.AllCells = append(rec.AllCells, cell.ID)
	}
	// Written at once, so that a campaign killed in its first cell still
	// leaves a record merge can name.
	if err := rec.Write(dir); err != nil {
		return rec, dir, err
	}
	for k, i := range mine {
		cell := cells[i]
		cr := CellRecord{CampaignCell: cell, Index: i}
		share := share(budget, budget-cfg.Now().Sub(begin), len(mine), len(mine)-k)
		if ctx.Err() != nil {
			cr.Skipped = "interrupted"
			rec.Cells = append(rec.Cells, cr)
			continue
		}
		cr.ShareSeconds = share.Seconds()
		ecfg := Config{Scenario: scen[i], Runs: c.RunsPerCell, For: share, Seed: runSeed(seed, i),
			Store: filepath.Join(dir, "cells", fmt.Sprintf("%02d", i)), Strategy: strategy,
			// A finding's shrink within the cell's share (half of it, at
			// least a minute): a campaign finds first, and a finding
			// that would not shrink in that time is still kept.
			ShrinkFor: min(DefaultShrinkFor, max(share/2, time.Minute)), Now: cfg.Now, Log: cfg.Log}
		t0 := cfg.Now()
		sum, edir, eerr := cfg.Explore(ctx, ecfg)
		cr.Seconds = cfg.Now().Sub(t0).Seconds()
		if eerr != nil {
			cr.Err = eerr.Error()
		}
		if edir != "" {
			cr.Dir, _ = filepath.Rel(dir, edir)
		}
		if sum != nil {
			cr.Runs, cr.Judged, cr.Transitions, cr.BaseSeed = len(sum.RunRecords), sum.judged(), sum.Transitions, sum.BaseSeed
			cr.Stopped = sum.Stopped
			cr.Findings = len(sum.Findings)
			for _, f := range sum.Findings {
				rec.addFinding(dir, cr, edir, f, sum.Started, known, cfg.Log)
			}
		}
		rec.Cells = append(rec.Cells, cr)
		rec.Seconds = cfg.Now().Sub(begin).Seconds()
		if err := rec.Write(dir); err != nil {
			return rec, dir, err
		}
		if cfg.OnCell != nil {
			cfg.OnCell(cr)
		}
	}
	if c.Bisect && cfg.Bisect != nil {
		for i := range rec.Signatures {
			sg := &rec.Signatures[i]
			if sg.Label != "new" || ctx.Err() != nil {
				continue
			}
			repro := filepath.Join(dir, sg.First.Finding, "repro.yaml")
			if _, err := os.Stat(repro); err != nil {
				sg.BisectErr = "no repro.yaml (not shrunk)"
				continue
			}
			bdir, rows, err := cfg.Bisect(ctx, repro, c.versions)
			if err != nil {
				sg.BisectErr = err.Error()
			}
			sg.Bisect = rows
			if bdir != "" {
				sg.BisectDir = bdir
				writeUpstream(dir, sg, bdir)
			}
		}
	}
	rec.Seconds = cfg.Now().Sub(begin).Seconds()
	rec.Interrupted = ctx.Err() != nil
	return rec, dir, rec.Write(dir)
}

// campaignPlan is a campaign's cells and this shard's, each loaded.
type campaignPlan struct {
	strategy string
	cells    []CampaignCell
	mine     []int
	scen     map[int]*scenario.Scenario
}

// CheckCampaign refuses, before any cluster, what RunCampaign would: a
// suite that does not load, a cell of this shard whose scenario does not
// load on its version or cannot be explored (its mix, guided's aims).
// Every error is a *scenario.BadInputError.
func CheckCampaign(cfg CampaignConfig) error {
	_, err := planCampaign(cfg)
	return err
}

func planCampaign(cfg CampaignConfig) (*campaignPlan, error) {
	c := cfg.Campaign
	load := cfg.Load
	if load == nil {
		load = scenario.Load
	}
	p := &campaignPlan{strategy: StrategyRandom, scen: map[int]*scenario.Scenario{}}
	if c.Strategy != "" {
		var err error
		if p.strategy, err = ParseStrategy(c.Strategy); err != nil {
			return nil, &scenario.BadInputError{Err: err}
		}
	}
	cells, err := c.cells()
	if err != nil {
		return nil, err
	}
	p.cells, p.mine = cells, cfg.Shard.items(len(cells))
	for _, i := range p.mine {
		cell := cells[i]
		s, err := load(cell.Scenario, append(append([]string{}, cell.Sets...), "cluster.kafka="+cell.Kafka))
		if err != nil {
			return nil, &scenario.BadInputError{Err: fmt.Errorf("cell %s: %w", cell.ID, err)}
		}
		e, err := Explorable(s, nil)
		if err != nil {
			return nil, &scenario.BadInputError{Err: fmt.Errorf("cell %s: %w", cell.ID, err)}
		}
		if err := CheckStrategy(e, p.strategy); err != nil {
			return nil, &scenario.BadInputError{Err: fmt.Errorf("cell %s: %w", cell.ID, err)}
		}
		p.scen[i] = e
	}
	return p, nil
}

// addFinding counts a cell's finding under its signature: a new
// signature is labelled, and when new to the findings suite too, its
// report-upstream text is written.
func (rec *CampaignRecord) addFinding(dir string, cell CellRecord, edir string, f FindingRecord, started time.Time, known []KnownCell, log func(string)) {
	fdir := filepath.Join(edir, f.Dir)
	sig, _, err := findingSignature(fdir)
	if err != nil {
		// Still counted: by its class alone, the problem said.
		sig = Signature{Class: f.Class, Source: "unreadable: " + err.Error()}
	}
	rel, _ := filepath.Rel(dir, fdir)
	seen := Seen{Cell: cell.ID, Run: f.Run, Finding: rel, Rate: f.Rate, Time: findingTime(fdir, started)}
	if rec.add(sig, seen, known) {
		sg := &rec.Signatures[len(rec.Signatures)-1]
		if sg.Label == "new" {
			writeUpstream(dir, sg, "")
		}
		log(fmt.Sprintf("new signature %s: %s (%s)", sg.ID, sig.key(), sg.Label))
	}
}

// writeUpstream writes the signature's report-upstream text (its first
// finding's, report.Upstream) as signatures/<id>-upstream.txt, with the
// bisect's affected releases when bisectDir is given.
func writeUpstream(dir string, sg *SignatureRecord, bisectDir string) {
	text, err := report.Upstream(filepath.Join(dir, sg.First.Finding), report.UpstreamOptions{Bisect: bisectDir})
	if err != nil {
		sg.UpstreamErr = err.Error()
		return
	}
	p := filepath.Join("signatures", sg.ID+"-upstream.txt")
	if err := os.MkdirAll(filepath.Join(dir, "signatures"), 0o755); err == nil {
		err = owned.Write(filepath.Join(dir, p), []byte(text))
		if err == nil {
			sg.Upstream, sg.UpstreamErr = p, ""
			return
		}
		sg.UpstreamErr = err.Error()
	}
}

// findingTime is when the finding's run started (its run.json), else
// when its exploration did.
func findingTime(fdir string, started time.Time) time.Time {
	info, err := histories.ReadRunInfo(filepath.Join(fdir, "original-run", histories.RunInfoFile))
	if err == nil && !info.Started.IsZero() {
		return info.Started.UTC()
	}
	return started.UTC()
}
