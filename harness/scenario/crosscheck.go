package scenario

import (
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/internal/bounds"
	"github.com/kchaos/kchaos/internal/duration"
	"github.com/kchaos/kchaos/nemesis"
	"github.com/kchaos/kchaos/workloads"
)

// MaxDuration bounds every duration a scenario gives: bounds.Duration.
const MaxDuration = bounds.Duration

// maxRate bounds workload.rate (sends per second per producer): far above
// what one producer on this harness reaches, far below a typo's 1e300.
const maxRate = 1e6

// internalTopics are Kafka's own topics: a workload writing into one would
// corrupt the cluster's groups, transactions or metadata, not test them.
var internalTopics = []string{"__consumer_offsets", "__transaction_state",
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
	if slices.Contains(internalTopics, s.Topic.Name) {
		add("topic.name", "%q is one of Kafka's internal topics (%s): choose a topic of your own", s.Topic.Name, strings.Join(internalTopics, ", "))
	}
	walkNumbers(reflect.ValueOf(s).Elem(), "", add)
	if r := float64(s.Workload.Rate); r > maxRate {
		add("workload.rate", "%g: want at most %g sends per second (0 = unlimited)", r, float64(maxRate))
	}
	errs = append(errs, s.checkKafkaConfigs()...)
	errs = append(errs, s.checkGroupProtocols()...)
	// What the steps need of the cluster, topic and workload: each fault
	// kind, target, condition and shape checks itself against the view.
	return append(errs, s.Nemesis.CheckScenario(s.View())...)
}

// rebalanceProtocolsKey is the brokers' list of the group protocols their
// coordinators serve (Kafka's GroupCoordinatorConfig; classic,consumer by
// default from 4.0, streams too from 4.1).
const rebalanceProtocolsKey = "group.coordinator.rebalance.protocols"

// checkGroupProtocols refuses members that ask for the consumer protocol
// (KIP-848) of brokers configured not to serve it: a client falls back to
// classic (franz-go silently), so the run would test the protocol nobody
// asked for (a real g1 did, and read the classic group back).
func (s *Scenario) checkGroupProtocols() []error {
	g := &s.Workload.Group
	if !g.UsesProtocol(histories.ProtocolConsumer) {
		return nil
	}
	var errs []error
	check := func(where string, m map[string]string) {
		v, ok := m[rebalanceProtocolsKey]
		if !ok || listHas(v, histories.ProtocolConsumer) {
			return
		}
		errs = append(errs, fmt.Errorf("%s.%s: %q lacks consumer, which workload.%s asks for: the coordinator would refuse KIP-848's heartbeats and the client fall back to classic, testing the protocol nobody asked for",
			where, rebalanceProtocolsKey, bounds.Cut(v), g.ProtocolPath()))
	}
	check("cluster.broker_config", s.Cluster.BrokerConfig)
	for _, id := range slices.Sorted(maps.Keys(s.Cluster.PerBroker)) {
		check(fmt.Sprintf("cluster.per_broker.%d", id), s.Cluster.PerBroker[id])
	}
	return errs
}

// View is the scenario as the fault steps are checked against it
// (nemesis.ScenarioView): plain values, so that nemesis needs no harness.
// It is read on a scenario with its defaults filled.
func (s *Scenario) View() nemesis.ScenarioView {
	c, t, w := s.Cluster, s.Topic, s.Workload
	v := nemesis.ScenarioView{Backend: c.backendName(), Caps: c.capabilities(),
		Brokers: c.Brokers, Controllers: c.Controllers, Spares: c.Quorum.Spares(), Dynamic: c.Quorum.IsDynamic(),
		Partitions: t.Partitions, LogDirs: max(c.LogDirs, 1), OwnLogDirs: c.Backend != BackendSSH,
		Racks:     slices.Sorted(maps.Keys(c.Racks)),
		Producers: w.Producers, Transactional: w.Transactions.Enabled,
		Group: w.Group.Enabled(), Shares: w.Shares.Enabled(), LogAppendTime: s.logAppendTime()}
	// The assignment is sized by the partitions and the replication
	// factor: only when both are within their bounds (checkBounds, and
	// the brokers for the factor; checkTopic reports them otherwise).
	if t.Partitions <= bounds.Partitions && t.ReplicationFactor >= 1 && t.ReplicationFactor <= max(c.Brokers, 1) {
		v.Assignment = t.AssignmentOrDefault(max(c.Brokers, 1))
	}
	if k, err := cluster.ResolveVersion(c.Kafka); err == nil {
		v.Kafka = k
	}
	v.ClientRoles = workloads.ClientIDPrefixes(s.WorkloadConfig())
	v.LinkFault = s.Nemesis.LinkFault()
	if v.Group {
		for j := range w.Group.Members {
			v.Members = append(v.Members, workloads.MemberName(j))
		}
	}
	if v.Shares {
		for j := range w.Shares.Members {
			v.Members = append(v.Members, workloads.ShareMemberName(j))
		}
	}
	return v
}

type addFunc = func(path, format string, args ...any)

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
