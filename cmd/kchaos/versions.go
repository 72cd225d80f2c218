package main

import (
	"fmt"
	"slices"
	"strings"

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
// Makefile's KAFKA_VERSION default); --available the releases the
// registry serves, asked through Maven (availableReleases).
func newVersionsCmd() *cobra.Command {
	var dflt, available bool
	cmd := &cobra.Command{
		Use:   "versions [--default | --available | SCENARIO|FILE ...]",
		Short: "Print the Kafka versions kchaos knows, those the registry serves, or those the given scenarios need",
		Long: `Print Kafka versions, one a line: with no argument the newest release of every
line kchaos knows (X.Y.x and latest resolve over these); with scenarios the
versions they run and upgrade to; --default the version kchaos runs when none
is given; --available every release from 3.9 on that Maven Central serves,
asked through Maven as the image build asks it (mvn, with this machine's Maven
settings; any of them builds with make image KAFKA_VERSION=V and runs with
--kafka V, listed by kchaos or not).
A version is X.Y.Z, X.Y.x, latest or local:NAME (docs/validation.md).
Exit codes: 0 printed, 254 bad input, 255 Maven could not be asked.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			var out []string
			switch {
			case dflt && available:
				return badInput(fmt.Errorf("--default and --available together: give one"))
			case available && len(args) > 0:
				return badInput(fmt.Errorf("--available takes no scenario"))
			case dflt && len(args) > 0:
				return badInput(fmt.Errorf("--default takes no scenario"))
			case available:
				var err error
				if out, err = availableReleases(cmd.Context()); err != nil {
					return internal(err)
				}
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
					if up, ok := st.Params.(nemesis.Upgrader); ok && up.UpgradeVersion() != "" {
						v, err := cluster.ResolveVersion(up.UpgradeVersion())
						if err != nil {
							return badInput(fmt.Errorf("%s: upgrade to %s: %w", a, up.UpgradeVersion(), err))
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
	cmd.Flags().BoolVar(&available, "available", false, "print the releases Maven Central serves (asked through Maven)")
	return cmd
}

// kafkaFlag checks --kafka where a command runs one version (run,
// cluster up, explore, audit; matrix without a list): bad input naming
// the flag, with the valid forms.
func kafkaFlag(v string) error {
	_, err := cluster.ResolveVersion(v)
	switch {
	case err == nil:
		return nil
	case strings.Contains(v, ","):
		return badInput(fmt.Errorf("--kafka: %w (this command runs one version: matrix, suite and bisect take a list)", err))
	}
	return badInput(fmt.Errorf("--kafka: %w", err))
}
