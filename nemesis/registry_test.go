package nemesis

import (
	"encoding/json"
	"github.com/kchaos/kchaos/nemesis/proxy"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/histories"
)

// registryCases is, per registered fault, a valid step, an invalid one
// with the error its parameters' validation gives, and the capabilities
// it declares (of its kind, and with the valid step's parameters).
var registryCases = map[string]struct {
	valid, invalid, err string
	needs               cluster.Caps
}{
	histories.FPartition: {"{fault: partition, shape: groups, groups: [[0], [1, 2]]}",
		"{fault: partition, shape: ring, target: {role: leader}}", `shape: unknown shape "ring"`, caps(cluster.CapPartition)},
	histories.FNetem: {"{fault: netem, shape: racks, netem: {delay: 50ms}}",
		"{fault: netem, shape: racks, netem: {jitter: 5ms}}", "netem.jitter: needs a delay", caps(cluster.CapNetem, cluster.CapPartition)},
	histories.FCutClients: {"{fault: cut-clients, target: {role: leader}}",
		"{fault: cut-clients}", "target: fault cut-clients needs a target", caps(cluster.CapPartition, cluster.CapClientCut)},
	histories.FPause: {"{fault: pause, target: {role: followers}}",
		"{fault: pause}", "target: fault pause needs a target", caps(cluster.CapPause)},
	histories.FResume: {"{fault: resume}",
		"{fault: resume, target: {role: nodes}}", "target.nodes: role nodes needs node ids", caps(cluster.CapPause)},
	histories.FKill: {"{fault: kill, target: {role: leader}}",
		"{fault: kill, target: {role: boss}}", `target.role: unknown role "boss"`, caps(cluster.CapKill)},
	histories.FStart: {"{fault: start}",
		"{fault: start, target: {role: rack}}", "target.rack: role rack needs a rack name", caps(cluster.CapKill)},
	histories.FRestart: {"{fault: restart, target: {role: leader}, timeout: 2m}",
		"{fault: restart, timeout: 2m}", "target: fault restart needs a target", caps(cluster.CapKill)},
	histories.FLoseUnflushed: {"{fault: lose-unflushed, target: {role: leader}, start: true, model: writeback}",
		"{fault: lose-unflushed, target: {role: leader}, model: lazyfs}", `model: unknown model "lazyfs"`, caps(cluster.CapKill, cluster.CapPowerLoss)},
	histories.FSetConfig: {"{fault: set-config, config: {unclean.leader.election.enable: 'true'}}",
		"{fault: set-config}", "config: set-config needs at least one key", 0},
	histories.FElectUnclean: {"{fault: elect-unclean, target: {partition: 0}}",
		"{fault: elect-unclean, target: {partition: -1}}", "target.partition: must not be negative", 0},
	histories.FElectPreferred: {"{fault: elect-preferred}",
		"{fault: elect-preferred, target: {role: controller, partition: 1}}", "target.partition: role controller reads no partition", 0},
	histories.FUpgrade: {"{fault: upgrade, version: latest, finalize: true}",
		"{fault: upgrade}", "version: upgrade needs a version", caps(cluster.CapUpgrade)},
	histories.FSetFeature: {"{fault: set-feature, feature: {eligible.leader.replicas.version: 1}}",
		"{fault: set-feature, feature: {transaction.version: -1}}", "feature.transaction.version: level -1", 0},
	histories.FAddController: {"{fault: add-controller, target: {role: nodes, nodes: [1003]}, timeout: 2m}",
		"{fault: add-controller, target: {role: active-controller}}", "target: add-controller adds one controller", caps(cluster.CapKill)},
	histories.FRemoveController: {"{fault: remove-controller, target: {role: controller-followers}}",
		"{fault: remove-controller, target: {role: leader}}", "target.role: leader: remove-controller removes a voter", 0},
	histories.FMoveCoordinator: {"{fault: move-coordinator, target: {role: leader}}",
		"{fault: move-coordinator}", "target: fault move-coordinator needs a target", 0},
	histories.FMoveLeader: {"{fault: move-leader, target: {role: share-coordinator}, partition: 0}",
		"{fault: move-leader, target: {role: leader}, partition: -1}", "partition: must not be negative", 0},
	histories.FMemberKill: {"{fault: member-kill, member: member-0}",
		"{fault: member-kill, target: {role: leader}}", "target: only for node faults", 0},
	histories.FMemberLeave: {"{fault: member-leave}",
		"{fault: member-leave, target: {role: leader}}", "target: only for node faults", 0},
	histories.FMemberStart: {"{fault: member-start, member: random}",
		"{fault: member-start, target: {role: leader}}", "target: only for node faults", 0},
	histories.FMemberStall: {"{fault: member-stall, for: 15s}",
		"{fault: member-stall}", "for: member-stall needs a duration", 0},
	histories.FProducerCrash: {"{fault: producer-crash, producer: 0, for: 2s}",
		"{fault: producer-crash, producer: -1}", "producer: must not be negative", 0},
	histories.FStopProducers: {"{fault: stop-producers}",
		"{fault: stop-producers, target: {role: leader}}", "target: stop-producers takes no target", 0},
	histories.FAbortHanging: {"{fault: abort-hanging, partition: 0}",
		"{fault: abort-hanging, partition: -1}", "partition: must not be negative", 0},
	histories.FDiskFail: {"{fault: disk-fail, target: {role: leader}, dir: 1, timeout: 1m}",
		"{fault: disk-fail, target: {role: leader}}", "dir: fault disk-fail needs dir", caps(cluster.CapDisk)},
	histories.FDiskFull: {"{fault: disk-full, target: {role: leader}, dir: 1}",
		"{fault: disk-full, target: {role: leader}, dir: -1}", "dir: must not be negative", caps(cluster.CapDisk)},
	histories.FDiskSlow: {"{fault: disk-slow, target: {role: leader}, dir: 0, rate: 64KiB}",
		"{fault: disk-slow, target: {role: leader}, dir: 0, rate: 100}", "rate: 100: want at least 4KiB", caps(cluster.CapDisk)},
	string(proxy.DropRequest): {"{fault: drop-request, api: [EndTxn], clients: txn-producer, first: 1}",
		"{fault: drop-request, api: [EndTxnn]}", `api[0]: "EndTxnn": not a Kafka API name`, 0},
	string(proxy.DropResponse): {"{fault: drop-response, api: [Produce], target: {role: leader}, probability: 0.5, for: 10s}",
		"{fault: drop-response}", "api: drop-response needs api", 0},
	string(proxy.Delay): {"{fault: delay, api: [Fetch], delay: 2s, response: true}",
		"{fault: delay, api: [Fetch]}", "delay: delay needs delay", 0},
	string(proxy.DuplicateRequest): {"{fault: duplicate-request, api: [Produce], clients: producer, client: 1, delay: 1s}",
		"{fault: duplicate-request, api: [Produce], client: 1}", "client: 1: a client index within a role", 0},
	string(proxy.ResetAfterRequest): {"{fault: reset-after-request, api: [OffsetCommit], within: 1m}",
		"{fault: reset-after-request, api: [OffsetCommit], error: REQUEST_TIMED_OUT}", "error: only for error-response and rewrite-error", 0},
	string(proxy.ErrorResponse): {"{fault: error-response, api: [FindCoordinator], error: COORDINATOR_NOT_AVAILABLE}",
		"{fault: error-response, api: [FindCoordinator], error: NOT_AN_ERROR}", `error: "NOT_AN_ERROR": error-response needs error`, 0},
	string(proxy.RewriteError): {"{fault: rewrite-error, api: [Produce], error: NOT_LEADER_OR_FOLLOWER, first: 3}",
		"{fault: rewrite-error, api: [Produce], error: NOT_LEADER_OR_FOLLOWER, first: -1}", "first: -1: want 0", 0},
}

func caps(cs ...cluster.Capability) cluster.Caps { return cluster.NewCaps(cs...) }

// TestRegistry: every registered fault is in the history's vocabulary,
// validates its own parameters (a valid step passes, an invalid one fails
// with its parameters' error), declares its capabilities, builds a fault
// of its name, and writes its step back as it was read.
func TestRegistry(t *testing.T) {
	if len(registryCases) != len(Kinds()) {
		t.Errorf("%d cases for %d registered faults", len(registryCases), len(Kinds()))
	}
	for _, k := range Kinds() {
		t.Run(k.Name, func(t *testing.T) {
			tc, ok := registryCases[k.Name]
			if !ok {
				t.Fatalf("registered fault %s has no case here: add one", k.Name)
			}
			if _, ok := histories.LookupFault(k.Name); !ok {
				t.Errorf("%s is not in histories' vocabulary", k.Name)
			}
			if k.New == nil || k.New() == nil || reflect.TypeOf(k.New()).Kind() != reflect.Pointer {
				t.Fatalf("%s: New must return a fresh pointer", k.Name)
			}
			if k.New() == k.New() && reflect.TypeOf(k.New()).Elem().Size() > 0 {
				t.Errorf("%s: New returns a shared value", k.Name)
			}
			if k.Needs != tc.needs {
				t.Errorf("%s declares %s, want %s", k.Name, k.Needs, tc.needs)
			}
			s, err := ParseSchedule([]byte("steps:\n - " + tc.valid))
			if err != nil {
				t.Fatalf("valid step %s: %v", tc.valid, err)
			}
			st := s.Steps[0]
			if reflect.TypeOf(st.Params) != reflect.TypeOf(k.New()) {
				t.Errorf("decoded params %T, want %T", st.Params, k.New())
			}
			if got := st.Needs(); !got.Has(k.Needs) {
				t.Errorf("step needs %s, less than its kind's %s", got, k.Needs)
			}
			f, err := NewFault(st)
			if err != nil || f.Name() != k.Name {
				t.Errorf("NewFault: %v, %v", f, err)
			}
			_, err = ParseSchedule([]byte("steps:\n - " + tc.invalid))
			if err == nil || !strings.Contains(err.Error(), "nemesis.steps[0]."+tc.err) {
				t.Errorf("invalid step %s: error %v, want nemesis.steps[0].%s", tc.invalid, err, tc.err)
			}
			// Written and read again, the step is the same (scenario.yaml,
			// a plan's JSON).
			var want map[string]any
			_ = yaml.Unmarshal([]byte(tc.valid), &want)
			y, err := yaml.Marshal(st)
			if err != nil {
				t.Fatal(err)
			}
			var back Step
			if err := yaml.Unmarshal(y, &back); err != nil || !reflect.DeepEqual(back, st) {
				t.Errorf("YAML round trip: %q gave %+v (%v), want %+v", y, back, err, st)
			}
			j, _ := json.Marshal(st)
			var jback Step
			if err := json.Unmarshal(j, &jback); err != nil || !reflect.DeepEqual(jback, st) {
				t.Errorf("JSON round trip: %s gave %+v (%v)", j, jback, err)
			}
		})
	}
}

// TestNetemClientsNeedsClientSide: what a step needs can depend on its
// parameters.
func TestNetemClientsNeedsClientSide(t *testing.T) {
	s, err := ParseSchedule([]byte("steps:\n - {fault: netem, shape: clients, target: {role: leader}, netem: {rate: 1mbit}}"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.Steps[0].Needs(), caps(cluster.CapNetem, cluster.CapPartition, cluster.CapClientCut); got != want {
		t.Errorf("netem clients needs %s, want %s", got, want)
	}
}

// TestStepJSONKeepsTheRecordedShape: a plan's steps are recorded flat, as
// docs/HISTORY.md and recorded runs show them.
func TestStepJSONKeepsTheRecordedShape(t *testing.T) {
	s, err := ParseSchedule([]byte(`steps:
 - {fault: netem, shape: isolate, target: {role: nodes, nodes: [1]}, netem: {loss: 10%}}
 - {fault: disk-fail, target: {role: leader}, dir: 1, timeout: 1m}
 - {until: {partition: 0, offline: true}, timeout: 30s, optional: true}
 - {fault: producer-crash, producer: 0, for: 2s}
`))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(s.Steps)
	const want = `[{"fault":"netem","shape":"isolate","target":{"role":"nodes","nodes":[1]},"netem":{"loss":"10%"}},` +
		`{"timeout":"1m0s","fault":"disk-fail","target":{"role":"leader"},"dir":1},` +
		`{"until":{"offline":true},"timeout":"30s","optional":true},` +
		`{"fault":"producer-crash","for":"2s","producer":0}]`
	if string(got) != want {
		t.Errorf("steps as JSON:\n got %s\nwant %s", got, want)
	}
}

// TestCheckBackend: a fault the backend cannot apply is refused, named by
// its step, with the capability it lacks; random mixes too.
func TestCheckBackend(t *testing.T) {
	ssh := caps(cluster.CapPartition, cluster.CapPause, cluster.CapKill, cluster.CapPowerLoss)
	for _, tc := range []struct {
		name, yaml string
		want       []string
	}{
		{"kill and partition on ssh", "steps:\n - {fault: kill, target: {role: leader}}\n - {fault: partition, shape: racks}", nil},
		{"netem on ssh", "steps:\n - {wait: 1s}\n - {fault: netem, shape: racks, netem: {delay: 5ms}}",
			[]string{`nemesis.steps[1].fault: netem needs capability "netem", which backend ssh does not have`}},
		{"disk on ssh", "steps:\n - {fault: disk-slow, target: {role: leader}, dir: 0, rate: 1MiB}",
			[]string{`nemesis.steps[0].fault: disk-slow needs capability "disk"`}},
		{"client cut on ssh", "steps:\n - {fault: cut-clients, target: {role: leader}}",
			[]string{`nemesis.steps[0].fault: cut-clients needs capability "client-cut"`}},
		{"random netem on ssh", "random: {seed: 1, interval: 5s, duration: 10s, faults: [kill, netem-clients]}",
			[]string{`nemesis.random.faults[1]: netem-clients needs capability "netem"`, `needs capability "client-cut"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ParseSchedule([]byte(tc.yaml))
			if err != nil {
				t.Fatal(err)
			}
			err = s.CheckBackend("ssh", ssh)
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("want none, got %v", err)
				}
				return
			}
			for _, w := range tc.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("error %v lacks %q", err, w)
				}
			}
		})
	}
}
