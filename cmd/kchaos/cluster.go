package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/cluster/docker"
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
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			begin := time.Now()
			c, err := docker.Start(ctx, cfg)
			if err != nil {
				return internal(err)
			}
			defer func() {
				tctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				fmt.Fprintln(os.Stderr, "tearing down run", c.RunID())
				if err := c.Teardown(tctx); err != nil {
					fmt.Fprintln(os.Stderr, "teardown:", err)
				}
			}()
			fmt.Printf("run %s: ready in %.1f s (Kafka %s)\n", c.RunID(), time.Since(begin).Seconds(), cfg.KafkaVersion)
			fmt.Printf("bootstrap: %s\n", strings.Join(c.Bootstrap(), ","))
			for _, n := range append(c.Controllers(), c.Brokers()...) {
				rack := ""
				if n.Rack != "" {
					rack = " rack " + n.Rack
				}
				fmt.Printf("  %-10s %4d  %s%s  (%s)\n", n.Role, n.ID, n.Addr(), rack, n.Name)
			}
			fmt.Println("Ctrl-C tears it down.")
			<-ctx.Done()
			return nil
		},
	}
	f := up.Flags()
	f.IntVar(&brokers, "brokers", 3, "number of brokers")
	f.IntVar(&controllers, "controllers", 1, "number of KRaft controllers (1 or 3)")
	f.StringVar(&racks, "racks", "", "broker racks, e.g. a=0,1;b=2")
	f.StringVar(&version, "kafka", cluster.DefaultKafkaVersion, "Kafka version (its image must be built: make image KAFKA_VERSION=...)")
	f.BoolVar(&elr, "elr", false, "turn Eligible Leader Replicas on (Kafka 4.0+)")
	f.BoolVar(&noELR, "no-elr", false, "turn Eligible Leader Replicas off")
	f.StringVar(&logDir, "logs", "", "copy each node's log into this folder at teardown")
	cmd.AddCommand(up)
	return cmd
}

func newCleanCmd() *cobra.Command {
	var dataRoot string
	cmd := &cobra.Command{
		Use:   "clean",
		Short: "Remove the containers, networks and data that crashed runs left",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			n, err := docker.Clean(ctx, dataRoot)
			fmt.Printf("removed %d containers and networks labelled %s\n", n, docker.Label)
			if err != nil {
				return internal(err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dataRoot, "data", "/var/tmp/kchaos", "data root of the runs")
	return cmd
}
