package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kchaos/kchaos/harness"
)

func init() { subcommands = append(subcommands, newAuditCmd) }

func newAuditCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "audit --broker-config FILE [--topic-config FILE] [--producer-config FILE] [--consumer-config FILE] [--kafka V]",
		Short: "Run the failure stories under your cluster's settings and explain what they lose",
		Long: `Run the failure stories (s1: leader cut off then killed; s7: the ISR
shrinks to the leader, which loses power; s9: a rack outage; s10: a rack of
three dies) under your server.properties, topic configs and client
properties (--producer-config, --consumer-config), each on a fresh
cluster, and write one page (store/audit/<timestamp>/audit.md,
audit.html and audit.json): per story the acked records lost, the offsets reused and the
seconds offline, and the configuration facts that explain them. The keys
kchaos must override to run at all are listed.
Exit codes: 0 nothing lost, 1 a story lost acked records or reused offsets,
2 a story could not be run or checked, 254 bad input.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.brokerCfg == "" {
				return badInput(fmt.Errorf("--broker-config: required (your server.properties)"))
			}
			if f.kafka != "" {
				if err := kafkaFlag(f.kafka); err != nil {
					return err
				}
			}
			opts := harness.AuditOptions{Kafka: f.kafka, Sets: f.sets}
			var err error
			if opts.BrokerConfig, opts.TopicConfig, err = f.userConfigs(); err != nil {
				return err
			}
			if opts.Clients, err = harness.ReadClientConfigs(f.producerCfg, f.consumerCfg); err != nil {
				return badInput(err)
			}
			plan, err := harness.AuditPlan(opts)
			if err != nil {
				return badInput(err)
			}
			return runBatch("audit", plan, &f)
		},
	}
	f.register(cmd)
	return cmd
}
