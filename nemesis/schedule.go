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
	// Bootstrap are steps played while the cluster starts, before it is
	// ready and before the workload (bootstrap.go): faults aimed at the
	// nodes and the controller quorum as they come up.
	Bootstrap []Step `yaml:"bootstrap,omitempty" json:"bootstrap,omitempty"`
	// Live, set by code only, chooses the steps as the run goes instead
	// of Steps or Random (live.go); the run's Runner.Played are what it
	// chose.
	Live Chooser `yaml:"-" json:"-"`
}

// Step is one scripted action: exactly one of Wait, Until, Fault or Heal.
// It holds what every step shares; a fault's own parameters (a
// partition's shape, a disk fault's dir, ...) are its kind's Params
// (registry.go), written beside these fields in the same mapping
// (stepcodec.go).
type Step struct {
	// Wait sleeps for a duration.
	Wait Duration `yaml:"wait,omitempty"`
	// Until waits until a cluster condition holds, at most Timeout (default
	// 60s); a timeout fails the schedule (the final heal still runs).
	Until *Condition `yaml:"until,omitempty"`
	// Timeout bounds an Until (default DefaultUntilTimeout). (A fault's
	// own bound, also written timeout, is its parameters': a restart's
	// ReadyWithin, a disk fault's OfflineWithin.)
	Timeout Duration `yaml:"timeout,omitempty" zero:"unset"`
	// Optional makes an until a soft wait: when its timeout passes, the
	// schedule goes on instead of failing. For steps whose condition depends
	// on a setting a matrix varies (a leader that only an unclean election
	// can make).
	Optional bool `yaml:"optional,omitempty"`
	// Fault injects a fault by its registered name (registry.go).
	Fault string `yaml:"fault,omitempty"`
	// Target chooses the nodes when the fault fires.
	Target *Target `yaml:"target,omitempty"`
	// Heal undoes faults: "all", or one heal kind (histories.HealKinds:
	// partition, which also removes client cuts, pause, kill, netem, disk,
	// member).
	Heal string `yaml:"heal,omitempty"`
	// Params are the fault's own parameters, of its kind's type (nil: the
	// kind's zero value).
	Params Params `yaml:"-"`

	// misplaced are keys of the step that only other faults take, kept by
	// the decoder for Validate.
	misplaced []string
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
	// Count of random brokers (role random; default 1), or, for the
	// partition roles followers, isr and out-of-isr, how many of the role's
	// members to strike: the first Count in id order (default all), e.g.
	// one follower of several (countRoles).
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
	// OpenTxn true: the leader's last stable offset is below its high
	// watermark, a transaction open on the partition with records written
	// (false: none is). A story waits for it to strike mid-transaction.
	OpenTxn *bool `yaml:"open_txn,omitempty" json:"open_txn,omitempty"`
	// Live brokers are registered and unfenced (others may be too).
	Live []int32 `yaml:"live,omitempty" json:"live,omitempty"`
	// Fenced brokers are not live: killed, or cut off from the controller.
	Fenced []int32 `yaml:"fenced,omitempty" json:"fenced,omitempty"`
	// ShareStart is "at least": the workload's share group's start offset
	// on the partition (DescribeShareGroupOffsets), so every record below
	// it reached a final state. A share story waits for it to strike a
	// group that is consuming: its first deliveries wait for Kafka to
	// create __share_group_state, 20 s and more on a loaded machine.
	ShareStart *int64 `yaml:"share_start_offset,omitempty" json:"share_start_offset,omitempty"`
	// QuorumLeader true: a controller leads the KRaft quorum (the
	// controllers asked on their own listeners name a leader); false: none
	// does. The condition a bootstrap schedule waits for to strike the
	// first leader (nemesis.bootstrap), and readable whenever the
	// controllers are.
	QuorumLeader *bool `yaml:"quorum_leader,omitempty" json:"quorum_leader,omitempty"`
	// Struck waits for the nodes the schedule's most recent fault step
	// touched (the nodes its op records), whatever they were: a
	// role-targeted strike resolves its ids only when it fires, so a
	// schedule cannot name them in advance. StruckFenced: none of them is
	// live; StruckOutOfISR: none of them is in Partition's ISR. A heal is
	// not a strike: the nodes stay the last fault step's across heals,
	// waits and untils. The runner resolves them when the until begins
	// (WithStruck); a fault step that touched no node (every one skipped)
	// leaves nothing to wait for, so the condition holds at once rather
	// than spending its timeout on an effect no node can show.
	Struck string `yaml:"struck,omitempty" json:"struck,omitempty"`

	// struck are the nodes Struck refers to, once resolved (resolved).
	struck   []int32
	resolved bool
}

// Values of Condition.Struck.
const (
	// StruckFenced: every node the last fault touched is fenced (not live
	// in the broker registrations), as Fenced reads it.
	StruckFenced = histories.StruckFenced
	// StruckOutOfISR: no node the last fault touched is in the
	// partition's ISR.
	StruckOutOfISR = "out-of-isr"
)

var struckValues = []string{StruckFenced, StruckOutOfISR}

// WithStruck is c with Struck resolved to ids, the nodes the last fault
// step touched: the runner's doing when the until begins; exported for
// harnesses that wait by hand (nemesistest).
func (c Condition) WithStruck(ids []int32) Condition {
	c.struck, c.resolved = sortedIDs(ids), true
	return c
}

// RandomSchedule injects a seeded random mix of faults: the same seed gives
// the same sequence of (time, fault, target) choices (see Plan).
//
// With Active set it runs in periods instead of intervals: each period
// draws Subset distinct faults of the mix, injects them one after the
// other, holds them all for Active, heals them and stays quiet for Quiet,
// so that a long run explores combinations of faults with recoveries
// between them. With Stagger set too, a period's faults start Stagger
// apart and each holds Active from its own start (planStaggered): they
// overlap, and start and end at different times.
type RandomSchedule struct {
	Seed     int64    `yaml:"seed" json:"seed"`
	Interval Duration `yaml:"interval,omitempty" json:"interval,omitempty"`
	Duration Duration `yaml:"duration" json:"duration"`
	// Subset is how many distinct faults of the mix a period combines
	// (default 1); Active how long they hold together; Quiet how long the
	// cluster then runs without faults. Periods mode only (Active > 0).
	Subset int      `yaml:"subset,omitempty" json:"subset,omitempty" zero:"unset"`
	Active Duration `yaml:"active,omitempty" json:"active,omitempty"`
	Quiet  Duration `yaml:"quiet,omitempty" json:"quiet,omitempty"`
	// Stagger is the mean gap between a period's injections (each drawn
	// between half and one and a half of it); 0 injects them one after
	// the other. Periods mode only.
	Stagger Duration `yaml:"stagger,omitempty" json:"stagger,omitempty"`
	// Faults is the mix, drawn uniformly (repeat a name to weight it):
	// pause, kill, restart, lose-unflushed, cut-clients, partition (=
	// partition-isolate), partition-<shape>, netem (= netem-isolate),
	// netem-<shape> and netem-clients.
	Faults  []string `yaml:"faults" json:"faults"`
	Targets *Target  `yaml:"targets,omitempty" json:"targets,omitempty"`
	// Netem is what every drawn netem does to its links (default: loss
	// 10%, nemesis/network's DefaultRandomNetem; the netem kind validates
	// it, Draw.Validate).
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
	RoleLeader    = "leader"
	RoleFollowers = "followers"
	RoleISR       = "isr"
	RoleOutOfISR  = "out-of-isr"
	// RoleController is the active controller (RoleActiveController's
	// older name; the quorum roles are in quorumtarget.go).
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
	roleNames = []string{RoleLeader, RoleFollowers, RoleISR, RoleOutOfISR,
		RoleController, RoleRack, RoleRandom, RoleNodes, RoleTxnCoordinator,
		RoleGroupCoordinator, RoleGroupCoordinatorFollowers, RoleShareCoordinator,
		RoleActiveController, RoleControllerFollowers, RoleObservers}
	// partitionRoles: roles that read a partition's state (a partition
	// given with any other role would be ignored, so it is refused).
	partitionRoles = []string{RoleLeader, RoleFollowers, RoleISR, RoleOutOfISR}
	// countRoles: roles a Count applies to (Target.Count): random draws
	// that many brokers, the partition roles of several members take
	// their first Count in id order (Target.firstOf). A leader is one
	// broker: a count on it would be ignored, so it is refused.
	countRoles = []string{RoleRandom, RoleFollowers, RoleISR, RoleOutOfISR}
)

// defaultUntilTimeout bounds an Until step without a Timeout.
const defaultUntilTimeout = 60 * time.Second

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
	if s.Live != nil && (len(s.Steps) > 0 || s.Random != nil) {
		add("nemesis", "a live schedule has no steps or random section")
	}
	struck := false // a fault step came before
	for i := range s.Steps {
		p := fmt.Sprintf("nemesis.steps[%d]", i)
		validateStep(p, &s.Steps[i], add)
		if u := s.Steps[i].Until; u != nil && u.Struck != "" && !struck {
			add(p+".until.struck", "no fault step before this until: struck refers to the nodes the last one touched")
		}
		struck = struck || s.Steps[i].Fault != ""
	}
	validateBootstrap(s.Bootstrap, add)
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
			ValidateTarget("nemesis.random.targets", r.Targets, false, false, add)
		}
		for _, k := range drawable() {
			if k.Draw.Validate != nil {
				k.Draw.Validate(r, add)
			}
		}
	}
	return errors.Join(errs...)
}

type AddFunc func(path, format string, args ...any)

func validateStep(p string, st *Step, add AddFunc) {
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
	for _, key := range st.misplaced {
		add(p+"."+key, "only for %s", faultsTaking(key))
	}
	if st.Timeout != 0 && st.Until == nil {
		add(p+".timeout", "only for until and %s", faultsTaking("timeout"))
	}
	if st.Optional && st.Until == nil {
		add(p+".optional", "only for until")
	}
	if st.Target != nil && st.Fault == "" {
		add(p+".target", "only for faults")
	}
	switch {
	case st.Until != nil:
		validateCondition(p+".until", st.Until, add)
	case st.Heal != "":
		if !slices.Contains(healNames(), st.Heal) {
			add(p+".heal", "unknown heal %q (want %s)", st.Heal, strings.Join(healNames(), ", "))
		}
	case st.Fault != "":
		if _, ok := LookupKind(st.Fault); !ok {
			add(p+".fault", "unknown fault %q (want %s)", st.Fault, strings.Join(faultNames(), ", "))
			return
		}
		_, params, err := st.params()
		if err != nil {
			add(p+".fault", "%v", err)
			return
		}
		params.Validate(p, st, add)
	}
}

// NeedTarget reports a fault step without a target whose fault has no
// sensible default ("fault what needs a target"): exported for the rooms
// whose kinds name the fault more precisely in that message
// (nemesis/network: "partition (shape isolate)").
func NeedTarget(p string, st *Step, what string, add AddFunc) {
	if st.Target == nil {
		add(p+".target", "fault %s needs a target", what)
	}
}

// ValidateNodeTarget checks the target of a fault that acts on the nodes
// it names and needs them: the seam's rule for such a target (the
// refusal "fault X needs a target" included), exported so that a room's
// parameters (nemesis/disk's) validate their target as the seam's own
// kinds do.
func ValidateNodeTarget(p string, st *Step, add AddFunc) {
	NeedTarget(p, st, st.Fault, add)
	if st.Target != nil {
		ValidateTarget(p+".target", st.Target, false, false, add)
	}
}

// ValidateTarget checks a target. noRole: the step takes a bare partition
// (an election, a leader-followers or racks partition); rackSide: the step
// is a racks partition, whose rack names one side. Exported for the rooms
// whose kinds read a target by a shape (nemesis/network's links).
func ValidateTarget(p string, t *Target, noRole, rackSide bool, add AddFunc) {
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
	if t.Count < 0 || (t.Count > 0 && !slices.Contains(countRoles, t.Role)) {
		add(p+".count", "only for role random (brokers drawn) or a partition's %s (its first count members in id order), and positive",
			strings.Join(countRoles[1:], ", "))
	}
	if len(t.Nodes) > 0 && t.Role != RoleNodes {
		add(p+".nodes", "only for role nodes")
	}
}

func validateCondition(p string, c *Condition, add AddFunc) {
	if len(c.ISR) == 0 && c.Offline == nil && c.Leader == nil && c.HighWatermark == nil && c.OpenTxn == nil &&
		len(c.Live) == 0 && len(c.Fenced) == 0 && c.ShareStart == nil && c.QuorumLeader == nil && c.Struck == "" {
		add(p, "empty condition: set isr, offline, leader, high_watermark, open_txn, live, fenced, share_start_offset, quorum_leader or struck")
	}
	if c.Struck != "" && !slices.Contains(struckValues, c.Struck) {
		add(p+".struck", "unknown value %q (want %s)", c.Struck, strings.Join(struckValues, " or "))
	}
	if c.ShareStart != nil && *c.ShareStart < 0 {
		add(p+".share_start_offset", "must not be negative")
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
