package scenario

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/cluster"
	sshb "github.com/kchaos/kchaos/cluster/ssh"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/workloads"
)

// Validate reports every problem, each naming its field path. It is a
// driver: each part of the scenario checks itself (the cluster, the
// topic, the workload through workloads.Config, the schedule and every
// fault kind through nemesis against a ScenarioView, the outcome checks
// through their own parser), so that a rule lives beside the code that
// knows it. Bounds come first: nothing below runs on a scenario whose
// sizes could exhaust memory.
func (s *Scenario) Validate() error {
	if errs := s.checkBounds(); len(errs) > 0 {
		return errors.Join(errs...)
	}
	var errs []error
	for _, part := range []func() []error{
		s.checkName, s.checkCluster, s.checkBackend, s.checkTopic, s.checkWorkload,
		s.checkFinal, s.checkSchedule, s.checkTiered, s.checkProvenance, s.checkOutcome,
		s.crossCheck,
	} {
		errs = append(errs, part()...)
	}
	return errors.Join(errs...)
}

// problems collects field problems in the form every part reports them.
type problems []error

func (ps *problems) add(path, format string, args ...any) {
	*ps = append(*ps, fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...)))
}

func (s *Scenario) checkName() []error {
	if err := CheckName("name", s.Name); err != nil {
		return []error{err}
	}
	return nil
}

// checkCluster: the cluster's own config, and the settings kchaos adds to
// it (ELR, feature versions, log dirs).
func (s *Scenario) checkCluster() []error {
	var ps problems
	c := s.Cluster
	cc := c.ClusterConfig()
	cc.Defaults()
	if err := cc.Validate(); err != nil {
		ps.add("cluster", "%v", err)
	}
	switch c.ELR {
	case elrOn, elrOff, elrDefault:
	default:
		ps.add("cluster.elr", "%q: want on, off or default", c.ELR)
	}
	if _, err := c.txnVersion(); err != nil {
		ps.add("cluster.transaction_version", "%v", err)
	}
	if _, err := c.shareVersion(); err != nil {
		ps.add("cluster.share_version", "%v", err)
	}
	if s.Workload.Shares.Enabled() {
		ps = append(ps, s.shareConfigProblems()...)
	}
	if _, err := c.logDirSize(); err != nil {
		ps.add("cluster.log_dir_size", "%v", err)
	}
	if ld := s.Topic.LogDir; ld != nil && (*ld < 0 || *ld >= max(cc.LogDirs, 1)) {
		ps.add("topic.log_dir", "%d: the brokers have log dirs 0..%d (cluster.log_dirs: %d)", *ld, max(cc.LogDirs, 1)-1, max(cc.LogDirs, 1))
	}
	return ps
}

// checkBackend: what each backend takes, and what the ssh backend cannot
// do to hosts it does not own.
func (s *Scenario) checkBackend() []error {
	var ps problems
	c := s.Cluster
	switch c.Backend {
	case "", BackendDocker:
		if len(c.Hosts) > 0 || c.SSH != nil || c.Service != nil || c.ConfirmOwner {
			ps.add("cluster.backend", "docker: hosts, ssh, service and confirm_owner are for backend: ssh")
		}
	case BackendSSH:
		ps = append(ps, c.sshSpec().Validate("cluster")...)
		ps = append(ps, c.sshSpec().CheckFiles("cluster")...)
		if c.Quorum.IsDynamic() {
			ps.add("cluster.quorum.dynamic", "the ssh backend runs your hosts' own quorum as they are formatted: kchaos cannot format it as a dynamic quorum (backend docker only)")
		}
		if c.LogDirs > 1 || c.LogDirSize != "" || s.Topic.LogDir != nil {
			ps.add("cluster.log_dirs", "the ssh backend runs your hosts' own log.dirs (service.log_dirs): kchaos cannot add or bound log dirs there, place replicas in them, or fail disks (log_dirs, log_dir_size, topic.log_dir are for backend docker)")
		}
		if !c.ConfirmOwner {
			ps = append(ps, sshb.ErrNotConfirmed)
		}
	default:
		ps.add("cluster.backend", "%q: want docker or ssh", c.Backend)
	}
	return ps
}

// checkTopic: sizes, the replica assignment against the brokers, and the
// config keys.
func (s *Scenario) checkTopic() []error {
	var ps problems
	t, brokers := s.Topic, s.Cluster.Brokers
	if t.Partitions < 1 {
		ps.add("topic.partitions", "%d: want at least 1", t.Partitions)
	}
	switch {
	case t.ReplicationFactor < 1:
		ps.add("topic.replication_factor", "%d: want at least 1", t.ReplicationFactor)
	case brokers >= 1 && t.ReplicationFactor > brokers:
		ps.add("topic.replication_factor", "%d: want 1..%d (the number of brokers)", t.ReplicationFactor, brokers)
	}
	if len(t.Assignment) > 0 && len(t.Assignment) != t.Partitions {
		ps.add("topic.assignment", "%d replica lists for %d partitions", len(t.Assignment), t.Partitions)
	}
	for i, replicas := range t.Assignment {
		p := fmt.Sprintf("topic.assignment[%d]", i)
		if len(replicas) != t.ReplicationFactor {
			ps.add(p, "%d replicas, want replication_factor %d", len(replicas), t.ReplicationFactor)
		}
		seen := map[int32]bool{}
		for _, b := range replicas {
			if b < 0 || int(b) >= brokers {
				ps.add(p, "broker %d does not exist (brokers are 0..%d)", b, brokers-1)
			}
			if seen[b] {
				ps.add(p, "broker %d twice", b)
			}
			seen[b] = true
		}
	}
	for _, k := range slices.Sorted(maps.Keys(t.Configs)) {
		if strings.TrimSpace(k) == "" {
			ps.add("topic.configs", "empty key")
		}
	}
	return ps
}

// checkWorkload: the workload against the topic and the release, then
// its own rules (workloads.Config.Validate, the driver's included).
func (s *Scenario) checkWorkload() []error {
	var ps problems
	if s.Workload.Topic != s.Topic.Name {
		ps.add("workload.topic", "%q differs from topic.name %q", s.Workload.Topic, s.Topic.Name)
	}
	cc := s.Cluster.ClusterConfig()
	cc.Defaults()
	if v, err := cluster.ParseVersion(cc.KafkaVersion); err == nil {
		if path, problem := s.WorkloadVersionProblem(v); problem != "" {
			ps.add(path, "%s", problem)
		}
	}
	if s.Workload.Partitions > s.Topic.Partitions {
		ps.add("workload.partitions", "%d: the topic has %d", s.Workload.Partitions, s.Topic.Partitions)
	}
	wc := s.WorkloadConfig()
	err := wc.Validate()
	var ve *workloads.ValidationError
	switch {
	case err == nil:
	case errors.As(err, &ve):
		// The final-read bound is final.read_timeout in a scenario,
		// reported by checkFinal under that name.
		ve.Problems = slices.DeleteFunc(ve.Problems, func(p workloads.FieldError) bool {
			return p.Path == "final_read_timeout"
		})
		if len(ve.Problems) > 0 {
			ps = append(ps, ve.Under("workload"))
		}
	default:
		ps = append(ps, err)
	}
	return ps
}

func (s *Scenario) checkFinal() []error {
	var ps problems
	if s.Final.RecoverTimeout <= 0 {
		ps.add("final.recover_timeout", "%s: want > 0", s.Final.RecoverTimeout)
	}
	if s.Final.ReadTimeout <= 0 {
		ps.add("final.read_timeout", "%s: want > 0", s.Final.ReadTimeout)
	}
	if wc := s.WorkloadConfig(); s.Final.AbortHanging && !histories.IsReadCommitted(wc.FinalReadIsolation()) {
		ps.add("final.abort_hanging", "needs a read_committed final read (workload.transactions.enabled, or workload.isolation read_committed)")
	}
	return ps
}

// checkSchedule: the schedule's own rules and every fault against what
// the chosen backend can do. What the steps need of the rest of the
// scenario is crossCheck's (ScenarioView).
func (s *Scenario) checkSchedule() []error {
	var ps problems
	if r := s.Nemesis.Random; r != nil && r.Seed != 0 && s.Seed != 0 && r.Seed != s.Seed {
		ps.add("nemesis.random.seed", "%d differs from seed %d: set one (each defaults to the other)", r.Seed, s.Seed)
	}
	if err := s.Nemesis.Validate(); err != nil {
		ps = append(ps, err)
	}
	if err := s.Nemesis.CheckBackend(s.Cluster.backendName(), s.Cluster.capabilities()); err != nil {
		ps = append(ps, err)
	}
	return ps
}

// checkProvenance: the JIRA ids, documents and finding a story cites.
func (s *Scenario) checkProvenance() []error {
	var ps problems
	for i, id := range s.Jira {
		if err := histories.CheckJira(id); err != nil {
			ps.add(fmt.Sprintf("jira[%d]", i), "%v", err)
		}
	}
	for i, d := range s.Docs {
		if err := histories.CheckDocURL(d); err != nil {
			ps.add(fmt.Sprintf("docs[%d]", i), "%v", err)
		}
	}
	return append(ps, s.Finding.check()...)
}

func (s *Scenario) checkOutcome() []error {
	_, errs := s.Expectation.Checks("outcome", KnownSetting)
	return errs
}
