package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kchaos/kchaos/checker"
	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/harness"
	"github.com/kchaos/kchaos/harness/progress"
	"github.com/kchaos/kchaos/harness/scenario"
)

func init() { subcommands = append(subcommands, newRunCmd, newScenariosCmd) }

// runFlags are shared by run and matrix.
type runFlags struct {
	store, kafka       string
	seed               int64
	sets               []string
	brokerCfg, topicCf string
	// producerCfg and consumerCfg are a service's Java client properties
	// (harness.ApplyClientConfigs applies them).
	producerCfg, consumerCfg string
	noScreenshot             bool
	ownHosts                 bool
	// allowEmpty is --allow-empty (suite): a batch whose every cell was
	// not applicable passes (registerAllowEmpty).
	allowEmpty bool
}

func (f *runFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.store, "store", harness.DefaultStore, "store folder for run folders")
	fl.StringVar(&f.kafka, "kafka", "", "Kafka version, "+cluster.VersionForms+" (overrides the scenario's cluster.kafka)")
	fl.Int64Var(&f.seed, "seed", 0, "seed for random schedules and targets (0: pick one and record it)")
	fl.StringArrayVar(&f.sets, "set", nil, "override a scenario field: path=value (e.g. workload.acks=1, topic.configs.min.insync.replicas=2); repeatable")
	fl.StringVar(&f.brokerCfg, "broker-config", "", "your cluster's server.properties (or .yaml): run with its settings")
	fl.StringVar(&f.topicCf, "topic-config", "", "your topic's configs (.properties or .yaml)")
	fl.StringVar(&f.producerCfg, "producer-config", "", "your service's producer properties (acks, enable.idempotence, linger.ms, ...): on top of the scenario's workload; a --set wins over both")
	fl.StringVar(&f.consumerCfg, "consumer-config", "", "your service's consumer properties (isolation.level, group.protocol, ...): on top of the scenario's workload; a --set wins over both")
	fl.BoolVar(&f.noScreenshot, "no-screenshot", false, "skip the headless-Chromium screenshot of the report")
	fl.BoolVar(&f.ownHosts, "i-own-these-hosts", false, "backend ssh: confirm that you own the scenario's hosts and may break their Kafka (cluster.confirm_owner)")
}

// options are the harness options every command that runs clusters
// passes: the store and screenshot flags, and the session's printer.
func (f *runFlags) options(p *progress.Printer) harness.Options {
	return harness.Options{Store: f.store, Log: p.Logger(), Progress: p, NoScreenshot: f.noScreenshot}
}

// load reads the scenario with the flags applied. Errors are bad input.
func (f *runFlags) load(name string, extra ...string) (*scenario.Scenario, []string, error) {
	sets := append([]string{}, f.sets...)
	if f.kafka != "" {
		if err := kafkaFlag(f.kafka); err != nil {
			return nil, nil, err
		}
		sets = append(sets, "cluster.kafka="+f.kafka)
	}
	if f.seed != 0 {
		sets = append(sets, fmt.Sprintf("seed=%d", f.seed))
	}
	if f.ownHosts {
		sets = append(sets, "cluster.confirm_owner=true")
	}
	sets = append(sets, extra...)
	s, err := scenario.Load(name, sets)
	if err != nil {
		return nil, nil, badInput(err)
	}
	broker, topic, err := f.userConfigs()
	if err != nil {
		return nil, nil, err
	}
	overridden := s.ApplyUserConfigs(broker, topic)
	if err := s.Validate(); err != nil {
		return nil, nil, badInput(err)
	}
	clients, err := harness.ReadClientConfigs(f.producerCfg, f.consumerCfg)
	if err != nil {
		return nil, nil, badInput(err)
	}
	if err := harness.ApplyClientConfigs(s, clients, sets); err != nil {
		return nil, nil, badInput(err)
	}
	return s, overridden, nil
}

// userConfigs reads --broker-config and --topic-config, each value Kafka
// would refuse named by its file and key (bad input).
func (f *runFlags) userConfigs() (broker, topic map[string]string, err error) {
	read := func(flag, file string, isTopic bool) (map[string]string, error) {
		if file == "" {
			return nil, nil
		}
		m, err := scenario.ReadProperties(file)
		if err != nil {
			return nil, badInput(fmt.Errorf("%s: %w", flag, err))
		}
		if errs := scenario.CheckKafkaConfig(flag+" "+file+":", m, isTopic); len(errs) > 0 {
			return nil, badInput(errors.Join(errs...))
		}
		return m, nil
	}
	if broker, err = read("--broker-config", f.brokerCfg, false); err != nil {
		return nil, nil, err
	}
	topic, err = read("--topic-config", f.topicCf, true)
	return broker, topic, err
}

func newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run NAME|FILE",
		Short: "Run a scenario on a real cluster, check its history and write a report",
		Long: `Run a built-in scenario (see 'kchaos scenarios') or a scenario file.
The run folder store/<scenario>/<timestamp>/ gets the scenario as run, the
history, results.json, report.md/html, junit.xml and each broker's log.
Exit codes: 0 valid, 1 invalid, 2 unknown (also: valid, but the nemesis
schedule did not play out), 254 bad input, 255 internal error.`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeScenarios,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, overridden, err := f.load(args[0])
			if err != nil {
				return err
			}
			if needs := s.NeedsText(); needs != "" {
				// Written down, not drivable yet: unknown, never valid.
				fmt.Fprintf(os.Stderr, "kchaos: scenario %s is not run: kchaos %s\n", s.Name, needs)
				return withCode(exitUnknown)
			}
			return session(func(ctx context.Context, p *progress.Printer) error {
				opts := f.options(p)
				opts.Overridden = overridden
				out, err := harness.Run(ctx, s, opts)
				p.Finish()
				return finishRun(out, err)
			})
		},
	}
	f.register(cmd)
	return cmd
}

// finishRun prints a run's outcome and turns it into an exit code.
func finishRun(out *harness.RunResult, err error) error {
	if out != nil {
		fmt.Println("run folder:", out.Dir)
	}
	if err != nil {
		// Bad input found late (a store that cannot be made: 254, naming
		// --store); anything else internal.
		return runError(err)
	}
	if out.Interrupted != "" {
		fmt.Println(out.Interrupted + ": healed, torn down and checked what was recorded")
	}
	fmt.Print(out.Result.Summary())
	if out.ReportErr != nil {
		fmt.Fprintln(os.Stderr, "report:", out.ReportErr)
	}
	code := verdictCode(out.Result.Valid)
	if out.NemesisErr != nil && out.Interrupted == "" {
		fmt.Fprintln(os.Stderr, "WARNING: the nemesis schedule did not play out as written:", out.NemesisErr)
		if code == exitValid {
			code = exitUnknown
		}
	}
	if code == exitValid {
		return nil
	}
	return withCode(code)
}

// verdictCode is the checker's verdict -> exit code mapping (one place).
func verdictCode(v checker.Verdict) int { return v.ExitCode() }

func newScenariosCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "scenarios [NAME]",
		Short: "List the built-in scenarios with their descriptions, or print one's YAML",
		Long: `Without NAME: every built-in scenario and its whole description.
With NAME: that scenario's YAML file, comments and all, a starting point for
one's own (kchaos scenarios s2 > mine.yaml; kchaos validate mine.yaml).`,
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: completeScenarios,
		RunE: func(cmd *cobra.Command, args []string) error {
			w := cmd.OutOrStdout()
			if len(args) == 1 {
				b, ok := scenario.BuiltinYAML(args[0])
				if !ok {
					return badInput(fmt.Errorf("%q: not a built-in scenario (kchaos scenarios lists them)", args[0]))
				}
				_, err := w.Write(b)
				return err
			}
			for _, b := range scenario.Builtins() {
				fmt.Fprintf(w, "%s\n    %s\n\n", b.Name, strings.ReplaceAll(b.Description, "\n", "\n    "))
			}
			return nil
		},
	}
}
