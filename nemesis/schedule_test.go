package nemesis

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/kchaos/kchaos/histories"
)

// exampleYAML is the schedule of schedule.go's doc comment.
const exampleYAML = `
steps:
  - wait: 5s
  - fault: partition
    shape: leader-followers
    target: {role: leader, partition: 0}
  - until: {partition: 0, isr: [0]}
    timeout: 30s
  - fault: kill
    target: {role: leader, partition: 0}
  - until: {partition: 0, offline: true}
  - fault: set-config
    config: {unclean.leader.election.enable: "true", retention.ms: null}
  - fault: elect-unclean
    target: {partition: 0}
  - fault: lose-unflushed
    start: true
    target: {role: nodes, nodes: [0]}
  - wait: 1m30s
  - heal: all
`

func TestParseScheduleExample(t *testing.T) {
	s, err := ParseSchedule([]byte(exampleYAML))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Steps) != 10 || s.Random != nil {
		t.Fatalf("got %d steps, random %v", len(s.Steps), s.Random)
	}
	st := s.Steps
	if st[0].Wait.Std() != 5*time.Second || st[8].Wait.Std() != 90*time.Second {
		t.Errorf("waits %s %s", st[0].Wait, st[8].Wait)
	}
	if st[1].Fault != histories.FPartition || shapeOf(st[1]) != ShapeLeaderFollowers || st[1].Target.Role != RoleLeader {
		t.Errorf("step 1: %+v", st[1])
	}
	if c := st[2].Until; c == nil || !sameSet(c.ISR, []int32{0}) || st[2].Timeout.Std() != 30*time.Second {
		t.Errorf("step 2: %+v", st[2])
	}
	if c := st[4].Until; c == nil || c.Offline == nil || !*c.Offline {
		t.Errorf("step 4: %+v", st[4])
	}
	// set-config's parameters are nemesis/quorum's SetConfigParams,
	// which this package cannot name: its config, as the harness reads it.
	config := st[5].Params.(ConfigChanger).ConfigChanges()
	if v := config["unclean.leader.election.enable"]; v == nil || *v != "true" {
		t.Errorf("step 5 config: %v", config)
	}
	if v, ok := config["retention.ms"]; !ok || v != nil {
		t.Errorf("step 5: retention.ms null should delete: %v %v", v, ok)
	}
	// lose-unflushed's parameters are nemesis/disk's LoseUnflushedParams,
	// which this package cannot name: its Start field, by reflection.
	if p := reflect.ValueOf(st[7].Params); p.Kind() != reflect.Pointer || !p.Elem().FieldByName("Start").Bool() ||
		st[7].Target.Nodes[0] != 0 || st[9].Heal != histories.HealAll {
		t.Errorf("steps 7, 9: %+v %+v", st[7], st[9])
	}
}

func TestParseScheduleRandom(t *testing.T) {
	s, err := ParseSchedule([]byte(`
random:
  seed: 42
  interval: 10s
  duration: 60s
  faults: [pause, kill, partition-racks, restart]
  targets: {role: random, count: 1}
`))
	if err != nil {
		t.Fatal(err)
	}
	r := s.Random
	if r.Seed != 42 || r.Interval.Std() != 10*time.Second || r.Duration.Std() != time.Minute || len(r.Faults) != 4 {
		t.Errorf("random: %+v", r)
	}
}

func TestDurationMarshalling(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		err  string
	}{
		{"5s", 5 * time.Second, ""},
		{"1m30s", 90 * time.Second, ""},
		{"250ms", 250 * time.Millisecond, ""},
		{"0", 0, ""},
		{"5", 0, "with a unit"},
		{"-1s", 0, "negative"},
		{"soon", 0, "with a unit"},
	} {
		var y struct{ D Duration }
		err := yaml.Unmarshal([]byte("d: "+tc.in), &y)
		var j struct{ D Duration }
		jin := `{"D":"` + tc.in + `"}`
		if tc.in == "0" {
			jin = `{"D":0}`
		}
		jerr := json.Unmarshal([]byte(jin), &j)
		for name, e := range map[string]error{"yaml": err, "json": jerr} {
			if tc.err == "" && e != nil {
				t.Errorf("%s %q: %v", name, tc.in, e)
			}
			if tc.err != "" && (e == nil || !strings.Contains(e.Error(), tc.err)) {
				t.Errorf("%s %q: error %v, want %q", name, tc.in, e, tc.err)
			}
		}
		if tc.err == "" && (y.D.Std() != tc.want || j.D.Std() != tc.want) {
			t.Errorf("%q: yaml %s json %s, want %s", tc.in, y.D, j.D, tc.want)
		}
	}
	// Round trips write the unit.
	st := Step{Wait: Duration(90 * time.Second)}
	b, _ := json.Marshal(st)
	if string(b) != `{"wait":"1m30s"}` {
		t.Errorf("json %s", b)
	}
	y, _ := yaml.Marshal(st)
	if strings.TrimSpace(string(y)) != "wait: 1m30s" {
		t.Errorf("yaml %q", y)
	}
	var back Step
	if err := yaml.Unmarshal(y, &back); err != nil || back.Wait != st.Wait {
		t.Errorf("yaml round trip: %v %v", back.Wait, err)
	}
}

func TestScheduleValidation(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       []string // substrings of the error; none: valid
	}{
		{"empty", ``, nil},
		{"unknown fault", "steps:\n - wait: 1s\n - wait: 2s\n - fault: kil\n   target: {role: leader}",
			[]string{`nemesis.steps[2].fault: unknown fault "kil"`}},
		{"two actions", "steps:\n - wait: 1s\n   heal: all",
			[]string{"nemesis.steps[0]: want exactly one of wait, until, fault, heal (got wait and heal)"}},
		{"no action", "steps:\n - timeout: 1s", []string{"nemesis.steps[0]: want exactly one"}},
		{"misspelt field", "steps:\n - fualt: kill", []string{"field fualt not found"}},
		{"bad shape", "steps:\n - fault: partition\n   shape: ring\n   target: {role: leader}",
			[]string{`nemesis.steps[0].shape: unknown shape "ring"`}},
		{"shape on kill", "steps:\n - fault: kill\n   shape: racks\n   target: {role: leader}",
			[]string{"nemesis.steps[0].shape: only for faults partition and netem"}},
		{"kill without target", "steps:\n - fault: kill", []string{"nemesis.steps[0].target: fault kill needs a target"}},
		{"isolate without target", "steps:\n - fault: partition",
			[]string{"nemesis.steps[0].target: fault partition (shape isolate) needs a target"}},
		{"racks without target", "steps:\n - fault: partition\n   shape: racks", nil},
		{"leader-followers partition only", "steps:\n - fault: partition\n   shape: leader-followers\n   target: {partition: 1}", nil},
		{"leader-followers wrong role", "steps:\n - fault: partition\n   shape: leader-followers\n   target: {role: isr}",
			[]string{"nemesis.steps[0].target.role: shape leader-followers takes role leader"}},
		{"groups", "steps:\n - fault: partition\n   shape: groups\n   groups: [[0], [2]]", nil},
		{"one group", "steps:\n - fault: partition\n   shape: groups\n   groups: [[0, 1]]", []string{"nemesis.steps[0].groups: shape groups needs two or more groups"}},
		{"overlapping groups", "steps:\n - fault: partition\n   shape: groups\n   groups: [[0, 1], [1, 2], []]",
			[]string{"nemesis.steps[0].groups[1]: node 1 is also in group 0", "nemesis.steps[0].groups[2]: empty group"}},
		{"groups on isolate", "steps:\n - fault: partition\n   groups: [[0], [1]]\n   target: {role: leader}",
			[]string{"nemesis.steps[0].groups: only for fault partition or netem with shape groups"}},
		{"bad role", "steps:\n - fault: pause\n   target: {role: boss}", []string{`nemesis.steps[0].target.role: unknown role "boss"`}},
		{"rack without name", "steps:\n - fault: pause\n   target: {role: rack}", []string{"nemesis.steps[0].target.rack: role rack needs a rack name"}},
		{"nodes without ids", "steps:\n - fault: kill\n   target: {role: nodes}", []string{"nemesis.steps[0].target.nodes: role nodes needs node ids"}},
		{"count on leader", "steps:\n - fault: kill\n   target: {role: leader, count: 2}", []string{"nemesis.steps[0].target.count: only for role random"}},
		{"count on followers", "steps:\n - fault: kill\n   target: {role: followers, partition: 1, count: 1}", nil},
		{"count on out-of-isr", "steps:\n - fault: pause\n   target: {role: out-of-isr, count: 1}", nil},
		{"count on the isr", "steps:\n - fault: pause\n   target: {role: isr, count: 2}", nil},
		{"negative count", "steps:\n - fault: kill\n   target: {role: followers, count: -1}", []string{"nemesis.steps[0].target.count: only for role random"}},
		{"count on nodes", "steps:\n - fault: kill\n   target: {role: nodes, nodes: [1, 2], count: 1}", []string{"nemesis.steps[0].target.count: only for role random"}},
		{"count on a leader-followers cut", "steps:\n - fault: partition\n   shape: leader-followers\n   target: {role: leader, count: 1}",
			[]string{"nemesis.steps[0].target.count: only for role random"}},
		{"count on random targets' followers", "random: {seed: 1, interval: 5s, duration: 10s, faults: [pause], targets: {role: followers, count: 1}}", nil},
		{"partition on controller", "steps:\n - fault: kill\n   target: {role: controller, partition: 1}", []string{"nemesis.steps[0].target.partition: role controller reads no partition"}},
		{"partition on nodes", "steps:\n - fault: pause\n   target: {role: nodes, nodes: [1], partition: 2}", []string{"nemesis.steps[0].target.partition: role nodes reads no partition"}},
		{"rack on leader", "steps:\n - fault: kill\n   target: {role: leader, rack: a}", []string{"nemesis.steps[0].target.rack: only for role rack"}},
		{"rack on random targets", "random: {seed: 1, interval: 5s, duration: 10s, faults: [pause], targets: {role: random, rack: a}}", []string{"nemesis.random.targets.rack: only for role rack"}},
		{"config on kill", "steps:\n - fault: kill\n   target: {role: leader}\n   config: {a: b}", []string{"nemesis.steps[0].config: only for fault set-config"}},
		{"set-config empty", "steps:\n - fault: set-config", []string{"nemesis.steps[0].config: set-config needs at least one key"}},
		{"start on kill", "steps:\n - fault: kill\n   start: true\n   target: {role: leader}", []string{"nemesis.steps[0].start: only for fault lose-unflushed"}},
		{"timeout on wait", "steps:\n - wait: 1s\n   timeout: 2s", []string{"nemesis.steps[0].timeout: only for until and faults disk-fail, disk-full, restart, upgrade, add-controller and remove-controller"}},
		{"disk-fail", "steps:\n - fault: disk-fail\n   target: {role: followers, partition: 0}\n   dir: 1\n   timeout: 1m", nil},
		{"disk-full of dir 0", "steps:\n - fault: disk-full\n   target: {role: nodes, nodes: [1]}\n   dir: 0", nil},
		{"disk-fail without dir", "steps:\n - fault: disk-fail\n   target: {role: leader}", []string{"nemesis.steps[0].dir: fault disk-fail needs dir"}},
		{"disk-full without target", "steps:\n - fault: disk-full\n   dir: 1", []string{"nemesis.steps[0].target: fault disk-full needs a target"}},
		{"negative dir", "steps:\n - fault: disk-fail\n   target: {role: leader}\n   dir: -1", []string{"nemesis.steps[0].dir: must not be negative"}},
		{"dir on kill", "steps:\n - fault: kill\n   target: {role: leader}\n   dir: 1", []string{"nemesis.steps[0].dir: only for faults disk-fail, disk-full and disk-slow"}},
		{"heal disk", "steps:\n - heal: disk", nil},
		{"disk-slow", "steps:\n - fault: disk-slow\n   target: {role: leader}\n   dir: 0\n   rate: 64KiB", nil},
		{"disk-slow without rate", "steps:\n - fault: disk-slow\n   target: {role: leader}\n   dir: 0", []string{"nemesis.steps[0].rate: fault disk-slow needs rate"}},
		{"disk-slow bad rate", "steps:\n - fault: disk-slow\n   target: {role: leader}\n   dir: 0\n   rate: fast", []string{`nemesis.steps[0].rate: "fast": want`}},
		{"disk-slow tiny rate", "steps:\n - fault: disk-slow\n   target: {role: leader}\n   dir: 0\n   rate: 100", []string{"nemesis.steps[0].rate: 100: want at least 4KiB"}},
		{"rate on disk-fail", "steps:\n - fault: disk-fail\n   target: {role: leader}\n   dir: 0\n   rate: 1MiB", []string{"nemesis.steps[0].rate: only for fault disk-slow"}},
		{"timeout on disk-slow", "steps:\n - fault: disk-slow\n   target: {role: leader}\n   dir: 0\n   rate: 1MiB\n   timeout: 1s", []string{"nemesis.steps[0].timeout: only for"}},
		{"timeout on kill", "steps:\n - fault: kill\n   timeout: 2s\n   target: {role: leader}", []string{"nemesis.steps[0].timeout: only for"}},
		{"timeout on restart", "steps:\n - fault: restart\n   timeout: 2m\n   target: {role: leader}", nil},
		{"target on heal", "steps:\n - heal: all\n   target: {role: leader}", []string{"nemesis.steps[0].target: only for faults"}},
		// for: belongs to kinds of two rooms (nemesis/clients, nemesis/requests).
		{"for on kill", "steps:\n - fault: member-kill\n   for: 1s", []string{"nemesis.steps[0].for: only for faults member-stall, producer-crash, drop-request, drop-response"}},
		{"for on pause", "steps:\n - fault: pause\n   target: {role: leader}\n   for: 1s", []string{"nemesis.steps[0].for: only for faults member-stall, producer-crash, drop-request, drop-response"}},
		{"bad heal", "steps:\n - heal: everything", []string{`nemesis.steps[0].heal: unknown heal "everything"`}},
		{"empty until", "steps:\n - until: {partition: 0}", []string{"nemesis.steps[0].until: empty condition"}},
		{"contradictory until", "steps:\n - until: {offline: true, leader: 1}", []string{"offline: true and a leader cannot both hold"}},
		{"bad duration", "steps:\n - wait: 5", []string{"line 2", "with a unit"}},
		{"both", "steps:\n - wait: 1s\nrandom: {seed: 1, interval: 1s, duration: 2s, faults: [kill]}",
			[]string{"nemesis: steps and random are exclusive"}},
		{"random problems", "random: {seed: 1, duration: 1s, faults: [kill, elect-unclean, partition-bridge], targets: {role: who}}",
			[]string{"nemesis.random.interval: must be positive", `nemesis.random.faults[1]: unknown fault "elect-unclean"`,
				`nemesis.random.targets.role: unknown role "who"`}},
		{"random short", "random: {seed: 1, interval: 10s, duration: 5s, faults: [pause]}",
			[]string{"nemesis.random.duration: 5s is shorter than the interval 10s"}},
		{"random empty", "random: {seed: 1, interval: 1s, duration: 5s}", []string{"nemesis.random.faults: empty"}},
	} {
		t.Run(tc.name, func(t *testing.T) { checkParse(t, tc.yaml, tc.want) })
	}
}

// checkParse parses a schedule: valid when want is empty, else an error
// naming every string of want.
func checkParse(t *testing.T, yaml string, want []string) {
	t.Helper()
	_, err := ParseSchedule([]byte(yaml))
	if len(want) == 0 {
		if err != nil {
			t.Fatalf("want valid, got %v", err)
		}
		return
	}
	if err == nil {
		t.Fatalf("want errors %q, got none", want)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
}

func TestNewFaultCoversEveryName(t *testing.T) {
	for _, name := range faultNames() {
		f, err := NewFault(Step{Fault: name})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if f.Name() != name {
			t.Errorf("NewFault(%s).Name() = %s", name, f.Name())
		}
	}
	if _, err := NewFault(Step{Fault: "nap"}); err == nil {
		t.Error("unknown fault built")
	}
}
