package cluster

import (
	"fmt"
	"strings"
	"testing"
)

// TestQuorumValidate: every quorum rule names its key, on the releases
// where it bites, and passes where Kafka has the feature.
func TestQuorumValidate(t *testing.T) {
	for _, tc := range []struct {
		version string
		q       *Quorum
		err     string // "" valid; else a part of the message
	}{
		{"3.9.2", nil, ""},
		{"3.9.2", &Quorum{}, ""},
		{"3.9.2", &Quorum{Dynamic: true}, ""},
		{"3.9.2", &Quorum{Dynamic: true, SpareControllers: 1}, ""},
		{"3.9.2", &Quorum{Dynamic: true, AutoJoin: true}, "quorum.auto_join: controller.quorum.auto.join.enable needs Kafka 4.2 or later; 3.9.2"},
		{"4.1.2", &Quorum{Dynamic: true, AutoJoin: true}, "needs Kafka 4.2 or later; 4.1.2"},
		{"4.2.2", &Quorum{Dynamic: true, AutoJoin: true}, ""},
		{"4.4.0", &Quorum{Dynamic: true, AutoJoin: true}, ""},
		{"4.4.0", &Quorum{AutoJoin: true}, "quorum.auto_join: needs quorum.dynamic: true"},
		{"4.4.0", &Quorum{SpareControllers: 1}, "quorum.spare_controllers: needs quorum.dynamic: true"},
		{"4.4.0", &Quorum{Dynamic: true, SpareControllers: 4}, "quorum.spare_controllers: 4: want 0..3"},
		{"4.4.0", &Quorum{Dynamic: true, SpareControllers: -1}, "quorum.spare_controllers: -1"},
		{"4.4.0", &Quorum{Dynamic: true, AutoJoin: true, SpareControllers: 1}, "would be no spare"},
	} {
		c := Config{KafkaVersion: tc.version, Controllers: 3, Quorum: tc.q}
		c.Defaults()
		err := c.Validate()
		if (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s %+v: Validate = %v, want %q", tc.version, tc.q, err, tc.err)
		}
	}
}

// TestKRaftLayout: a static quorum renders controller.quorum.voters and
// formats nothing extra; a dynamic one renders the initial voters as
// bootstrap servers, formats them --initial-controllers with one list
// (their directory ids chosen by kchaos), a spare --no-initial-controllers
// and a broker with nothing; auto-join is set on controllers of 4.2+ only.
func TestKRaftLayout(t *testing.T) {
	ctrl := func(i int) Node {
		return Node{ID: int32(ControllerIDBase + i), Role: RoleController, IP: fmt.Sprintf("10.0.0.%d", 10+i)}
	}
	ctrls := []Node{ctrl(0), ctrl(1), ctrl(2), ctrl(3)}
	broker := Node{ID: 0, Role: RoleBroker, IP: "10.0.0.20"}
	list := "1000@10.0.0.10:9093:" + DirectoryID("r1", 1000) + ",1001@10.0.0.11:9093:" + DirectoryID("r1", 1001) +
		",1002@10.0.0.12:9093:" + DirectoryID("r1", 1002)
	for _, tc := range []struct {
		name     string
		version  string
		q        *Quorum
		node     Node
		props    map[string]string // "" value: absent
		format   string
		spare    bool
		ctrlsLen int
	}{
		{name: "static", version: "4.4.0", node: ctrl(0), ctrlsLen: 3,
			props: map[string]string{"controller.quorum.voters": "1000@10.0.0.10:9093,1001@10.0.0.11:9093,1002@10.0.0.12:9093",
				"controller.quorum.bootstrap.servers": "", autoJoinConfig: ""}},
		{name: "dynamic voter", version: "4.4.0", q: &Quorum{Dynamic: true, SpareControllers: 1}, node: ctrl(1), ctrlsLen: 4,
			props: map[string]string{"controller.quorum.voters": "", "controller.quorum.bootstrap.servers": "10.0.0.10:9093,10.0.0.11:9093,10.0.0.12:9093",
				autoJoinConfig: "false"},
			format: "--initial-controllers " + list},
		{name: "dynamic spare", version: "4.4.0", q: &Quorum{Dynamic: true, SpareControllers: 1}, node: ctrl(3), ctrlsLen: 4, spare: true,
			props:  map[string]string{"controller.quorum.bootstrap.servers": "10.0.0.10:9093,10.0.0.11:9093,10.0.0.12:9093", autoJoinConfig: "false"},
			format: "--no-initial-controllers"},
		{name: "dynamic broker", version: "4.4.0", q: &Quorum{Dynamic: true, AutoJoin: true}, node: broker, ctrlsLen: 3,
			props: map[string]string{"controller.quorum.voters": "", "controller.quorum.bootstrap.servers": "10.0.0.10:9093,10.0.0.11:9093,10.0.0.12:9093",
				autoJoinConfig: ""}},
		{name: "auto-join on", version: "4.2.2", q: &Quorum{Dynamic: true, AutoJoin: true}, node: ctrl(2), ctrlsLen: 3,
			props: map[string]string{autoJoinConfig: "true"}, format: "--initial-controllers " + list},
		{name: "3.9 has no auto-join key", version: "3.9.2", q: &Quorum{Dynamic: true}, node: ctrl(0), ctrlsLen: 3,
			props: map[string]string{autoJoinConfig: ""}, format: "--initial-controllers " + list},
	} {
		cfg := Config{RunID: "r1", KafkaVersion: tc.version, Controllers: 3, Quorum: tc.q}
		cfg.Defaults()
		l := NewKRaftLayout(cfg, ctrls[:tc.ctrlsLen])
		p := props(Render(tc.node, l.Addrs(tc.node), 3, map[string]string{autoJoinConfig: "true", "controller.quorum.voters": "user"}))
		for k, want := range tc.props {
			if got, ok := p[k]; got != want || (want == "" && ok) {
				t.Errorf("%s: %s = %q (present %v), want %q", tc.name, k, got, ok, want)
			}
		}
		if got := strings.Join(l.FormatArgs(tc.node), " "); got != tc.format {
			t.Errorf("%s: format args %q, want %q", tc.name, got, tc.format)
		}
		if l.isSpare(tc.node.ID) != tc.spare {
			t.Errorf("%s: IsSpare = %v", tc.name, !tc.spare)
		}
	}
	if a, b := DirectoryID("r1", 1000), DirectoryID("r1", 1001); a == b || validClusterID(a) != nil || a != DirectoryID("r1", 1000) {
		t.Errorf("directory ids %q, %q: want distinct, stable, valid Uuids", a, b)
	}
}
