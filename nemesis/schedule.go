package nemesis

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/internal/duration"
)

// Schedule is when faults fire: scripted Steps, or a seeded Random mix.
// It is what a scenario file's `nemesis:` section decodes into (YAML), e.g.
//
//	nemesis:
//	  steps:
//	    - wait: 5s
//	    - fault: partition
//	      shape: leader-followers        # isolate | racks | leader-followers | from-controller | majority-minority | bridge | groups
//	      target: {role: leader, partition: 0}
//	    - until: {partition: 0, isr: [0]}
//	      timeout: 30s
//	    - fault: kill
//	      target: {role: leader, partition: 0}
//	    - until: {partition: 0, offline: true}
//	    - fault: set-config
//	      config: {unclean.leader.election.enable: "true"}
//	    - fault: netem                   # degrade links: a partition shape's cut links, or clients
//	      shape: clients
//	      target: {role: leader, partition: 0}
//	      netem: {delay: 100ms, jitter: 20ms, loss: 5%, duplicate: 1%, reorder: 25%, rate: 1mbit}
//	    - fault: cut-clients             # the client side (kchaos) loses these brokers
//	      target: {role: followers, partition: 0}
//	    - fault: producer-crash          # a producer client dies; a new one (new processes) starts
//	      producer: 0                    # the workload's producer client (absent: a seeded draw)
//	      for: 2s                        # down this long first (default: restart at once)
//	    - wait: 10s
//	    - fault: disk-fail               # or disk-full (a bounded dir: cluster.log_dir_size)
//	      target: {role: followers, partition: 0}
//	      dir: 1                         # index in log.dirs (cluster.log_dirs)
//	    - fault: disk-slow               # the broker's block I/O on the dir's disk
//	      target: {role: leader, partition: 0}
//	      dir: 0
//	      rate: 64KiB                    # bytes per second
//	    - heal: all                      # or a heal kind: partition (also cut-clients), pause, kill, netem, disk
//	  random:                            # instead of steps
//	    seed: 42
//	    interval: 10s
//	    duration: 60s                    # how long to keep injecting
//	    faults: [pause, kill, partition-racks, restart]
//	    targets: {role: random, count: 1}
//	  random:                            # or in periods (Jepsen's rotating subsets)
//	    seed: 42
//	    faults: [pause, kill, partition-racks, restart]
//	    subset: 2                        # faults together in each period
//	    active: 10s                      # how long they hold
//	    quiet: 5s                        # then all healed, and nothing
//	    duration: 120s
type Schedule struct {
	Steps  []Step          `yaml:"steps,omitempty" json:"steps,omitempty"`
	Random *RandomSchedule `yaml:"random,omitempty" json:"random,omitempty"`
}

// Step is one scripted action: exactly one of Wait, Until, Fault or Heal.
type Step struct {
	// Wait sleeps for a duration.
	Wait Duration `yaml:"wait,omitempty" json:"wait,omitempty"`
	// Until waits until a cluster condition holds, at most Timeout (default
	// 60s); a timeout fails the schedule (the final heal still runs).
	Until *Condition `yaml:"until,omitempty" json:"until,omitempty"`
	// Timeout bounds an Until (default 60s), a restart's wait for the
	// broker to be unfenced again (default 90s), or a disk fault's wait for
	// Kafka to report the dir offline (default 30s).
	Timeout Duration `yaml:"timeout,omitempty" json:"timeout,omitempty"`
	// Optional makes an until a soft wait: when its timeout passes, the
	// schedule goes on instead of failing. For steps whose condition depends
	// on a setting a matrix varies (a leader that only an unclean election
	// can make).
	Optional bool `yaml:"optional,omitempty" json:"optional,omitempty"`
	// Fault injects a fault by name: partition, pause, resume, kill, start,
	// restart, lose-unflushed, set-config, elect-unclean, elect-preferred,
	// upgrade, set-feature, move-coordinator, disk-fail, disk-full,
	// disk-slow, netem, cut-clients, producer-crash.
	Fault string `yaml:"fault,omitempty" json:"fault,omitempty"`
	// Shape of a partition fault (default isolate), or the links a netem
	// fault degrades: a partition shape's cut links, or clients.
	Shape string `yaml:"shape,omitempty" json:"shape,omitempty"`
	// Groups are the node groups of shape groups, e.g. [[0], [2]]: every
	// group is cut from every other; nodes in no group keep all links.
	Groups [][]int32 `yaml:"groups,omitempty" json:"groups,omitempty"`
	// Target chooses the nodes when the fault fires.
	Target *Target `yaml:"target,omitempty" json:"target,omitempty"`
	// Config is the topic config to set (set-config); a null value deletes.
	Config map[string]*string `yaml:"config,omitempty" json:"config,omitempty"`
	// Start asks lose-unflushed to start the broker again after the cut.
	Start bool `yaml:"start,omitempty" json:"start,omitempty"`
	// Dir is the log dir a disk fault acts on: its index in the broker's
	// log.dirs (cluster.log_dirs); 0 is the first, which also holds the
	// metadata log (Kafka halts the broker when that one fails).
	Dir *int `yaml:"dir,omitempty" json:"dir,omitempty"`
	// Rate is disk-slow's limit in bytes per second ("64KiB", "1MiB") on
	// the broker's reads and writes of the dir's disk.
	Rate string `yaml:"rate,omitempty" json:"rate,omitempty"`
	// Model is lose-unflushed's power-loss model: recovery-point (the
	// default: only what Kafka fsynced survives) or writeback (also what
	// the kernel's page-cache writeback had written by the cut; see
	// Writeback), with DirtyExpire and WritebackInterval (Linux's
	// defaults, 30s and 5s, when not given).
	Model             string   `yaml:"model,omitempty" json:"model,omitempty"`
	DirtyExpire       Duration `yaml:"dirty_expire,omitempty" json:"dirty_expire,omitempty"`
	WritebackInterval Duration `yaml:"writeback_interval,omitempty" json:"writeback_interval,omitempty"`
	// Heal undoes faults: "all", or one heal kind (partition, which also
	// removes client cuts, pause, kill, netem, disk).
	Heal string `yaml:"heal,omitempty" json:"heal,omitempty"`
	// Version is the Kafka release an upgrade moves nodes to ("4.4.0",
	// "4.4.x", "latest"); Finalize then raises metadata.version.
	Version  string `yaml:"version,omitempty" json:"version,omitempty"`
	Finalize bool   `yaml:"finalize,omitempty" json:"finalize,omitempty"`
	// Feature is the finalized feature levels a set-feature sets, e.g.
	// {eligible.leader.replicas.version: 1}.
	Feature map[string]int16 `yaml:"feature,omitempty" json:"feature,omitempty"`
	// Member is the group member a member fault acts on (member-0, ...),
	// or random (the default): groupfault.go.
	Member string `yaml:"member,omitempty" json:"member,omitempty"`
	// For is how long a member-stall stops the member, or how long a
	// crashed producer stays down before its successor starts.
	For Duration `yaml:"for,omitempty" json:"for,omitempty"`
	// Netem is what a netem fault does to each link (netem.go).
	Netem *NetemSpec `yaml:"netem,omitempty" json:"netem,omitempty"`
	// Producer is the workload's producer client a producer-crash crashes
	// (0-based; absent: one drawn with the run's seed when it fires); For
	// (default 0: at once) says when its successor starts.
	Producer *int `yaml:"producer,omitempty" json:"producer,omitempty"`
}

// Target selects nodes at the moment a fault fires.
type Target struct {
	// Role: leader, followers, isr, out-of-isr, controller (the active one),
	// rack, random, nodes, txn-coordinator.
	Role string `yaml:"role,omitempty" json:"role,omitempty"`
	// Partition of the workload topic whose leader/followers/ISR is meant.
	Partition int32 `yaml:"partition,omitempty" json:"partition,omitempty"`
	// Rack name (role rack; for shape racks, the rack on one side).
	Rack string `yaml:"rack,omitempty" json:"rack,omitempty"`
	// Count of random brokers (role random; default 1).
	Count int `yaml:"count,omitempty" json:"count,omitempty"`
	// Nodes are explicit node ids (role nodes).
	Nodes []int32 `yaml:"nodes,omitempty" json:"nodes,omitempty"`
}

// Condition is a cluster state to wait for, on one partition of the
// workload topic, or on brokers. Every field set must hold.
type Condition struct {
	Partition int32   `yaml:"partition,omitempty" json:"partition,omitempty"`
	ISR       []int32 `yaml:"isr,omitempty" json:"isr,omitempty"` // equal as sets
	// Offline true: the partition has no leader (-1); false: it has one.
	Offline       *bool  `yaml:"offline,omitempty" json:"offline,omitempty"`
	Leader        *int32 `yaml:"leader,omitempty" json:"leader,omitempty"`
	HighWatermark *int64 `yaml:"high_watermark,omitempty" json:"high_watermark,omitempty"` // at least
	// Live brokers are registered and unfenced (others may be too).
	Live []int32 `yaml:"live,omitempty" json:"live,omitempty"`
	// Fenced brokers are not live: killed, or cut off from the controller.
	Fenced []int32 `yaml:"fenced,omitempty" json:"fenced,omitempty"`
}

// RandomSchedule injects a seeded random mix of faults: the same seed gives
// the same sequence of (time, fault, target) choices (see Plan).
//
// With Active set it runs in periods instead of intervals: each period
// draws Subset distinct faults of the mix, injects them one after the
// other, holds them all for Active, heals them and stays quiet for Quiet,
// so that a long run explores combinations of faults with recoveries
// between them.
type RandomSchedule struct {
	Seed     int64    `yaml:"seed" json:"seed"`
	Interval Duration `yaml:"interval,omitempty" json:"interval,omitempty"`
	Duration Duration `yaml:"duration" json:"duration"`
	// Subset is how many distinct faults of the mix a period combines
	// (default 1); Active how long they hold together; Quiet how long the
	// cluster then runs without faults. Periods mode only (Active > 0).
	Subset int      `yaml:"subset,omitempty" json:"subset,omitempty"`
	Active Duration `yaml:"active,omitempty" json:"active,omitempty"`
	Quiet  Duration `yaml:"quiet,omitempty" json:"quiet,omitempty"`
	// Faults is the mix, drawn uniformly (repeat a name to weight it):
	// pause, kill, restart, lose-unflushed, cut-clients, partition (=
	// partition-isolate), partition-<shape>, netem (= netem-isolate),
	// netem-<shape> and netem-clients.
	Faults  []string `yaml:"faults" json:"faults"`
	Targets *Target  `yaml:"targets,omitempty" json:"targets,omitempty"`
	// Netem is what every drawn netem does to its links (default
	// DefaultRandomNetem: loss 10%).
	Netem *NetemSpec `yaml:"netem,omitempty" json:"netem,omitempty"`
}

// Partition shapes.
const (
	ShapeIsolate          = "isolate"
	ShapeRacks            = "racks"
	ShapeLeaderFollowers  = "leader-followers"
	ShapeFromController   = "from-controller"
	ShapeMajorityMinority = "majority-minority"
	ShapeBridge           = "bridge"
	ShapeGroups           = "groups"
)

// Target roles.
const (
	RoleLeader     = "leader"
	RoleFollowers  = "followers"
	RoleISR        = "isr"
	RoleOutOfISR   = "out-of-isr"
	RoleController = "controller"
	RoleRack       = "rack"
	RoleRandom     = "random"
	RoleNodes      = "nodes"
	// RoleTxnCoordinator is the transaction coordinator of the workload's
	// first transactional producer: the leader of the __transaction_state
	// partition that owns its transactional id.
	RoleTxnCoordinator = "txn-coordinator"
)

var (
	faultNames = []string{histories.FPartition, histories.FPause, histories.FResume, histories.FKill, histories.FStart, histories.FRestart,
		histories.FLoseUnflushed, histories.FSetConfig, histories.FElectUnclean, histories.FElectPreferred, histories.FUpgrade, histories.FSetFeature,
		histories.FMemberKill, histories.FMemberLeave, histories.FMemberStart, histories.FMemberStall,
		histories.FMoveCoordinator, histories.FDiskFail, histories.FDiskFull, histories.FDiskSlow, histories.FNetem, histories.FCutClients, histories.FProducerCrash}
	shapeNames = []string{ShapeIsolate, ShapeRacks, ShapeLeaderFollowers,
		ShapeFromController, ShapeMajorityMinority, ShapeBridge, ShapeGroups}
	roleNames = []string{RoleLeader, RoleFollowers, RoleISR, RoleOutOfISR,
		RoleController, RoleRack, RoleRandom, RoleNodes, RoleTxnCoordinator,
		RoleGroupCoordinator, RoleGroupCoordinatorFollowers}
	healNames = append([]string{histories.HealAll}, histories.HealKinds()...)
	// needsTarget: faults that act on nodes and have no sensible default.
	needsTarget = []string{histories.FPause, histories.FKill, histories.FRestart, histories.FLoseUnflushed, histories.FDiskFail, histories.FDiskFull, histories.FDiskSlow, histories.FMoveCoordinator, histories.FCutClients}
	// diskFaults take a dir.
	diskFaults = []string{histories.FDiskFail, histories.FDiskFull, histories.FDiskSlow}
	// partitionRoles: roles that read a partition's state (a partition
	// given with any other role would be ignored, so it is refused).
	partitionRoles = []string{RoleLeader, RoleFollowers, RoleISR, RoleOutOfISR}
)

// DefaultUntilTimeout bounds an Until step without a Timeout.
const DefaultUntilTimeout = 60 * time.Second

// Duration is a time.Duration that YAML and JSON spell as "5s", "1m30s"
// (the same type as workloads.Duration).
type Duration = duration.Duration

// ParseSchedule decodes the YAML of a `nemesis:` section (its content, not
// the key) strictly, so that a misspelt field is an error rather than a
// silently ignored fault, and validates it.
func ParseSchedule(data []byte) (Schedule, error) {
	var s Schedule
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	// An empty document (io.EOF) is an empty schedule: only the final heal.
	if err := dec.Decode(&s); err != nil && !errors.Is(err, io.EOF) {
		return Schedule{}, fmt.Errorf("nemesis: %w", err)
	}
	return s, s.Validate()
}

// Validate reports every problem with s, each prefixed by its field path
// (nemesis.steps[2].fault: unknown fault "kil"), joined into one error.
func (s *Schedule) Validate() error {
	var errs []error
	add := func(path, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...)))
	}
	if len(s.Steps) > 0 && s.Random != nil {
		add("nemesis", "steps and random are exclusive")
	}
	for i := range s.Steps {
		validateStep(fmt.Sprintf("nemesis.steps[%d]", i), &s.Steps[i], add)
	}
	if r := s.Random; r != nil {
		validatePeriods(r, add)
		if len(r.Faults) == 0 {
			add("nemesis.random.faults", "empty: name at least one fault")
		}
		for i, f := range r.Faults {
			if _, _, ok := randomFault(f); !ok {
				add(fmt.Sprintf("nemesis.random.faults[%d]", i), "unknown fault %q (want %s)", f, strings.Join(randomFaultNames(), ", "))
			}
		}
		if r.Targets != nil {
			validateTarget("nemesis.random.targets", r.Targets, false, false, add)
		}
		if r.Netem != nil {
			validateNetem("nemesis.random", &Step{Fault: histories.FNetem, Netem: r.Netem}, add)
			if !slices.ContainsFunc(r.Faults, func(f string) bool { g, _, _ := randomFault(f); return g == histories.FNetem }) {
				add("nemesis.random.netem", "the mix draws no netem (name netem, netem-<shape> or netem-clients in faults)")
			}
		}
	}
	return errors.Join(errs...)
}

type addFunc func(path, format string, args ...any)

func validateStep(p string, st *Step, add addFunc) {
	var set []string
	if st.Wait > 0 {
		set = append(set, "wait")
	}
	if st.Until != nil {
		set = append(set, "until")
	}
	if st.Fault != "" {
		set = append(set, "fault")
	}
	if st.Heal != "" {
		set = append(set, "heal")
	}
	if len(set) != 1 {
		add(p, "want exactly one of wait, until, fault, heal (got %s)", orNone(set))
		return
	}
	only := func(ok bool, field, what string) {
		if !ok {
			add(p+"."+field, "only for %s", what)
		}
	}
	// netem picks its links with the partition's shapes (netem.go).
	isPart := st.Fault == histories.FPartition || st.Fault == histories.FNetem
	only(st.Shape == "" || isPart, "shape", "fault partition or netem")
	only(len(st.Groups) == 0 || (isPart && st.Shape == ShapeGroups), "groups", "fault partition or netem with shape groups")
	only(st.Netem == nil || st.Fault == histories.FNetem, "netem", "fault netem")
	only(len(st.Config) == 0 || st.Fault == histories.FSetConfig, "config", "fault set-config")
	only(!st.Start || st.Fault == histories.FLoseUnflushed, "start", "fault lose-unflushed")
	validateModel(p, st, add)
	isDisk := slices.Contains(diskFaults, st.Fault)
	waitsForKafka := st.Fault == histories.FDiskFail || st.Fault == histories.FDiskFull
	only(st.Timeout == 0 || st.Until != nil || st.Fault == histories.FRestart || st.Fault == histories.FUpgrade || waitsForKafka,
		"timeout", "until and faults restart, upgrade, disk-fail and disk-full")
	only(st.Dir == nil || isDisk, "dir", "faults disk-fail, disk-full and disk-slow")
	only(st.Rate == "" || st.Fault == histories.FDiskSlow, "rate", "fault disk-slow")
	only(st.Version == "" || st.Fault == histories.FUpgrade, "version", "fault upgrade")
	only(!st.Finalize || st.Fault == histories.FUpgrade, "finalize", "fault upgrade")
	only(len(st.Feature) == 0 || st.Fault == histories.FSetFeature, "feature", "fault set-feature")
	only(!st.Optional || st.Until != nil, "optional", "until")
	only(st.Target == nil || st.Fault != "", "target", "faults")
	isMember := slices.Contains(memberFaults, st.Fault)
	only(st.Member == "" || isMember, "member", "member faults ("+strings.Join(memberFaults, ", ")+")")
	only(st.For == 0 || st.Fault == histories.FMemberStall || st.Fault == histories.FProducerCrash, "for", "faults member-stall and producer-crash")
	only(st.Target == nil || !isMember, "target", "node faults (a member fault names a member)")
	if st.Fault == histories.FMemberStall && st.For <= 0 {
		add(p+".for", "member-stall needs a duration (for: 15s), longer than the group's max_poll_interval to make it leave")
	}
	only(st.Producer == nil || st.Fault == histories.FProducerCrash, "producer", "fault producer-crash")
	if st.Fault == histories.FProducerCrash {
		validateProducerCrash(p, st, add) // producer_crash.go
	}
	switch {
	case st.Until != nil:
		validateCondition(p+".until", st.Until, add)
	case st.Heal != "":
		if !slices.Contains(healNames, st.Heal) {
			add(p+".heal", "unknown heal %q (want %s)", st.Heal, strings.Join(healNames, ", "))
		}
	case st.Fault != "":
		if !slices.Contains(faultNames, st.Fault) {
			add(p+".fault", "unknown fault %q (want %s)", st.Fault, strings.Join(faultNames, ", "))
			return
		}
		if st.Fault == histories.FNetem {
			validateNetem(p, st, add)
		}
		if isPart && st.Shape != "" && !slices.Contains(shapeNames, st.Shape) &&
			!(st.Fault == histories.FNetem && st.Shape == ShapeClients) {
			add(p+".shape", "unknown shape %q (want %s)", st.Shape, strings.Join(shapeNames, ", "))
		}
		shape := st.Shape
		if isPart && shape == "" {
			shape = ShapeIsolate
		}
		needs := slices.Contains(needsTarget, st.Fault) ||
			(isPart && (shape == ShapeIsolate || shape == ShapeFromController || shape == ShapeMajorityMinority || shape == ShapeClients))
		if needs && st.Target == nil {
			add(p+".target", "fault %s needs a target", describeFault(st.Fault, shape))
		}
		if st.Target != nil {
			// Shapes and elections that read one partition take a target
			// that is only a partition number.
			noRole := st.Fault == histories.FElectUnclean || st.Fault == histories.FElectPreferred ||
				(isPart && (shape == ShapeLeaderFollowers || shape == ShapeRacks))
			validateTarget(p+".target", st.Target, noRole, isPart && shape == ShapeRacks, add)
			if isPart && shape == ShapeLeaderFollowers && st.Target.Role != "" && st.Target.Role != RoleLeader {
				add(p+".target.role", "shape leader-followers takes role leader (or none) and a partition")
			}
			if isPart && shape == ShapeRacks && st.Target.Role != "" && st.Target.Role != RoleRack {
				add(p+".target.role", "shape racks takes role rack (or none)")
			}
		}
		if isPart && shape == ShapeGroups {
			validateGroups(p, st, add)
		}
		validateUpgrade(p, st, add)
		if isDisk {
			if st.Dir == nil {
				add(p+".dir", "fault %s needs dir: the log dir's index in log.dirs (0 is the first, which holds the metadata log: Kafka halts the broker when it fails)", st.Fault)
			} else if *st.Dir < 0 {
				add(p+".dir", "must not be negative")
			}
		}
		if st.Fault == histories.FDiskSlow {
			if st.Rate == "" {
				add(p+".rate", "fault disk-slow needs rate: bytes per second, e.g. 64KiB")
			} else if _, err := parseDiskRate(st.Rate); err != nil {
				add(p+".rate", "%v", err)
			}
		}
		if st.Fault == histories.FSetConfig {
			if len(st.Config) == 0 {
				add(p+".config", "set-config needs at least one key")
			}
			for k := range st.Config {
				if strings.TrimSpace(k) == "" {
					add(p+".config", "empty key")
				}
			}
		}
	}
}

func validateGroups(p string, st *Step, add addFunc) {
	if len(st.Groups) < 2 {
		add(p+".groups", "shape groups needs two or more groups")
	}
	seen := map[int32]int{}
	for i, g := range st.Groups {
		if len(g) == 0 {
			add(fmt.Sprintf("%s.groups[%d]", p, i), "empty group")
		}
		for _, id := range g {
			if j, dup := seen[id]; dup && j != i {
				add(fmt.Sprintf("%s.groups[%d]", p, i), "node %d is also in group %d", id, j)
			}
			seen[id] = i
		}
	}
	if st.Target != nil {
		add(p+".target", "shape groups names its nodes in groups, not a target")
	}
}

func describeFault(f, shape string) string {
	if f == histories.FPartition || f == histories.FNetem {
		return f + " (shape " + shape + ")"
	}
	return f
}

// validateTarget checks a target. noRole: the step takes a bare partition
// (an election, a leader-followers or racks partition); rackSide: the step
// is a racks partition, whose rack names one side.
func validateTarget(p string, t *Target, noRole, rackSide bool, add addFunc) {
	if !slices.Contains(roleNames, t.Role) && !(noRole && t.Role == "") {
		add(p+".role", "unknown role %q (want %s)", t.Role, strings.Join(roleNames, ", "))
		return
	}
	if t.Partition < 0 {
		add(p+".partition", "must not be negative")
	}
	if t.Partition > 0 && !slices.Contains(partitionRoles, t.Role) && !(noRole && t.Role == "") {
		add(p+".partition", "role %s reads no partition (only %s do)", t.Role, strings.Join(partitionRoles, ", "))
	}
	if t.Rack != "" && t.Role != RoleRack && !rackSide {
		add(p+".rack", "only for role rack, or a racks partition's side")
	}
	if t.Role == RoleRack && t.Rack == "" {
		add(p+".rack", "role rack needs a rack name")
	}
	if t.Role == RoleNodes && len(t.Nodes) == 0 {
		add(p+".nodes", "role nodes needs node ids")
	}
	if t.Count < 0 || (t.Count > 0 && t.Role != RoleRandom) {
		add(p+".count", "only for role random, and positive")
	}
	if len(t.Nodes) > 0 && t.Role != RoleNodes {
		add(p+".nodes", "only for role nodes")
	}
}

func validateCondition(p string, c *Condition, add addFunc) {
	if len(c.ISR) == 0 && c.Offline == nil && c.Leader == nil && c.HighWatermark == nil &&
		len(c.Live) == 0 && len(c.Fenced) == 0 {
		add(p, "empty condition: set isr, offline, leader, high_watermark, live or fenced")
	}
	if c.Partition < 0 {
		add(p+".partition", "must not be negative")
	}
	if c.Offline != nil && *c.Offline && c.Leader != nil {
		add(p, "offline: true and a leader cannot both hold")
	}
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, " and ")
}

// validateUpgrade checks the fields of upgrade and set-feature steps.
func validateUpgrade(p string, st *Step, add addFunc) {
	switch st.Fault {
	case histories.FUpgrade:
		if st.Version == "" {
			add(p+".version", "upgrade needs a version (e.g. 4.4.0, 4.4.x or latest)")
		} else if _, err := cluster.ResolveVersion(st.Version); err != nil {
			add(p+".version", "%v", err)
		}
	case histories.FSetFeature:
		if len(st.Feature) == 0 {
			add(p+".feature", "set-feature needs at least one feature, e.g. {eligible.leader.replicas.version: 1}")
		}
		for k, v := range st.Feature {
			if strings.TrimSpace(k) == "" {
				add(p+".feature", "empty feature name")
			}
			if v < 0 {
				add(p+".feature."+k, "level %d: must not be negative", v)
			}
		}
	}
}
