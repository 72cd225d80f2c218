package harness

import (
	"fmt"
	"strconv"

	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/nemesis"
	"github.com/kchaos/kchaos/report"
	"github.com/kchaos/kchaos/workloads"
)

// auditStories are the failure stories an audit runs under a user's
// settings, each chosen for the configuration facts it exposes:
//   - s1: the leader is cut off until it is the ISR alone, then killed
//     (offline window; loss when unclean election is on);
//   - s7: the ISR shrinks to the leader, which then loses power (loss when
//     min.insync.replicas < 2, or with ELR off: Last Replica Standing);
//   - s9: a rack is cut off and lags, then the other rack loses power
//     (loss with unclean election on, else an outage);
//   - s10: a whole rack of three dies (availability with
//     min.insync.replicas against the replicas left).
//
// The stories' own topic configs and ELR choice are dropped first, so the
// user's settings (or Kafka's defaults, for what they leave out) decide.
var auditStories = []string{"s1", "s7", "s9", "s10"}

// auditStory says what each audit story does to the cluster, without the
// settings the story itself names (an audit runs the user's).
var auditStory = map[string]string{
	"s1":  "the leader is cut off from its followers until it is the ISR alone, then killed; it restarts later",
	"s7":  "the ISR shrinks to the leader, which then loses power (what it had not flushed is gone) and restarts",
	"s9":  "rack B (broker 2) is cut off from rack A (0, 1) and lags; then rack A loses power",
	"s10": "three racks, one replica each; the leader's whole rack dies",
}

// AuditOptions say what an audit runs.
type AuditOptions struct {
	// BrokerConfig and TopicConfig are the user's settings
	// (server.properties and the topic's configs).
	BrokerConfig, TopicConfig map[string]string
	// Kafka is the version to audit (default: the scenarios' default).
	Kafka string
	// Clients are the service's producer and consumer properties,
	// applied to every story's workload after the user's configs.
	Clients ClientConfigs
	// Sets apply to every story after the user's configs (e.g.
	// workload.acks=1 for producers that use acks=1), and win over
	// Clients.
	Sets []string
}

// planAudit loads every audit story with the user's settings applied,
// before any cluster starts. It returns the scenarios and, per story, the
// keys kchaos had to override.
func planAudit(opts AuditOptions) ([]*scenario.Scenario, []string, error) {
	var out []*scenario.Scenario
	var overridden []string
	for _, name := range auditStories {
		sets := []string{"cluster.elr=default"}
		if opts.Kafka != "" {
			sets = append(sets, "cluster.kafka="+opts.Kafka)
		}
		s, err := scenario.Load(name, sets)
		if err != nil {
			return nil, nil, err
		}
		s.Topic.Configs = map[string]string{}
		// A live set-config step would change what the user runs; the
		// audit stories have none, and must not grow one unnoticed.
		for i, st := range s.Nemesis.Steps {
			if sc, ok := st.Params.(nemesis.ConfigChanger); ok && len(sc.ConfigChanges()) > 0 {
				return nil, nil, fmt.Errorf("audit story %s: step %d sets topic configs live; an audit must run the user's settings", name, i)
			}
		}
		overridden = s.ApplyUserConfigs(opts.BrokerConfig, opts.TopicConfig)
		if s, err = scenario.Derive(s, "audit story "+name+" with your settings", opts.Sets); err != nil {
			return nil, nil, err
		}
		if err := ApplyClientConfigs(s, opts.Clients, opts.Sets); err != nil {
			return nil, nil, err
		}
		out = append(out, s)
	}
	return out, overridden, nil
}

// auditFacts are the configuration facts that explain an audit's
// outcomes, derived from the settings as the stories ran them (all
// stories share them). Each names the stories it bears on.
func auditFacts(s *scenario.Scenario) []report.AuditFact {
	set := s.Settings()
	var facts []report.AuditFact
	add := func(key, value, meaning string, stories ...string) {
		facts = append(facts, report.AuditFact{Setting: key, Value: value, Meaning: meaning, Stories: stories})
	}
	if n, err := strconv.Atoi(set["min.insync"]); err == nil && n < 2 {
		add("min.insync.replicas", set["min.insync"],
			"below 2: one replica alone acknowledges acks=all writes, and losing it (power, disk) loses them", "s7", "s9")
	} else if err == nil && n >= s.Topic.ReplicationFactor {
		add("min.insync.replicas", set["min.insync"],
			fmt.Sprintf("not below the replication factor %d: one replica down refuses every write", s.Topic.ReplicationFactor), "s10")
	}
	if set["unclean"] == "true" {
		add("unclean.leader.election.enable", "true",
			"an out-of-sync replica may be elected leader: acked records it lacked are lost and their offsets reused", "s1", "s9")
	} else {
		add("unclean.leader.election.enable", "false",
			"a partition whose in-sync replicas are all down stays offline until one returns", "s1", "s9")
	}
	if set["elr"] != "true" {
		add(admin.FeatureELR, "0 (ELR off)",
			"after a power loss the last leader may be re-elected with a truncated log (Last Replica Standing)", "s7")
	} else {
		add(admin.FeatureELR, "1 (ELR on)",
			"replicas that left the ISR only because it shrank stay eligible, and one of them is elected instead of an amnesiac leader", "s7")
	}
	if set["acks"] != "all" {
		add("acks", set["acks"], "the leader acknowledges before the followers have the record", auditStories...)
	}
	if s.Cluster.BrokerConfig["log.flush.interval.messages"] == "" && s.Cluster.BrokerConfig["log.flush.interval.ms"] == "" {
		add("log.flush.interval.messages", "(Kafka's default: never)",
			"Kafka acknowledges from the page cache: a power loss drops what was not flushed (kchaos cuts at the last recovery point)", "s7")
	}
	return facts
}

// AuditPlan plans an audit (PlanAudit) into a batch written to
// store/audit/<timestamp>/: a row per story saying what it lost, and the
// facts that explain it. Stories an interruption kept from starting are
// listed too: the page must say which stories it has nothing on.
func AuditPlan(opts AuditOptions) (*Plan, error) {
	stories, overridden, err := planAudit(opts)
	if err != nil {
		return nil, err
	}
	p := &Plan{Prefix: "audit", NotRun: report.AuditNotRun, Failed: report.AuditUnknown,
		Judge: judgeAudit, ListUnstarted: true, Overridden: overridden}
	w := stories[0].Workload
	page := report.Audit{Kafka: stories[0].Cluster.Kafka, Facts: auditFacts(stories[0]),
		Overridden: overridden, BrokerConfig: opts.BrokerConfig, TopicConfig: opts.TopicConfig,
		Driver:         w.ProducerInfo().Driver,
		ProducerConfig: w.ClientSettings(workloads.ProducerSide), ConsumerConfig: w.ClientSettings(workloads.ConsumerSide)}
	p.Batch = func(rows []report.Row) report.Batch { return report.AuditBatch(page, rows) }
	for _, s := range stories {
		p.Cells = append(p.Cells, Cell{Scenario: s, Row: report.Row{ID: s.Name, Scenario: s.Name,
			Description: auditStory[s.Name], Kafka: s.Cluster.Kafka}})
	}
	return p, nil
}

// judgeAudit explains a story's run for a reviewer: what was lost, and
// why the figures may not be the whole story.
func judgeAudit(_ Cell, row *report.Row, ran Ran) {
	row.Reason = unjudgedWhy(ran.Result)
	if ran.MetricsErr != nil && row.Reason == "" {
		row.Reason = ran.MetricsErr.Error()
	}
	row.Status = auditStatus(*row)
	// What the story did under these settings, from its history: a branch
	// a soft wait let it take is the outcome, not a fault.
	if ran.Result != nil && ran.Result.Dir != "" {
		var err error
		if row.Account, err = report.StoryWords(ran.Result.Dir); err != nil {
			row.Account = "no account of what happened: " + err.Error()
		}
	}
}

// auditStatus: lost when a story lost acked records or reused offsets,
// else not run, unknown when it could not be checked to a valid verdict,
// else nothing lost.
func auditStatus(r report.Row) string {
	switch {
	case r.Lost > 0 || r.Reused > 0:
		return report.AuditLost
	case r.NotRun:
		return report.AuditNotRun
	case r.Reason != "" || r.Verdict != report.Valid:
		return report.AuditUnknown
	}
	return report.AuditNothing
}
