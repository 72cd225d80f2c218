package cluster

import (
	"strings"
	"testing"
)

// A tiered broker's server.properties turns remote storage on with
// kchaos's RemoteStorageManager on the shared folder; a broker_config
// override still wins, and the keys kchaos owns stay its own.
func TestTieredBrokerConfig(t *testing.T) {
	tr := Tiered{}
	tr.Defaults()
	n := Node{ID: 0, Role: RoleBroker, IP: "10.0.0.20"}
	props := Render(n, StaticVoters("1000@10.0.0.10:9093"), 3, tr.BrokerConfig(3), map[string]string{"remote.log.manager.task.interval.ms": "5000"})
	for _, want := range []string{
		"remote.log.storage.system.enable=true",
		"remote.log.storage.manager.class.name=" + remoteStorageManagerClass,
		"rsm.config.dir=" + RemoteDir,
		"remote.log.metadata.manager.listener.name=PLAINTEXT",
		"rlmm.config.remote.log.metadata.topic.replication.factor=3",
		"remote.log.manager.task.interval.ms=5000",
		"log.retention.check.interval.ms=1000",
		"log.initial.task.delay.ms=1000",
		"log.dirs=" + DataDir,
	} {
		if !strings.Contains(props, want+"\n") {
			t.Errorf("server.properties lacks %q:\n%s", want, props)
		}
	}
	if got := tr.TopicConfigs(); got["remote.storage.enable"] != "true" || got["segment.ms"] != "2000" || got["local.retention.ms"] != "2000" {
		t.Errorf("topic configs %v", got)
	}
	ctrl := Render(Node{ID: 1000, Role: RoleController, IP: "10.0.0.10"}, StaticVoters("1000@10.0.0.10:9093"), 3, tr.ControllerConfig())
	if !strings.Contains(ctrl, "remote.log.storage.system.enable=true\n") {
		t.Errorf("controller server.properties lacks remote.log.storage.system.enable=true:\n%s", ctrl)
	}
	one := Tiered{}
	one.Defaults()
	if rf := one.BrokerConfig(1)["rlmm.config.remote.log.metadata.topic.replication.factor"]; rf != "1" {
		t.Errorf("metadata topic RF %s on one broker, want 1", rf)
	}
}

// Config.Validate refuses tiered storage where it cannot run, naming
// the field.
func TestTieredValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"ok", Config{Tiered: &Tiered{}}, ""},
		{"ssh", Config{Backend: "ssh", Tiered: &Tiered{}}, "tiered: the remote tier"},
		{"jbod", Config{LogDirs: 2, Tiered: &Tiered{}}, "tiered: with log_dirs 2"},
		{"segment", Config{Tiered: &Tiered{SegmentMS: 10}}, "tiered.segment_ms"},
		{"local", Config{Tiered: &Tiered{LocalRetentionMS: -1}}, "tiered.local_retention_ms"},
		{"interval", Config{Tiered: &Tiered{TaskIntervalMS: 99}}, "tiered.task_interval_ms"},
	} {
		c := tc.cfg
		c.Defaults()
		err := c.Validate()
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if (Version{3, 8, 1}).hasTieredStorage() || !(Version{3, 9, 0}).hasTieredStorage() {
		t.Error("HasTieredStorage: want 3.9 and later")
	}
}
