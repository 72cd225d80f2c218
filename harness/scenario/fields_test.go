package scenario

import (
	sshb "github.com/kchaos/kchaos/cluster/ssh"

	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/harness/expect"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
	"github.com/kchaos/kchaos/workloads"
)

// effect is everything a run takes from a scenario: what harness.Run
// hands to the cluster, the topic creation, the workload, the nemesis
// runner, what it writes into run.json and the report, and the checks a
// suite judges the run by. A field that changes none of it is a dead knob.
type effect struct {
	Name, Description, Expect string
	Jira, Docs                []string
	Finding                   *histories.Finding
	Seed                      int64
	Cluster                   cluster.Config
	Topic                     admin.TopicSpec
	Workload                  workloads.Config
	Nemesis                   nemesis.Schedule
	HealTimeout               time.Duration
	AbortHanging              bool
	Checks                    []expect.Check
}

func effectOf(s *Scenario) effect {
	cc := s.Cluster.ClusterConfig()
	cc.Defaults()
	return effect{Name: s.Name, Description: s.Description, Expect: s.Expect, Seed: s.Seed, Jira: s.Jira, Docs: s.Docs, Finding: s.FindingInfo(),
		Cluster: cc, Topic: s.TopicSpec(), Workload: s.WorkloadConfig(), Nemesis: s.Nemesis,
		HealTimeout: s.Final.RecoverTimeout.Std(), AbortHanging: s.Final.AbortHanging, Checks: s.Checks()}
}

func loadText(t *testing.T, text string, sets ...string) (*Scenario, error) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return Load(f, sets)
}

// A scenario that sets nothing runs with what the lower packages pick on
// their own: every default is written once, in the package that uses it.
func TestDefaultsComeFromLowerPackages(t *testing.T) {
	s, err := loadText(t, "name: x\n")
	if err != nil {
		t.Fatal(err)
	}
	var cc cluster.Config
	cc.Defaults()
	if got := effectOf(s).Cluster; !reflect.DeepEqual(got, cc) {
		t.Errorf("cluster:\n got %+v\nwant %+v (cluster.Config.Defaults)", got, cc)
	}
	var wc workloads.Config
	wc.Defaults()
	wc.ClusterVersion = cc.KafkaVersion
	if got := s.WorkloadConfig(); !reflect.DeepEqual(got, wc) {
		t.Errorf("workload:\n got %+v\nwant %+v (workloads.Config.Defaults)", got, wc)
	}
	if s.Topic.Name != wc.Topic || s.Topic.Partitions != wc.Partitions {
		t.Errorf("topic %s/%d, want the workload's default %s/%d", s.Topic.Name, s.Topic.Partitions, wc.Topic, wc.Partitions)
	}
	if got := s.Final.RecoverTimeout.Std(); got != nemesis.DefaultHealTimeout {
		t.Errorf("final.recover_timeout %s, want nemesis.DefaultHealTimeout %s", got, nemesis.DefaultHealTimeout)
	}
	if got := s.Final.ReadTimeout.Std(); got != workloads.DefaultFinalReadTimeout {
		t.Errorf("final.read_timeout %s, want workloads.DefaultFinalReadTimeout %s", got, workloads.DefaultFinalReadTimeout)
	}
}

// fieldCases sets each scenario field to a non-default value (sets on top
// of base) and says what must change in the run's effect.
var fieldCases = []struct {
	path  string
	base  []string // applied to both runs, e.g. what the field needs
	sets  []string
	check func(before, after effect) bool
}{
	{"name", nil, []string{"name=y"}, func(_, a effect) bool { return a.Name == "y" }},
	{"description", nil, []string{"description=d"}, func(_, a effect) bool { return a.Description == "d" }},
	{"expect", nil, []string{"expect=e"}, func(_, a effect) bool { return a.Expect == "e" }},
	{"jira", nil, []string{"jira=[KAFKA-20732]"}, func(_, a effect) bool { return slices.Equal(a.Jira, []string{"KAFKA-20732"}) }},
	{"docs", nil, []string{"docs=[https://kafka.apache.org/documentation/#tiered_storage]"},
		func(_, a effect) bool { return len(a.Docs) == 1 }},
	{"finding", nil, []string{"finding={status: fixed in 4.4.0, steps: restart the leader}"},
		func(_, a effect) bool {
			return a.Finding != nil && a.Finding.Status == "fixed in 4.4.0" && a.Finding.Steps == "restart the leader"
		}},
	{"outcome", nil, []string{`outcome=[{check: "lost-write == 0"}]`}, func(_, a effect) bool { return len(a.Checks) == 1 }},
	{"seed", nil, []string{"seed=7"}, func(_, a effect) bool { return a.Seed == 7 }},
	{"cluster.kafka", nil, []string{"cluster.kafka=4.0.2"},
		func(_, a effect) bool {
			return a.Cluster.KafkaVersion == "4.0.2" && a.Cluster.Image == "kchaos/kafka:4.0.2"
		}},
	{"cluster.backend", nil, sshBase, func(_, a effect) bool { return a.Cluster.Backend == "ssh" && a.Cluster.Brokers == 2 }},
	{"cluster.hosts", sshBase, []string{"cluster.hosts=[{id: 1000, addr: c, role: controller}, {id: 0, addr: a, rack: x}, {id: 1, addr: b, rack: y}, {id: 2, addr: d, rack: y}]"},
		func(_, a effect) bool { return a.Cluster.Brokers == 3 && a.Cluster.Racks.String() == "x=0;y=1,2" }},
	{"cluster.ssh", sshBase, []string{"cluster.ssh.sudo=true"}, func(_, a effect) bool { return sshSpec(a).SSH.Sudo }},
	{"cluster.service", sshBase, []string{"cluster.service.process=kafka.Kafka2"},
		func(_, a effect) bool { return sshSpec(a).Service.Process == "kafka.Kafka2" }},
	{"cluster.confirm_owner", nil, sshBase[:len(sshBase)-1], nil},
	{"cluster.state_dir", sshBase, []string{"cluster.state_dir=/tmp/st"}, func(_, a effect) bool { return sshSpec(a).StateDir == "/tmp/st" }},
	{"cluster.brokers", nil, []string{"cluster.brokers=5"}, func(_, a effect) bool { return a.Cluster.Brokers == 5 }},
	{"cluster.controllers", nil, []string{"cluster.controllers=3"}, func(_, a effect) bool { return a.Cluster.Controllers == 3 }},
	{"cluster.racks", nil, []string{"cluster.racks={a: [0, 1], b: [2]}"},
		func(_, a effect) bool { return a.Cluster.Racks.String() == "a=0,1;b=2" }},
	{"cluster.transaction_version", nil, []string{"cluster.transaction_version=1"}, func(_, a effect) bool {
		return a.Cluster.TransactionVersion != nil && *a.Cluster.TransactionVersion == 1
	}},
	{"cluster.share_version", nil, []string{"cluster.share_version=1"}, func(_, a effect) bool {
		return a.Cluster.ShareVersion != nil && *a.Cluster.ShareVersion == 1
	}},
	{"cluster.elr", nil, []string{"cluster.elr=on"}, func(_, a effect) bool { return a.Cluster.ELR != nil && *a.Cluster.ELR }},
	{"cluster.quorum", nil, []string{"cluster.quorum.dynamic=true", "cluster.quorum.spare_controllers=1"}, func(_, a effect) bool {
		return a.Cluster.Quorum.IsDynamic() && a.Cluster.Quorum.Spares() == 1
	}},
	{"cluster.broker_config", nil, []string{"cluster.broker_config.num.io.threads=4"},
		func(_, a effect) bool { return a.Cluster.BrokerConfig["num.io.threads"] == "4" }},
	{"cluster.controller_config", nil, []string{"cluster.controller_config.num.io.threads=3"},
		func(_, a effect) bool { return a.Cluster.ControllerConfig["num.io.threads"] == "3" }},
	{"cluster.per_broker", nil, []string{"cluster.per_broker.2.num.replica.fetchers=2"},
		func(_, a effect) bool { return a.Cluster.PerBroker[2]["num.replica.fetchers"] == "2" }},
	{"cluster.log_dirs", nil, []string{"cluster.log_dirs=2"}, func(_, a effect) bool { return a.Cluster.LogDirs == 2 }},
	{"cluster.log_dir_size", []string{"cluster.log_dirs=2"}, []string{"cluster.log_dir_size=64MiB"},
		func(_, a effect) bool { return a.Cluster.LogDirSizeBytes == 64<<20 }},
	{"cluster.tiered", nil, []string{"cluster.tiered.segment_ms=3000"},
		func(_, a effect) bool { return a.Cluster.Tiered != nil && a.Topic.Configs["segment.ms"] == "3000" }},
	{"topic.log_dir", []string{"cluster.log_dirs=3"}, []string{"topic.log_dir=2"},
		func(_, a effect) bool { return a.Topic.LogDir == "/var/lib/kafka/data-2" }},
	{"topic.name", nil, []string{"topic.name=orders"},
		func(_, a effect) bool { return a.Topic.Name == "orders" && a.Workload.Topic == "orders" }},
	{"topic.partitions", nil, []string{"topic.partitions=2"},
		func(_, a effect) bool { return len(a.Topic.Assignment) == 2 && a.Workload.Partitions == 2 }},
	{"topic.replication_factor", nil, []string{"topic.replication_factor=2"},
		func(_, a effect) bool { return len(a.Topic.Assignment[0]) == 2 }},
	{"topic.assignment", nil, []string{"topic.assignment=[[2, 1, 0]]"},
		func(_, a effect) bool { return slices.Equal(a.Topic.Assignment[0], []int32{2, 1, 0}) }},
	{"topic.configs", nil, []string{"topic.configs.min.insync.replicas=2"},
		func(_, a effect) bool { return a.Topic.Configs["min.insync.replicas"] == "2" }},
	{"workload.driver", nil, []string{"workload.driver=kafka-go"},
		func(_, a effect) bool { return a.Workload.Driver == workloads.DriverKafkaGo }},
	{"workload.client_version", []string{"workload.driver=java"}, []string{"workload.client_version=4.1.2"},
		func(_, a effect) bool { return a.Workload.ClientVersion == "4.1.2" }},
	{"workload.topic", nil, []string{"workload.topic=orders"},
		func(_, a effect) bool { return a.Topic.Name == "orders" && a.Workload.Topic == "orders" }},
	{"workload.partitions", []string{"topic.partitions=3"}, []string{"workload.partitions=2"},
		func(b, a effect) bool { return b.Workload.Partitions == 3 && a.Workload.Partitions == 2 }},
	{"workload.producers", nil, []string{"workload.producers=4"}, func(_, a effect) bool { return a.Workload.Producers == 4 }},
	{"workload.acks", nil, []string{"workload.acks=1"}, func(_, a effect) bool { return a.Workload.Acks == workloads.AcksLeader }},
	{"workload.idempotent", []string{"workload.retries=2"}, []string{"workload.idempotent=true"},
		func(_, a effect) bool { return a.Workload.Idempotent }},
	{"workload.retries", nil, []string{"workload.retries=2"}, func(_, a effect) bool { return a.Workload.Retries == 2 }},
	{"workload.request_timeout", nil, []string{"workload.request_timeout=2s"},
		func(_, a effect) bool { return a.Workload.RequestTimeout.Std() == 2*time.Second }},
	{"workload.max_in_flight", nil, []string{"workload.max_in_flight=8"}, func(_, a effect) bool { return a.Workload.MaxInFlight == 8 }},
	{"workload.partitioning", nil, []string{"workload.partitioning=key"},
		func(_, a effect) bool { return a.Workload.Partitioning == workloads.ByKey }},
	{"workload.keys", []string{"workload.partitioning=key"}, []string{"workload.keys=3"},
		func(_, a effect) bool { return a.Workload.Keys == 3 }},
	{"workload.rate", nil, []string{"workload.rate=100"}, func(_, a effect) bool { return a.Workload.Rate == 100 }},
	{"workload.consumers", nil, []string{"workload.consumers=1"}, func(_, a effect) bool { return a.Workload.Consumers == 1 }},
	{"workload.metadata", nil, []string{"workload.metadata={clients: 2}"},
		func(_, a effect) bool { return a.Workload.Metadata.Clients == 2 && a.Workload.Metadata.Rate == 2 }},
	{"workload.metadata.clients", nil, []string{"workload.metadata.clients=3"}, func(_, a effect) bool { return a.Workload.Metadata.Clients == 3 }},
	{"workload.metadata.rate", []string{"workload.metadata.clients=1"}, []string{"workload.metadata.rate=5"},
		func(_, a effect) bool { return a.Workload.Metadata.Rate == 5 }},
	{"workload.group", nil, []string{"workload.group={id: g}"},
		func(_, a effect) bool {
			return a.Workload.Group.ID == "g" && a.Workload.Group.Members == workloads.DefaultGroupMembers &&
				a.Workload.Group.Protocol == histories.ProtocolClassic && a.Workload.Group.Commit == workloads.CommitAuto
		}},
	{"workload.shares", nil, []string{"workload.shares={group: q}"},
		func(_, a effect) bool {
			return a.Workload.Shares.Group == "q" && a.Workload.Shares.Members == workloads.DefaultShareMembers &&
				a.Workload.Shares.Ack.Accept == 1
		}},
	{"workload.shares.members", []string{"workload.shares.group=q"}, []string{"workload.shares.members=3"},
		func(_, a effect) bool { return a.Workload.Shares.Members == 3 }},
	{"workload.group.members", []string{"workload.group.id=g"}, []string{"workload.group.members=3"},
		func(_, a effect) bool { return a.Workload.Group.Members == 3 }},
	{"workload.group.protocol", []string{"workload.group.id=g"}, []string{"workload.group.protocol=consumer"},
		func(_, a effect) bool { return a.Workload.Group.Protocol == histories.ProtocolConsumer }},
	{"workload.group.protocols", []string{"workload.group.id=g", "workload.group.members=3"}, []string{"workload.group.protocols=[consumer, classic, classic]"},
		func(_, a effect) bool {
			g := a.Workload.Group
			return g.Protocol == "" && g.MemberProtocol(0) == histories.ProtocolConsumer && g.MemberProtocol(2) == histories.ProtocolClassic
		}},
	{"workload.group.metadata_bytes", []string{"workload.group.id=g"}, []string{"workload.group.metadata_bytes=1000000"},
		func(_, a effect) bool { return a.Workload.Group.MetadataBytes == 1_000_000 }},
	{"workload.group.protocols (kafka-go)", []string{"workload.group.id=g", "workload.driver=kafka-go"}, []string{"workload.group.protocols=[consumer, classic]"}, nil},
	{"workload.group.metadata_bytes (java)", []string{"workload.group.id=g", "workload.driver=java"}, []string{"workload.group.metadata_bytes=10"}, nil},
	{"workload.group.commit", []string{"workload.group.id=g"}, []string{"workload.group.commit=manual"},
		func(_, a effect) bool { return a.Workload.Group.Commit == workloads.CommitManual }},
	{"workload.group.commit_interval", []string{"workload.group.id=g"}, []string{"workload.group.commit_interval=250ms"},
		func(_, a effect) bool { return a.Workload.Group.CommitInterval.Std() == 250*time.Millisecond }},
	{"workload.group.commit_epoch", []string{"workload.group.id=g", "workload.group.commit=manual"}, []string{"workload.group.commit_epoch=record"},
		func(_, a effect) bool { return a.Workload.Group.CommitEpoch == workloads.CommitEpochRecord }},
	{"workload.group.session_timeout", []string{"workload.group.id=g"}, []string{"workload.group.session_timeout=20s"},
		func(_, a effect) bool { return a.Workload.Group.SessionTimeout.Std() == 20*time.Second }},
	{"workload.group.max_poll_interval", []string{"workload.group.id=g"}, []string{"workload.group.max_poll_interval=30s"},
		func(_, a effect) bool { return a.Workload.Group.MaxPollInterval.Std() == 30*time.Second }},
	{"workload.group.delivery", []string{"workload.group.id=g"}, []string{"workload.group.delivery=exactly-once"},
		func(_, a effect) bool { return a.Workload.Group.Delivery == histories.ExactlyOnce }},
	{"workload.group.protocol (kafka-go)", []string{"workload.group.id=g", "workload.driver=kafka-go"}, []string{"workload.group.protocol=consumer"}, nil},
	{"workload.isolation", nil, []string{"workload.isolation=read_committed"},
		func(_, a effect) bool { return a.Workload.Isolation == histories.ReadCommitted }},
	{"workload.transactions", nil, []string{"workload.transactions={enabled: true, abort_rate: 0.3}"},
		func(_, a effect) bool {
			return a.Workload.Transactions.Enabled && a.Workload.Transactions.Aborts() == 0.3 && len(a.Workload.TransactionalIDs()) == 1
		}},
	{"workload.producer_props", []string{"workload.driver=java"}, []string{"workload.producer_props.linger.ms=5"},
		func(_, a effect) bool { return a.Workload.ProducerProps["linger.ms"] == "5" }},
	{"workload.consumer_props", []string{"workload.driver=java"}, []string{"workload.consumer_props.fetch.max.wait.ms=100"},
		func(_, a effect) bool { return a.Workload.ConsumerProps["fetch.max.wait.ms"] == "100" }},
	{"workload.producer_props (franz)", nil, []string{"workload.producer_props.linger.ms=5"}, nil},
	{"workload.offset_reset", nil, []string{"workload.offset_reset=latest"},
		func(_, a effect) bool { return a.Workload.OffsetReset == workloads.ResetLatest }},
	{"workload.duration", nil, []string{"workload.duration=30s"},
		func(_, a effect) bool { return a.Workload.Duration.Std() == 30*time.Second }},
	{"nemesis.steps", nil, []string{"nemesis.steps=[{wait: 1s}]"},
		func(_, a effect) bool { return len(a.Nemesis.Steps) == 1 }},
	{"nemesis.bootstrap", []string{"cluster.controllers=3"}, []string{"nemesis.bootstrap=[{until: {quorum_leader: true}}, {fault: kill, target: {role: active-controller}}]"},
		func(_, a effect) bool { return len(a.Nemesis.Bootstrap) == 2 }},
	{"nemesis.random", nil, []string{"nemesis.random={interval: 1s, duration: 2s, faults: [kill]}"},
		func(_, a effect) bool { return a.Nemesis.Random != nil && a.Nemesis.Random.Faults[0] == "kill" }},
	{"final.recover_timeout", nil, []string{"final.recover_timeout=30s"},
		func(_, a effect) bool { return a.HealTimeout == 30*time.Second }},
	{"final.read_timeout", nil, []string{"final.read_timeout=45s"},
		func(_, a effect) bool { return a.Workload.FinalReadTimeout.Std() == 45*time.Second }},
	{"final.abort_hanging", []string{"workload.isolation=read_committed"}, []string{"final.abort_hanging=true"},
		func(_, a effect) bool { return a.AbortHanging }},
}

// sshBase is a minimal ssh backend section; confirm_owner last.
var sshBase = []string{
	"cluster.backend=ssh",
	"cluster.hosts=[{id: 1000, addr: c, role: controller}, {id: 0, addr: a, rack: x}, {id: 1, addr: b, rack: y}]",
	"cluster.ssh={user: kafka, key: testdata/ssh_key, known_hosts: testdata/known_hosts}",
	"cluster.service={start: start-kafka, stop: stop-kafka, log_dirs: [/var/lib/kafka]}",
	"topic.replication_factor=2",
	"cluster.confirm_owner=true",
}

func sshSpec(e effect) *sshb.Spec {
	sp, _ := e.Cluster.BackendSpec.(*sshb.Spec)
	if sp == nil {
		return &sshb.Spec{}
	}
	return sp
}

// Every field a scenario accepts changes what the run does (or is
// refused where it cannot: a case without a check): no knob is accepted
// and ignored.
func TestEveryFieldTakesEffect(t *testing.T) {
	for _, tc := range fieldCases {
		t.Run(tc.path, func(t *testing.T) {
			base, err := loadText(t, "name: x\n", tc.base...)
			if err != nil {
				t.Fatal(err)
			}
			s, err := loadText(t, "name: x\n", append(slices.Clone(tc.base), tc.sets...)...)
			if tc.check == nil {
				var bad *BadInputError
				path, _, _ := strings.Cut(tc.path, " ")
				if !errors.As(err, &bad) || !strings.Contains(err.Error(), path) {
					t.Fatalf("want a refusal naming %s, got %v", tc.path, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			before, after := effectOf(base), effectOf(s)
			if reflect.DeepEqual(before, after) {
				t.Fatalf("setting %v changed nothing the run uses", tc.sets)
			}
			if !tc.check(before, after) {
				t.Errorf("setting %v: effect %+v", tc.sets, after)
			}
		})
	}
}

// The table covers every field of the scenario format: a new field without
// a case (and so without proof that it does something) fails here.
func TestFieldCasesCoverTheFormat(t *testing.T) {
	covered := map[string]bool{}
	for _, tc := range fieldCases {
		covered[tc.path] = true
	}
	for _, p := range yamlPaths(reflect.TypeOf(Scenario{}), "") {
		if !covered[p] {
			t.Errorf("scenario field %s has no case in fieldCases", p)
		}
	}
}

// yamlPaths lists the YAML paths of a struct's fields, descending into the
// scenario's own sections; nemesis.steps, nemesis.random and
// nemesis.bootstrap are leaves
// (the nemesis package owns and validates what is inside them).
func yamlPaths(t reflect.Type, prefix string) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		p := prefix + name
		ft := f.Type
		if ft.Kind() == reflect.Struct && ft != reflect.TypeOf(workloads.Duration(0)) && prefix == "" {
			out = append(out, yamlPaths(ft, p+".")...)
			continue
		}
		out = append(out, p)
	}
	return out
}

func TestRemovedFieldsRefused(t *testing.T) {
	tests := []struct {
		name, yaml string
		sets       []string
		want       []string
	}{
		{"workload.final_read_timeout in the file", "name: x\nworkload:\n  final_read_timeout: 30s\n", nil,
			[]string{"line 3", "workload.final_read_timeout", "use final.read_timeout"}},
		{"workload.final_read_timeout by --set", "name: x\n", []string{"workload.final_read_timeout=30s"},
			[]string{"--set", "workload.final_read_timeout", "use final.read_timeout"}},
		{"final.heal false", "name: x\nfinal:\n  heal: false\n", nil,
			[]string{"line 3", "final.heal", "the final heal always runs"}},
		{"final.heal true too", "name: x\nfinal:\n  heal: true\n", nil, []string{"final.heal: removed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadText(t, tt.yaml, tt.sets...)
			var bad *BadInputError
			if !errors.As(err, &bad) {
				t.Fatalf("error %v is not a BadInputError (exit 254)", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestSeedIsOneValue(t *testing.T) {
	random := "name: x\nnemesis:\n  random: {interval: 1s, duration: 2s, faults: [kill]}\n"
	tests := []struct {
		name      string
		sets      []string
		pick      int64 // what the harness would pick
		seed, rnd int64
		bad       string
	}{
		{"picked seed drives the random schedule", nil, 99, 99, 99, ""},
		{"scenario seed drives it", []string{"seed=5"}, 99, 5, 5, ""},
		{"random seed is the run's seed", []string{"nemesis.random.seed=6"}, 99, 6, 6, ""},
		{"both and different", []string{"seed=5", "nemesis.random.seed=6"}, 0, 0, 0, "nemesis.random.seed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := loadText(t, random, tt.sets...)
			if tt.bad != "" {
				if err == nil || !strings.Contains(err.Error(), tt.bad) {
					t.Fatalf("want an error naming %s, got %v", tt.bad, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			s.SetSeed(tt.pick)
			if s.Seed != tt.seed || s.Nemesis.Random.Seed != tt.rnd {
				t.Errorf("seed %d, random seed %d; want %d, %d", s.Seed, s.Nemesis.Random.Seed, tt.seed, tt.rnd)
			}
		})
	}
}
