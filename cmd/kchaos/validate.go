package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kchaos/kchaos/harness"
	"github.com/kchaos/kchaos/harness/explore"
	"github.com/kchaos/kchaos/harness/scenario"
)

func init() { subcommands = append(subcommands, newValidateCmd) }

func newValidateCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "validate NAME|FILE...",
		Short: "Check scenario, suite and campaign files as run would, and print what would run; starts nothing",
		Long: `Check each scenario or suite (a built-in's name or a file; a file with
'entries:' is a suite) with --set, --broker-config, --topic-config,
--producer-config, --consumer-config and --kafka applied, exactly as run, matrix and suite check before their first cluster
(docs/validation.md lists the checks), and print what would run: a scenario
as run, every default filled; a suite as its cells. A campaign file (one
with 'scenarios:', 'suites:' or 'budget:') is checked as 'kchaos campaign'
does before its first cluster, every shard's cells at once, and its cells
printed; the scenario flags do not apply to it. No cluster, container or
connection is made, and nothing is written.
Exit codes: 0 every file is valid, 254 bad input (each problem named).`,
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: completeScenarios,
		RunE: func(cmd *cobra.Command, args []string) error {
			versions := splitList(f.kafka)
			kafka := f.kafka
			var errs []error
			for _, a := range args {
				opts := harness.SuiteOptions{Kafka: versions,
					Load: func(n string, sets []string) (*scenario.Scenario, error) {
						sc, _, err := f.load(n, sets...)
						return sc, err
					}}
				// A scenario takes --kafka as its version; a suite as its list.
				f.kafka = kafka
				if strings.Contains(kafka, ",") {
					f.kafka = ""
				}
				var out string
				var err error
				if explore.IsCampaignFile(a) {
					out, err = validateCampaign(cmd, a)
				} else {
					out, err = harness.Validate(a, opts)
				}
				if err != nil {
					errs = append(errs, err)
					continue
				}
				fmt.Fprint(cmd.OutOrStdout(), out)
			}
			if len(errs) > 0 {
				return badInput(errors.Join(errs...))
			}
			return nil
		},
	}
	f.register(cmd)
	return cmd
}

// validateCampaign checks a campaign file: the scenario flags do not
// apply to one (its entries carry their sets and its versions), so a
// flag given with it is refused rather than ignored.
func validateCampaign(cmd *cobra.Command, file string) (string, error) {
	for _, name := range []string{"set", "kafka", "broker-config", "topic-config", "producer-config", "consumer-config", "seed"} {
		if cmd.Flags().Changed(name) {
			return "", &scenario.BadInputError{Err: fmt.Errorf("%s: --%s does not apply to a campaign file (its entries carry their sets, its versions: list)", file, name)}
		}
	}
	return explore.ValidateCampaign(file)
}

// completeScenarios offers the built-in scenarios' names (and files).
func completeScenarios(_ *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
	var out []string
	for _, b := range scenario.Builtins() {
		if strings.HasPrefix(b.Name, prefix) {
			out = append(out, b.Name)
		}
	}
	return out, cobra.ShellCompDirectiveDefault
}

// completeSuites offers the built-in suites' names (and files).
func completeSuites(_ *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
	var out []string
	for _, n := range harness.BuiltinSuites() {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out, cobra.ShellCompDirectiveDefault
}
