package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShareValidation: a share group that Kafka cannot run (an old
// version, share.version off, renewal before 4.2, broker configs Kafka
// refuses, a client without a share consumer) is refused at load, before
// any cluster starts (the CLI's exit 254), naming the field; one that it
// can run loads.
func TestShareValidation(t *testing.T) {
	const shares = "workload:\n  shares: {group: q}\n"
	for _, c := range []struct {
		name, yaml string
		want       string // "" loads
	}{
		{"4.4 default", "name: s\ncluster:\n  kafka: 4.4.0\n" + shares, ""},
		{"4.2 default", "name: s\ncluster:\n  kafka: 4.2.2\n" + shares, ""},
		{"4.1 with share.version 1", "name: s\ncluster:\n  kafka: 4.1.2\n  share_version: \"1\"\n" + shares, ""},
		{"4.1 default: off", "name: s\ncluster:\n  kafka: 4.1.2\n" + shares,
			"cluster.share_version: share.version is 0 on this cluster: share groups are off (Kafka 4.1.2 formats new clusters with share.version=0; set cluster.share_version: 1)"},
		{"4.4 turned off", "name: s\ncluster:\n  kafka: 4.4.0\n  share_version: \"0\"\n" + shares,
			"cluster.share_version: share.version is 0 on this cluster"},
		{"4.0", "name: s\ncluster:\n  kafka: 4.0.2\n" + shares,
			"workload.shares: share groups (KIP-932) need Kafka 4.1 or later (4.0's early access cannot be upgraded); 4.0.2"},
		{"3.9", "name: s\ncluster:\n  kafka: 3.9.2\n" + shares, "workload.shares: share groups (KIP-932) need Kafka 4.1 or later"},
		{"share.version 2 on 4.2", "name: s\ncluster:\n  kafka: 4.2.2\n  share_version: \"2\"\n" + shares,
			"cluster: share_version: 2: want 0..1 on Kafka 4.2.2"},
		{"share.version not a level", "name: s\ncluster:\n  share_version: on\n" + shares, `cluster.share_version: "on": want default or a level`},
		{"renew on 4.1", "name: s\ncluster:\n  kafka: 4.1.2\n  share_version: \"1\"\nworkload:\n  shares: {group: q, renew: true}\n",
			"workload.shares.renew: lock renewal (AckRenew, KIP-1222) needs Kafka 4.2 or later; 4.1.2"},
		{"lock below the broker's minimum", "name: s\ncluster:\n  broker_config: {group.share.record.lock.duration.ms: \"5000\"}\n" + shares,
			"cluster.broker_config.group.share.record.lock.duration.ms: 5000: Kafka refuses a lock duration outside group.share.min.record.lock.duration.ms..group.share.max.record.lock.duration.ms (15000..60000)"},
		{"lock within a lowered minimum", "name: s\ncluster:\n  broker_config: {group.share.record.lock.duration.ms: \"5000\", group.share.min.record.lock.duration.ms: \"1000\"}\n" + shares, ""},
		{"lock not a number", "name: s\ncluster:\n  broker_config: {group.share.record.lock.duration.ms: 5s}\n" + shares,
			`cluster.broker_config.group.share.record.lock.duration.ms: "5s": want an integer`},
		{"delivery limit too high", "name: s\ncluster:\n  broker_config: {group.share.delivery.count.limit: \"11\"}\n" + shares,
			"cluster.broker_config.group.share.delivery.count.limit: 11: Kafka wants 2..10"},
		{"kafka-go has no share consumer", "name: s\nworkload:\n  driver: kafka-go\n  shares: {group: q}\n",
			`workload.driver: "kafka-go": share groups need driver franz`},
		{"shares beside a consumer group", "name: s\nworkload:\n  group: {id: g}\n  shares: {group: q}\n",
			`workload.shares.group: "q" beside workload.group "g"`},
		{"shares fields without a group", "name: s\nworkload:\n  shares: {members: 3}\n", "workload.shares.group: missing"},
		{"an ack mix of nothing", "name: s\nworkload:\n  shares: {group: q, ack: {accept: 0, release: -1}}\n", "workload.shares.ack:"},
		{"share-coordinator role", "name: s\n" + shares + "nemesis:\n  steps:\n    - fault: kill\n      target: {role: share-coordinator}\n", ""},
		{"share-coordinator role without shares", "name: s\nnemesis:\n  steps:\n    - fault: kill\n      target: {role: share-coordinator}\n",
			"nemesis.steps[0].target.role: share-coordinator needs workload.shares"},
		{"until share start offset", "name: s\n" + shares + "nemesis:\n  steps:\n    - until: {partition: 0, share_start_offset: 20}\n", ""},
		{"until share start offset without shares", "name: s\nnemesis:\n  steps:\n    - until: {partition: 0, share_start_offset: 20}\n",
			"nemesis.steps[0].until.share_start_offset: needs workload.shares"},
		{"until negative share start offset", "name: s\n" + shares + "nemesis:\n  steps:\n    - until: {share_start_offset: -1}\n",
			"nemesis.steps[0].until.share_start_offset: must not be negative"},
		{"member fault on a share member", "name: s\n" + shares + "nemesis:\n  steps:\n    - fault: member-kill\n      member: share-1\n", ""},
		{"member fault naming no share member", "name: s\n" + shares + "nemesis:\n  steps:\n    - fault: member-kill\n      member: share-7\n",
			`nemesis.steps[0].member: "share-7": the group's members are share-0, share-1 (or random)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "s.yaml")
			if err := os.WriteFile(f, []byte(c.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(f, nil)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && err == nil:
				t.Fatalf("loaded, want %q", c.want)
			case c.want != "" && !strings.Contains(err.Error(), c.want):
				t.Fatalf("error %v\nwant it to say %q", err, c.want)
			}
		})
	}
}
