package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kchaos/kchaos/harness"
	"github.com/kchaos/kchaos/harness/explore"
	"github.com/kchaos/kchaos/harness/progress"
	"github.com/kchaos/kchaos/harness/scenario"
)

func init() { subcommands = append(subcommands, newCampaignCmd) }

// newCampaignCmd is kchaos campaign: it parses flags, hands the file to
// explore.RunCampaign with the real explorer and bisect, and prints.
func newCampaignCmd() *cobra.Command {
	var (
		shard, store string
		budget       time.Duration
	)
	cmd := &cobra.Command{
		Use:   "campaign FILE [--shard I/N] [--store DIR] [--budget D]",
		Short: "Explore every (scenario, version) cell of a campaign file within a time budget; count findings by signature",
		Long: `Run an exploration of each cell of a campaign file (its scenarios, and the
scenarios of its suites, on each of its versions) in turn, each within an
even share of the budget (or more, when cells before left time unused;
--budget overrides the file's), runs sharing a
cluster as explore's do. Each finding gets a signature: its anomaly class,
the fault kinds and roles left in its shrunk repro, and the abstract
transition of the last fault before the anomaly. Findings are counted by
signature; a signature that matches a cell of the findings suite is labelled
with that cell's JIRA, a new one gets its report-upstream text written
(signatures/S<n>-upstream.txt) and, with 'bisect: true', is bisected over
the campaign's versions after the budget.
Writes store/campaign-<name>/<timestamp>/campaign.md and campaign.json, each
cell's exploration under cells/<NN>/. --shard I/N does cells I-1, I-1+N, ...
(each shard with the whole budget); 'kchaos merge' joins the shards.
The file's format is in docs/explore.md (Campaigns).
Exit codes: 0 no new signature, 1 a new signature, 2 a cell judged no run
or stopped on runs failing in a row (named on the page), 254 bad input
(before any cluster).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sh, err := explore.ParseShard(shard)
			if err != nil {
				return badInput(err)
			}
			switch {
			case cmd.Flags().Changed("budget") && budget <= 0:
				return badInput(fmt.Errorf("--budget %s: want a positive duration", budget))
			case budget > scenario.MaxDuration:
				return badInput(fmt.Errorf("--budget %s: want at most %s (a week)", budget, scenario.MaxDuration))
			}
			c, err := explore.LoadCampaign(args[0])
			if err != nil {
				return badInput(err)
			}
			// Every cell of this shard loaded and explorable, before any cluster.
			if err := explore.CheckCampaign(explore.CampaignConfig{Campaign: c, Shard: sh}); err != nil {
				return badInput(err)
			}
			var rec *explore.CampaignRecord
			var dir string
			serr := session(func(ctx context.Context, p *progress.Printer) error {
				opts := harness.Options{Store: store, Log: p.Logger(), Progress: p, NoScreenshot: true}
				shared := explore.NewSharedClusters(opts) // cells share a cluster while their settings match
				defer shared.Close()
				say := func(format string, a ...any) { p.Finish(); fmt.Fprintf(os.Stderr, "campaign: "+format+"\n", a...) }
				cfg := explore.CampaignConfig{Campaign: c, Shard: sh, Store: store, Budget: budget,
					Log: func(line string) { say("%s", line) },
					OnCell: func(cr explore.CellRecord) {
						say("cell %s: %d runs (%d judged), %d findings, %d transitions, %.0f s %s %s", cr.ID, cr.Runs, cr.Judged, cr.Findings, cr.Transitions, cr.Seconds, cr.Stopped, cr.Err)
					},
					Explore: func(ctx context.Context, ecfg explore.Config) (*explore.Summary, string, error) {
						say("cell %s: exploring for %s", ecfg.Scenario.Name, ecfg.For.Round(time.Second))
						ecfg.OnRun = func(pr explore.Progress) {
							say("run %d (seed %d): %s %v", pr.Last.Index, pr.Last.Seed, pr.Last.Verdict, pr.Last.Classes)
						}
						return shared.Explore(ctx, ecfg)
					},
					Bisect: func(ctx context.Context, repro string, versions []string) (string, []explore.BisectRow, error) {
						b, err := explore.NewBisect(repro, strings.Join(versions, ","), explore.DefaultTries, nil,
							func(sets []string) (*scenario.Scenario, error) { return scenario.Load(repro, sets) })
						if err != nil {
							return "", nil, err
						}
						res, err := harness.RunBatch(ctx, b.Plan, harness.BatchOptions{Options: opts})
						if res == nil {
							return "", nil, err
						}
						rows := b.Table(res.Rows)
						if werr := b.Write(res.Dir, rows); werr != nil && err == nil {
							err = werr
						}
						return res.Dir, rows, err
					}}
				var rerr error
				rec, dir, rerr = explore.RunCampaign(ctx, cfg)
				return rerr
			})
			if rec != nil {
				fmt.Println("campaign:", filepath.Join(dir, "campaign.md"))
				fmt.Print(rec.Markdown())
			}
			if serr != nil {
				return runError(serr)
			}
			if code := rec.Exit(); code != exitValid {
				return withCode(code)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&shard, "shard", "", "do shard I of N of the cells (I/N): for CI runners; join them with 'kchaos merge'")
	fl.StringVar(&store, "store", harness.DefaultStore, "store folder")
	fl.DurationVar(&budget, "budget", 0, "the campaign's time (default: the file's budget)")
	return cmd
}

// mergeCampaigns joins campaign shard folders (kchaos merge) and prints
// the page; --out writes it.
func mergeCampaigns(cmd *cobra.Command, dirs []string, out string) error {
	m, err := explore.MergeCampaigns(dirs)
	if err != nil {
		return badInput(err)
	}
	if out != "" {
		if err := m.Write(out); err != nil {
			return writeError(err)
		}
	}
	fmt.Fprint(cmd.OutOrStdout(), m.Markdown())
	if code := m.Exit(); code != exitValid {
		return withCode(code)
	}
	return nil
}
