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
	"github.com/kchaos/kchaos/nemesis"
	"github.com/kchaos/kchaos/workloads"
)

// Validate reports every problem, each naming its field path.
func (s *Scenario) Validate() error {
	var errs []error
	add := func(path, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...)))
	}
	if errs := s.checkBounds(); len(errs) > 0 {
		return errors.Join(errs...)
	}
	if err := CheckName("name", s.Name); err != nil {
		errs = append(errs, err)
	}
	c := s.Cluster
	cc := c.ClusterConfig()
	cc.Defaults()
	if err := cc.Validate(); err != nil {
		add("cluster", "%v", err)
	}
	switch c.ELR {
	case ELROn, ELROff, ELRDefault:
	default:
		add("cluster.elr", "%q: want on, off or default", c.ELR)
	}
	if _, err := c.txnVersion(); err != nil {
		add("cluster.transaction_version", "%v", err)
	}
	if _, err := c.shareVersion(); err != nil {
		add("cluster.share_version", "%v", err)
	}
	if s.Workload.Shares.Enabled() {
		errs = append(errs, s.shareConfigProblems()...)
	}
	if _, err := c.logDirSize(); err != nil {
		add("cluster.log_dir_size", "%v", err)
	}
	if ld := s.Topic.LogDir; ld != nil && (*ld < 0 || *ld >= max(cc.LogDirs, 1)) {
		add("topic.log_dir", "%d: the brokers have log dirs 0..%d (cluster.log_dirs: %d)", *ld, max(cc.LogDirs, 1)-1, max(cc.LogDirs, 1))
	}
	switch c.Backend {
	case "", BackendDocker:
		if len(c.Hosts) > 0 || c.SSH != nil || c.Service != nil || c.ConfirmOwner {
			add("cluster.backend", "docker: hosts, ssh, service and confirm_owner are for backend: ssh")
		}
	case BackendSSH:
		errs = append(errs, c.SSHSpec().Validate("cluster")...)
		errs = append(errs, c.SSHSpec().CheckFiles("cluster")...)
		if c.Quorum.IsDynamic() {
			add("cluster.quorum.dynamic", "the ssh backend runs your hosts' own quorum as they are formatted: kchaos cannot format it as a dynamic quorum (backend docker only)")
		}
		if c.LogDirs > 1 || c.LogDirSize != "" || s.Topic.LogDir != nil {
			add("cluster.log_dirs", "the ssh backend runs your hosts' own log.dirs (service.log_dirs): kchaos cannot add or bound log dirs there, place replicas in them, or fail disks (log_dirs, log_dir_size, topic.log_dir are for backend docker)")
		}
		if !c.ConfirmOwner {
			errs = append(errs, sshb.ErrNotConfirmed)
		}
	default:
		add("cluster.backend", "%q: want docker or ssh", c.Backend)
	}
	t := s.Topic
	if t.Partitions < 1 {
		add("topic.partitions", "%d: want at least 1", t.Partitions)
	}
	switch {
	case t.ReplicationFactor < 1:
		add("topic.replication_factor", "%d: want at least 1", t.ReplicationFactor)
	case c.Brokers >= 1 && t.ReplicationFactor > c.Brokers:
		add("topic.replication_factor", "%d: want 1..%d (the number of brokers)", t.ReplicationFactor, c.Brokers)
	}
	if len(t.Assignment) > 0 && len(t.Assignment) != t.Partitions {
		add("topic.assignment", "%d replica lists for %d partitions", len(t.Assignment), t.Partitions)
	}
	for i, replicas := range t.Assignment {
		if len(replicas) != t.ReplicationFactor {
			add(fmt.Sprintf("topic.assignment[%d]", i), "%d replicas, want replication_factor %d", len(replicas), t.ReplicationFactor)
		}
		seen := map[int32]bool{}
		for _, b := range replicas {
			if b < 0 || int(b) >= c.Brokers {
				add(fmt.Sprintf("topic.assignment[%d]", i), "broker %d does not exist (brokers are 0..%d)", b, c.Brokers-1)
			}
			if seen[b] {
				add(fmt.Sprintf("topic.assignment[%d]", i), "broker %d twice", b)
			}
			seen[b] = true
		}
	}
	if s.Workload.Topic != t.Name {
		add("workload.topic", "%q differs from topic.name %q", s.Workload.Topic, t.Name)
	}
	if v, err := cluster.ParseVersion(cc.KafkaVersion); err == nil {
		if path, problem := s.WorkloadVersionProblem(v); problem != "" {
			add(path, "%s", problem)
		}
	}
	if s.Workload.Partitions > t.Partitions {
		add("workload.partitions", "%d: the topic has %d", s.Workload.Partitions, t.Partitions)
	}
	if s.Final.RecoverTimeout <= 0 {
		add("final.recover_timeout", "%s: want > 0", s.Final.RecoverTimeout)
	}
	if s.Final.ReadTimeout <= 0 {
		add("final.read_timeout", "%s: want > 0", s.Final.ReadTimeout)
	}
	if wc := s.WorkloadConfig(); s.Final.AbortHanging && !histories.IsReadCommitted(wc.FinalReadIsolation()) {
		add("final.abort_hanging", "needs a read_committed final read (workload.transactions.enabled, or workload.isolation read_committed)")
	}
	if r := s.Nemesis.Random; r != nil && r.Seed != 0 && s.Seed != 0 && r.Seed != s.Seed {
		add("nemesis.random.seed", "%d differs from seed %d: set one (each defaults to the other)", r.Seed, s.Seed)
	}
	wc := s.WorkloadConfig()
	if err := wc.Validate(); err != nil {
		var ve *workloads.ValidationError
		if errors.As(err, &ve) {
			// The final-read bound is final.read_timeout in a scenario,
			// reported above under that name.
			ve.Problems = slices.DeleteFunc(ve.Problems, func(p workloads.FieldError) bool {
				return p.Path == "final_read_timeout"
			})
			if len(ve.Problems) > 0 {
				errs = append(errs, ve.Under("workload"))
			}
		} else {
			errs = append(errs, err)
		}
	}
	if err := s.Nemesis.Validate(); err != nil {
		errs = append(errs, err)
	}
	// Every fault against what the chosen backend can do, before any
	// cluster starts.
	if err := s.Nemesis.CheckBackend(c.backendName(), c.capabilities()); err != nil {
		errs = append(errs, err)
	}
	// The coordinator role and move-coordinator read the workload's
	// transactional ids: without
	// transactions it could only fail when the step fires.
	if !s.Workload.Transactions.Enabled {
		for i, st := range s.Nemesis.Steps {
			if st.Target != nil && st.Target.Role == nemesis.RoleTxnCoordinator {
				add(fmt.Sprintf("nemesis.steps[%d].target.role", i), "%s needs workload.transactions.enabled: the workload has no transactional id", nemesis.RoleTxnCoordinator)
			}
			if st.Fault == histories.FMoveCoordinator {
				add(fmt.Sprintf("nemesis.steps[%d].fault", i), "%s needs workload.transactions.enabled: the workload has no transactional id", histories.FMoveCoordinator)
			}
		}
		if r := s.Nemesis.Random; r != nil && r.Targets != nil && r.Targets.Role == nemesis.RoleTxnCoordinator {
			add("nemesis.random.targets.role", "%s needs workload.transactions.enabled: the workload has no transactional id", nemesis.RoleTxnCoordinator)
		}
	}
	// Member faults act on the workload's group members, and name one of
	// them: without a group (or with a name it does not have) they could
	// only fail when the step fires.
	for i, st := range s.Nemesis.Steps {
		if t := st.Target; t != nil && (t.Role == nemesis.RoleGroupCoordinator || t.Role == nemesis.RoleGroupCoordinatorFollowers) &&
			!s.Workload.Group.Enabled() {
			add(fmt.Sprintf("nemesis.steps[%d].target.role", i), "%s needs workload.group: the workload has no consumer group", t.Role)
		}
		if t := st.Target; t != nil && t.Role == nemesis.RoleShareCoordinator && !s.Workload.Shares.Enabled() {
			add(fmt.Sprintf("nemesis.steps[%d].target.role", i), "%s needs workload.shares: the workload has no share group", t.Role)
		}
		if u := st.Until; u != nil && u.ShareStart != nil && !s.Workload.Shares.Enabled() {
			add(fmt.Sprintf("nemesis.steps[%d].until.share_start_offset", i), "needs workload.shares: the workload has no share group")
		}
		if !strings.HasPrefix(st.Fault, "member-") && st.Heal != histories.HealMember {
			continue
		}
		g, sh := s.Workload.Group, s.Workload.Shares
		if !g.Enabled() && !sh.Enabled() {
			add(fmt.Sprintf("nemesis.steps[%d]", i), "%s%s needs workload.group or workload.shares: the workload has no group members", st.Fault, st.Heal)
			continue
		}
		if m := memberOf(st); m != "" && m != nemesis.RoleRandom {
			var names []string
			for j := range g.Members {
				names = append(names, workloads.MemberName(j))
			}
			for j := range sh.Members {
				names = append(names, workloads.ShareMemberName(j))
			}
			if !slices.Contains(names, m) {
				add(fmt.Sprintf("nemesis.steps[%d].member", i), "%q: the group's members are %s (or random)", m, strings.Join(names, ", "))
			}
		}
	}
	for i, st := range s.Nemesis.Steps {
		// producer-crash crashes a plain producer of this workload.
		if st.Fault == histories.FProducerCrash {
			p := fmt.Sprintf("nemesis.steps[%d]", i)
			if s.Workload.Transactions.Enabled {
				add(p+".fault", "%s crashes plain producers; transactional ones crash with workload.transactions.crash_rate (a successor fences the zombie)", histories.FProducerCrash)
			}
			if pc, ok := st.Params.(*nemesis.ProducerCrashParams); ok && pc.Producer != nil && *pc.Producer >= s.Workload.Producers {
				add(p+".producer", "%d: the workload has %d producer(s), 0..%d", *pc.Producer, s.Workload.Producers, s.Workload.Producers-1)
			}
		}
		if lu, ok := st.Params.(*nemesis.LoseUnflushedParams); ok && lu.Model == nemesis.ModelWriteback && !s.logAppendTime() {
			add(fmt.Sprintf("nemesis.steps[%d].model", i), "writeback dates each batch by the broker's append time: "+
				"set topic.configs.message.timestamp.type: LogAppendTime (or cluster.broker_config.log.message.timestamp.type)")
		}
	}
	for _, k := range slices.Sorted(maps.Keys(t.Configs)) {
		if strings.TrimSpace(k) == "" {
			add("topic.configs", "empty key")
		}
	}
	errs = append(errs, s.checkTiered()...)
	for i, id := range s.Jira {
		if err := histories.CheckJira(id); err != nil {
			add(fmt.Sprintf("jira[%d]", i), "%v", err)
		}
	}
	for i, d := range s.Docs {
		if err := histories.CheckDocURL(d); err != nil {
			add(fmt.Sprintf("docs[%d]", i), "%v", err)
		}
	}
	errs = append(errs, s.Finding.check()...)
	_, expectationErrs := s.Expectation.Checks("outcome", KnownSetting)
	errs = append(errs, expectationErrs...)
	errs = append(errs, s.crossCheck()...)
	return errors.Join(errs...)
}

// memberOf is the member a member fault's step names ("" for none).
func memberOf(st nemesis.Step) string {
	switch p := st.Params.(type) {
	case *nemesis.MemberParams:
		return p.Member
	case *nemesis.MemberStallParams:
		return p.Member
	}
	return ""
}
