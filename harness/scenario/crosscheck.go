package scenario

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/internal/bounds"
	"github.com/kchaos/kchaos/internal/duration"
	"github.com/kchaos/kchaos/nemesis"
)

// MaxDuration bounds every duration a scenario gives: bounds.Duration.
const MaxDuration = bounds.Duration

// MaxRate bounds workload.rate (sends per second per producer): far above
// what one producer on this harness reaches, far below a typo's 1e300.
const MaxRate = 1e6

// InternalTopics are Kafka's own topics: a workload writing into one would
// corrupt the cluster's groups, transactions or metadata, not test them.
var InternalTopics = []string{"__consumer_offsets", "__transaction_state",
	"__share_group_state", "__cluster_metadata", "__remote_log_metadata"}

// crossCheck reports what each section's own validation cannot see: fields
// that name brokers, partitions, replicas, racks or log dirs the scenario's
// own cluster and topic lack (they would fail only when the step fires, on
// a running cluster), Kafka's internal topics as the workload's, numbers
// that are not finite or absurdly large, and Kafka config values Kafka
// would refuse. It runs on a scenario with its defaults filled.
func (s *Scenario) crossCheck() []error {
	var errs []error
	add := func(path, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...)))
	}
	if slices.Contains(InternalTopics, s.Topic.Name) {
		add("topic.name", "%q is one of Kafka's internal topics (%s): choose a topic of your own", s.Topic.Name, strings.Join(InternalTopics, ", "))
	}
	walkNumbers(reflect.ValueOf(s).Elem(), "", add)
	if r := float64(s.Workload.Rate); r > MaxRate {
		add("workload.rate", "%g: want at most %g sends per second (0 = unlimited)", r, float64(MaxRate))
	}
	errs = append(errs, s.checkKafkaConfigs()...)
	w := s.world()
	for i, st := range s.Nemesis.Steps {
		w.step(fmt.Sprintf("nemesis.steps[%d]", i), st, add)
	}
	if r := s.Nemesis.Random; r != nil && r.Targets != nil {
		w.target("nemesis.random.targets", r.Targets, add)
	}
	if r := s.Nemesis.Random; r != nil {
		w.randomQuorum(r.Faults, add) // quorumcheck.go
	}
	w.reconfig(s.Nemesis.Steps, add) // reconfigcheck.go
	return errs
}

// world is what the scenario's cluster and topic have, for the steps to
// be checked against.
type world struct {
	brokers     int
	controllers int
	// spares are a dynamic quorum's controllers beyond the initial voters
	// (ids after theirs); dynamic says the voter set may change.
	spares     int
	dynamic    bool
	partitions int
	assignment [][]int32
	racks      cluster.Racks
	logDirs    int
	docker     bool
}

func (s *Scenario) world() world {
	w := world{brokers: s.Cluster.Brokers, controllers: s.Cluster.Controllers,
		spares: s.Cluster.Quorum.Spares(), dynamic: s.Cluster.Quorum.IsDynamic(),
		partitions: s.Topic.Partitions,
		racks:      s.Cluster.Racks, logDirs: max(s.Cluster.LogDirs, 1), docker: s.Cluster.Backend != BackendSSH}
	// The assignment is sized by the partitions and the replication
	// factor: only when both are within their bounds (checkBounds, and
	// the brokers for the factor; Validate reports them otherwise).
	if t := s.Topic; t.Partitions <= bounds.Partitions && t.ReplicationFactor >= 1 && t.ReplicationFactor <= max(w.brokers, 1) {
		w.assignment = t.AssignmentOrDefault(max(w.brokers, 1))
	}
	return w
}

// view is the world as the fault kinds read it (nemesis.ScenarioView).
func (w world) view() *nemesis.ScenarioView {
	return &nemesis.ScenarioView{Brokers: w.brokers, Controllers: w.controllers, Spares: w.spares,
		Partitions: w.partitions, LogDirs: w.logDirs, OwnLogDirs: w.docker}
}

func (w world) isBroker(id int32) bool { return id >= 0 && int(id) < w.brokers }

func (w world) isNode(id int32) bool {
	return w.isBroker(id) || (id >= cluster.ControllerIDBase && int(id) < cluster.ControllerIDBase+w.controllers+w.spares)
}

func (w world) nodes() string {
	return fmt.Sprintf("brokers 0..%d, controllers %d..%d", w.brokers-1, cluster.ControllerIDBase, cluster.ControllerIDBase+w.controllers+w.spares-1)
}

func (w world) partition(p string, n int32, add addFunc) bool {
	if n >= 0 && int(n) >= w.partitions {
		add(p, "%d: the topic has partitions 0..%d", n, w.partitions-1)
		return false
	}
	return n >= 0
}

type addFunc = func(path, format string, args ...any)

func (w world) step(p string, st nemesis.Step, add addFunc) {
	if st.Target != nil {
		w.target(p+".target", st.Target, add)
	}
	// What the fault's own parameters need of the scenario, by its kind.
	st.CheckScenario(p, w.view(), add)
	if c := st.Until; c != nil {
		w.condition(p+".until", c, add)
	}
	w.quorum(p, st, add) // quorumcheck.go
}

func (w world) target(p string, t *nemesis.Target, add addFunc) {
	w.partition(p+".partition", t.Partition, add)
	for _, id := range t.Nodes {
		if !w.isNode(id) {
			add(p+".nodes", "node %d does not exist (%s)", id, w.nodes())
		}
	}
	if t.Rack != "" {
		if _, ok := w.racks[t.Rack]; !ok {
			add(p+".rack", "%q: the cluster has no such rack (cluster.racks: %s)", t.Rack, rackNames(w.racks))
		}
	}
	if t.Role == nemesis.RoleRandom && t.Count > w.brokers {
		add(p+".count", "%d: the cluster has %d brokers", t.Count, w.brokers)
	}
}

func (w world) condition(p string, c *nemesis.Condition, add addFunc) {
	if !w.partition(p+".partition", c.Partition, add) {
		return
	}
	var replicas []int32
	if int(c.Partition) < len(w.assignment) {
		replicas = w.assignment[c.Partition]
	}
	onReplica := func(field string, ids []int32) {
		for _, id := range ids {
			if !w.isBroker(id) {
				add(p+"."+field, "broker %d does not exist (brokers 0..%d)", id, w.brokers-1)
			} else if (field == "isr" || field == "leader") && replicas != nil && !slices.Contains(replicas, id) {
				add(p+"."+field, "broker %d is not a replica of partition %d (replicas %v)", id, c.Partition, replicas)
			}
		}
	}
	onReplica("isr", c.ISR)
	if c.Leader != nil && *c.Leader != -1 {
		onReplica("leader", []int32{*c.Leader})
	}
	onReplica("live", c.Live)
	onReplica("fenced", c.Fenced)
}

func rackNames(r cluster.Racks) string {
	if len(r) == 0 {
		return "none"
	}
	var names []string
	for k := range r {
		names = append(names, k)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

var durationType = reflect.TypeFor[duration.Duration]()

// walkNumbers refuses every float that is not finite and every duration
// above MaxDuration, wherever it sits in the scenario, naming it by its
// YAML path: one rule for every number, so a field added later is covered.
func walkNumbers(v reflect.Value, path string, add addFunc) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			walkNumbers(v.Elem(), path, add)
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if !f.IsExported() || name == "-" {
				continue
			}
			if name == "" {
				name = strings.ToLower(f.Name)
			}
			walkNumbers(v.Field(i), join(path, name), add)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			walkNumbers(v.Index(i), fmt.Sprintf("%s[%d]", path, i), add)
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			walkNumbers(iter.Value(), join(path, fmt.Sprint(iter.Key().Interface())), add)
		}
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			add(path, "%v: want a finite number", f)
		}
	case reflect.Int64:
		if v.Type() == durationType && time.Duration(v.Int()) > MaxDuration {
			add(path, "%s: want at most %s (a week)", time.Duration(v.Int()), MaxDuration)
		}
	}
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
