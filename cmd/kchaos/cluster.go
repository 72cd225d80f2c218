package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/cluster/docker"
	sshb "github.com/kchaos/kchaos/cluster/ssh"
	"github.com/kchaos/kchaos/harness"
	"github.com/kchaos/kchaos/harness/progress"
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/harness/shutdown"
)

func init() { subcommands = append(subcommands, newClusterCmd, newCleanCmd) }

func newClusterCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "cluster", Short: "Start a Kafka cluster in containers"}
	var (
		brokers, controllers int
		racks, version       string
		elr, noELR           bool
		logDir               string
	)
	up := &cobra.Command{
		Use:   "up",
		Short: "Start a cluster, print its bootstrap address, keep it until Ctrl-C",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if brokers < 1 {
				return badInput(fmt.Errorf("--brokers %d: want at least 1", brokers))
			}
			if err := kafkaFlag(version); err != nil {
				return err
			}
			r, err := cluster.ParseRacks(racks)
			if err != nil {
				return badInput(fmt.Errorf("--racks: %w", err))
			}
			cfg := cluster.Config{Brokers: brokers, Controllers: controllers, Racks: r,
				KafkaVersion: version, LogDir: logDir}
			if elr && noELR {
				return badInput(fmt.Errorf("--elr and --no-elr together"))
			}
			if elr || noELR {
				cfg.ELR = &elr
			}
			cfg.Defaults()
			if err := cfg.Validate(); err != nil {
				return badInput(err)
			}
			return sessionWith(shutdown.Options{Plan: "teardown"}, func(ctx context.Context, p *progress.Printer) error {
				err := harness.Hold(ctx, cfg, p, p.Logger(), func(c cluster.Cluster) {
					p.Finish()
					fmt.Printf("run %s: ready (Kafka %s)\n", c.RunID(), cfg.KafkaVersion)
					fmt.Printf("bootstrap: %s\n", strings.Join(c.Bootstrap(), ","))
					for _, n := range append(c.Controllers(), c.Brokers()...) {
						rack := ""
						if n.Rack != "" {
							rack = " rack " + n.Rack
						}
						fmt.Printf("  %-10s %4d  %s%s  (%s)\n", n.Role, n.ID, n.Addr(), rack, n.Name)
					}
					fmt.Println("Ctrl-C (or SIGTERM, SIGHUP) tears it down.")
				})
				if _, ok := shutdown.Cause(ctx); ok && err != nil {
					// Interrupted while starting: Start tore down what it made.
					fmt.Fprintln(os.Stderr, "kchaos: interrupted while starting:", err)
					return nil
				}
				if err != nil {
					return internal(err)
				}
				return nil
			})
		},
	}
	f := up.Flags()
	f.IntVar(&brokers, "brokers", 3, "number of brokers")
	f.IntVar(&controllers, "controllers", 1, "number of KRaft controllers (1 or 3)")
	f.StringVar(&racks, "racks", "", "broker racks, e.g. a=0,1;b=2")
	f.StringVar(&version, "kafka", cluster.DefaultKafkaVersion, "Kafka version, "+cluster.VersionForms+" (its image must be built: make image KAFKA_VERSION=...)")
	f.BoolVar(&elr, "elr", false, "turn Eligible Leader Replicas on (Kafka 4.0+)")
	f.BoolVar(&noELR, "no-elr", false, "turn Eligible Leader Replicas off")
	f.StringVar(&logDir, "logs", "", "copy each node's log into this folder at teardown")
	cmd.AddCommand(up)
	return cmd
}

func newCleanCmd() *cobra.Command {
	var dataRoot, hosts string
	cmd := &cobra.Command{
		Use:   "clean",
		Short: "Remove the containers, networks and data that crashed runs left; with --hosts, undo faults left on SSH hosts",
		Long: `Without flags: remove every container and network labelled by kchaos and
the runs' data folders under --data: only the folders kchaos made (each holds
a .kchaos-data marker); anything else there is left, and named. With --hosts FILE (a scenario with backend: ssh):
log in to its hosts and undo what a crashed run left there: delete every
iptables rule tagged "kchaos", SIGCONT a stopped Kafka, and start Kafka
(service.start) where the state file records that kchaos killed or stopped it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			if hosts != "" {
				return cleanHosts(ctx, hosts)
			}
			done, err := docker.Clean(ctx, dataRoot)
			fmt.Printf("removed %d containers and networks labelled %s\n", done.Labelled, docker.Label)
			if len(done.Removed) > 0 {
				fmt.Printf("removed %d data folder(s) under %s\n", len(done.Removed), dataRoot)
			}
			if len(done.Left) > 0 {
				fmt.Fprintf(os.Stderr, "left %d entr%s of %s that kchaos did not make (no %s marker): %s\n",
					len(done.Left), plural(len(done.Left), "y", "ies"), dataRoot, docker.DataMarker, listSome(done.Left, 10))
			}
			if err != nil {
				return internal(err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dataRoot, "data", "/var/tmp/kchaos", "data root of the runs")
	cmd.Flags().StringVar(&hosts, "hosts", "", "a scenario file with backend: ssh: undo the faults a crashed run left on its hosts")
	return cmd
}

// cleanHosts undoes what a crashed run left on a scenario's SSH hosts.
func cleanHosts(ctx context.Context, file string) error {
	spec, err := scenario.LoadHosts(file)
	if err != nil {
		return badInput(err)
	}
	if sessionGuard != nil {
		if err := sessionGuard(); err != nil {
			return err
		}
	}
	did, err := sshb.Clean(ctx, *spec)
	for _, l := range did {
		fmt.Println(l)
	}
	if err != nil {
		return internal(err)
	}
	fmt.Printf("hosts clean: no kchaos iptables rule, no stopped Kafka, every Kafka kchaos stopped started (%d host(s))\n", len(spec.Hosts))
	return nil
}

// plural is one or many by n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// listSome is the first n names, and how many more.
func listSome(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}
