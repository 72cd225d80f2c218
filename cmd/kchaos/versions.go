package main

import (
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/nemesis"
)

func init() { subcommands = append(subcommands, newVersionsCmd) }

// newVersionsCmd prints Kafka versions, one a line, for scripts (the
// Makefile's image targets, CI matrices): with no argument every release
// kchaos knows (cluster.Releases), else the versions the given scenarios
// need (their cluster.kafka and every upgrade step's target), so no
// script restates a version a scenario already names.
// --default prints the version kchaos runs when none is given (the
// Makefile's KAFKA_VERSION default).
func newVersionsCmd() *cobra.Command {
	var dflt bool
	cmd := &cobra.Command{
		Use:   "versions [--default | SCENARIO|FILE ...]",
		Short: "Print the Kafka versions kchaos knows, or those the given scenarios need",
		RunE: func(cmd *cobra.Command, args []string) error {
			var out []string
			switch {
			case dflt && len(args) > 0:
				return badInput(fmt.Errorf("--default takes no scenario"))
			case dflt:
				out = []string{cluster.DefaultKafkaVersion}
			case len(args) == 0:
				out = slices.Clone(cluster.Releases)
			}
			for _, a := range args {
				s, err := scenario.Load(a, nil)
				if err != nil {
					return badInput(err)
				}
				out = append(out, s.Cluster.Kafka)
				for _, st := range s.Nemesis.Steps {
					if up, ok := st.Params.(*nemesis.UpgradeParams); ok && up.Version != "" {
						v, err := cluster.ResolveVersion(up.Version)
						if err != nil {
							return badInput(fmt.Errorf("%s: upgrade to %s: %w", a, up.Version, err))
						}
						out = append(out, v)
					}
				}
			}
			seen := map[string]bool{}
			for _, v := range out {
				if !seen[v] {
					seen[v] = true
					fmt.Fprintln(cmd.OutOrStdout(), v)
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&dflt, "default", false, "print only the version kchaos runs when none is given")
	return cmd
}
