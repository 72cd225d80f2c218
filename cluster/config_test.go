package cluster

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestParseRacks(t *testing.T) {
	tests := []struct {
		in      string
		want    map[string][]int32
		wantErr string
	}{
		{"", map[string][]int32{}, ""},
		{"a=0,1;b=2", map[string][]int32{"a": {0, 1}, "b": {2}}, ""},
		{"a:0,1 b:2", map[string][]int32{"a": {0, 1}, "b": {2}}, ""},
		{"a=0;b=1;c=2", map[string][]int32{"a": {0}, "b": {1}, "c": {2}}, ""},
		{"a=0;a=1", nil, `rack "a" given twice`},
		{"a=x", nil, `broker id "x" is not a number`},
		{"=0", nil, "want rack=id"},
		{"a=", nil, `rack "a" has no brokers`},
		{"nobrokers", nil, "want rack=id"},
	}
	for _, tt := range tests {
		got, err := ParseRacks(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseRacks(%q) error %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseRacks(%q): %v", tt.in, err)
			continue
		}
		if len(got) != len(tt.want) {
			t.Errorf("ParseRacks(%q) = %v, want %v", tt.in, got, tt.want)
		}
		for k, v := range tt.want {
			if !slices.Equal(got[k], v) {
				t.Errorf("ParseRacks(%q)[%s] = %v, want %v", tt.in, k, got[k], v)
			}
		}
		if back, _ := ParseRacks(got.String()); back.String() != got.String() {
			t.Errorf("round trip of %q: %q", tt.in, back.String())
		}
	}
}

func TestRacksValidate(t *testing.T) {
	tests := []struct {
		racks   Racks
		n       int
		wantErr string
	}{
		{Racks{}, 3, ""},
		{Racks{"a": {0, 1}, "b": {2}}, 3, ""},
		{Racks{"a": {0, 1}}, 3, "broker 2 is in no rack"},
		{Racks{"a": {0, 1}, "b": {1, 2}}, 3, "broker 1 is in racks"},
		{Racks{"a": {0, 1}, "b": {5}}, 3, "broker 5 does not exist"},
	}
	for _, tt := range tests {
		err := tt.racks.Validate(tt.n)
		if (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("%v.Validate(%d) = %v, want %q", tt.racks, tt.n, err, tt.wantErr)
		}
	}
	if got := (Racks{"a": {0, 1}, "b": {2}}).RackOf(); got[0] != "a" || got[1] != "a" || got[2] != "b" {
		t.Errorf("RackOf = %v", got)
	}
}

func props(s string) map[string]string {
	m := map[string]string{}
	for _, l := range strings.Split(s, "\n") {
		if k, v, ok := strings.Cut(l, "="); ok && !strings.HasPrefix(l, "#") {
			m[k] = v
		}
	}
	return m
}

func TestRenderBroker(t *testing.T) {
	n := Node{ID: 2, Role: RoleBroker, IP: "10.231.5.22", Rack: "b"}
	user := map[string]string{
		"num.io.threads":          "8",
		"listeners":               "PLAINTEXT://evil:1", // kchaos owns it
		"replica.lag.time.max.ms": "10000",
		"log.dirs":                "/elsewhere",
	}
	p := props(Render(n, StaticVoters("1000@10.231.5.10:9093"), 3, user, map[string]string{"num.io.threads": "4"}))
	want := map[string]string{
		"node.id":                          "2",
		"process.roles":                    "broker",
		"advertised.listeners":             "PLAINTEXT://10.231.5.22:9092",
		"listeners":                        "PLAINTEXT://0.0.0.0:9092",
		"controller.quorum.voters":         "1000@10.231.5.10:9093",
		"controller.listener.names":        "CONTROLLER",
		"log.dirs":                         DataDir,
		"broker.rack":                      "b",
		"num.io.threads":                   "4",     // later override wins
		"replica.lag.time.max.ms":          "10000", // Render applies overrides; the scenario layer drops user timeouts
		"auto.leader.rebalance.enable":     "false",
		"offsets.topic.replication.factor": "3",
		"broker.session.timeout.ms":        "3000",
	}
	for k, v := range want {
		if p[k] != v {
			t.Errorf("%s = %q, want %q", k, p[k], v)
		}
	}
	if lag, _ := p["replica.fetch.wait.max.ms"]; lag == "" {
		t.Error("replica.fetch.wait.max.ms missing")
	}
}

func TestRenderControllerAndSmallCluster(t *testing.T) {
	c := props(Render(Node{ID: 1000, Role: RoleController, IP: "10.0.0.10"}, StaticVoters("1000@10.0.0.10:9093"), 1))
	if c["process.roles"] != "controller" || c["listeners"] != "CONTROLLER://0.0.0.0:9093" {
		t.Errorf("controller props: %v", c)
	}
	for _, k := range []string{"advertised.listeners", "broker.rack", "inter.broker.listener.name"} {
		if _, ok := c[k]; ok {
			t.Errorf("controller has broker key %s", k)
		}
	}
	if c["unclean.leader.election.interval.ms"] == "" {
		t.Error("controller lacks a fast unclean.leader.election.interval.ms: an unclean election would wait 5 minutes")
	}
	b := props(Render(Node{ID: 0, Role: RoleBroker, IP: "10.0.0.20"}, StaticVoters("x"), 1))
	if b["offsets.topic.replication.factor"] != "1" {
		t.Errorf("1-broker cluster: offsets.topic.replication.factor %q, want 1", b["offsets.topic.replication.factor"])
	}
	if _, ok := b["broker.rack"]; ok {
		t.Error("broker without a rack got broker.rack")
	}
	voters := Voters([]Node{{ID: 1000, IP: "a"}, {ID: 1001, IP: "b"}})
	if voters != "1000@a:9093,1001@b:9093" {
		t.Errorf("Voters = %q", voters)
	}
}

func TestFormatArgsAndVersions(t *testing.T) {
	on, off := true, false
	tests := []struct {
		version string
		elr     *bool
		want    []string
	}{
		{"4.1.2", &on, []string{"--feature", "eligible.leader.replicas.version=1"}},
		{"4.1.2", &off, []string{"--feature", "eligible.leader.replicas.version=0"}},
		{"4.0.2", nil, nil},
		{"3.9.1", &off, nil},
	}
	for _, tt := range tests {
		v, err := ParseVersion(tt.version)
		if err != nil {
			t.Fatal(err)
		}
		if got := FormatArgs(v, tt.elr, nil, nil); !slices.Equal(got, tt.want) {
			t.Errorf("FormatArgs(%s, %v) = %v, want %v", tt.version, tt.elr, got, tt.want)
		}
	}
	tv1, tv9 := int16(1), int16(9)
	v44, _ := ParseVersion("4.4.0")
	if got, want := FormatArgs(v44, &on, &tv1, nil), []string{"--feature", "eligible.leader.replicas.version=1", "--feature", "transaction.version=1"}; !slices.Equal(got, want) {
		t.Errorf("FormatArgs with both features = %v, want %v", got, want)
	}
	for _, tc := range []struct {
		version string
		tv      *int16
		err     string
	}{{"3.9.2", &tv1, "needs Kafka 4.0"}, {"4.4.0", &tv9, "want 0..2"}, {"4.4.0", &tv1, ""}} {
		c := Config{KafkaVersion: tc.version, TransactionVersion: tc.tv}
		c.Defaults()
		if err := c.Validate(); (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("transaction_version %d on %s: %v, want %q", *tc.tv, tc.version, err, tc.err)
		}
	}
	cfg := Config{KafkaVersion: "3.9.1", ELR: &on}
	cfg.Defaults()
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "needs Kafka 4.0") {
		t.Errorf("ELR on 3.9: %v, want a clear error", err)
	}
	for _, bad := range []string{"4", "x.y.z", "4.1.2.3"} {
		if _, err := ParseVersion(bad); err == nil {
			t.Errorf("ParseVersion(%q) accepted", bad)
		}
	}
	if v, _ := ParseVersion("4.1.0"); !v.ELRDefault() || !v.HasELR() {
		t.Error("4.1: ELR default on")
	}
	if v, _ := ParseVersion("4.0.2"); v.ELRDefault() || !v.HasELR() {
		t.Error("4.0: ELR present, default off")
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		cfg     Config
		wantErr string
	}{
		{Config{Brokers: 3, Controllers: 2}, "controllers: 2"},
		{Config{Brokers: 12}, "brokers: 12"},
		{Config{KafkaVersion: "3.8.0"}, "supports 3.9 and later"},
		{Config{PerBroker: map[int32]map[string]string{7: {}}}, "broker 7 does not exist"},
		{Config{Racks: Racks{"a": {0}}}, "broker 1 is in no rack"},
	}
	for _, tt := range tests {
		tt.cfg.Defaults()
		err := tt.cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%+v: %v, want %q", tt.cfg, err, tt.wantErr)
		}
	}
	var ok Config
	ok.Defaults()
	if err := ok.Validate(); err != nil {
		t.Errorf("defaults invalid: %v", err)
	}
	if ok.Brokers != 3 || ok.Controllers != 1 || ok.Image != "kchaos/kafka:"+DefaultKafkaVersion {
		t.Errorf("defaults: %+v", ok)
	}
}

func TestOverriddenUserKeys(t *testing.T) {
	got := OverriddenUserKeys(map[string]string{"listeners": "x", "node.id": "1", "num.io.threads": "8",
		"broker.session.timeout.ms": "9000"})
	want := []string{"broker.session.timeout.ms", "listeners", "node.id"}
	if !slices.Equal(got, want) {
		t.Errorf("OverriddenUserKeys = %v, want %v", got, want)
	}
}

// TestRenderRoutedBroker: a broker whose inter-broker traffic is routed
// opens REPLICATION beside PLAINTEXT, advertises it at the route's
// address and replicates over it; clients keep PLAINTEXT.
func TestRenderRoutedBroker(t *testing.T) {
	n := Node{ID: 1, Role: RoleBroker, IP: "10.231.5.21", InterBrokerAddr: "10.231.5.1:40001"}
	p := props(Render(n, StaticVoters("1000@10.231.5.10:9093"), 3, map[string]string{"inter.broker.listener.name": "PLAINTEXT"}))
	want := map[string]string{
		"listeners":                      "PLAINTEXT://0.0.0.0:9092,REPLICATION://0.0.0.0:9095",
		"advertised.listeners":           "PLAINTEXT://10.231.5.21:9092,REPLICATION://10.231.5.1:40001",
		"inter.broker.listener.name":     "REPLICATION",
		"listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,REPLICATION:PLAINTEXT",
	}
	for k, v := range want {
		if p[k] != v {
			t.Errorf("%s = %q, want %q", k, p[k], v)
		}
	}
}

// TestRouteInterBroker: every broker gets the address the route gives,
// and a route that leaves one out or gives a bad address is an error.
func TestRouteInterBroker(t *testing.T) {
	nodes := func() []*Node {
		return []*Node{{ID: 0, Role: RoleBroker, IP: "10.0.0.20"}, {ID: 1, Role: RoleBroker, IP: "10.0.0.21"}}
	}
	var asked map[int32]string
	ok := func(host string, up map[int32]string) (map[int32]string, error) {
		asked = up
		out := map[int32]string{}
		for id := range up {
			out[id] = fmt.Sprintf("%s:%d", host, 40000+id)
		}
		return out, nil
	}
	ns := nodes()
	ctrl := []*Node{{ID: 1000, Role: RoleController, IP: "10.0.0.10"}}
	if err := RouteInterBroker(ok, "10.0.0.1", ns, ctrl); err != nil {
		t.Fatal(err)
	}
	if asked[1] != "10.0.0.21:9095" || ns[0].InterBrokerAddr != "10.0.0.1:40000" || ns[1].InterBrokerAddr != "10.0.0.1:40001" {
		t.Fatalf("asked %v, got %+v %+v", asked, *ns[0], *ns[1])
	}
	if asked[1000] != "10.0.0.10:9093" || ctrl[0].InterBrokerAddr != "10.0.0.1:41000" {
		t.Fatalf("controller: asked %v, got %+v", asked, *ctrl[0])
	}
	// The brokers reach the static quorum through the routes, the
	// controllers one another at their own addresses.
	l := NewKRaftLayout(Config{KafkaVersion: "4.4.0", Controllers: 1}, []Node{*ctrl[0]})
	if got := l.Addrs(*ns[0]).Voters; got != "1000@10.0.0.1:41000" {
		t.Errorf("a broker's voters %q, want the controller's route", got)
	}
	if got := l.Addrs(*ctrl[0]).Voters; got != "1000@10.0.0.10:9093" {
		t.Errorf("a controller's voters %q, want its own address", got)
	}
	for name, via := range map[string]InterBrokerVia{
		"one left out": func(string, map[int32]string) (map[int32]string, error) { return map[int32]string{0: "h:1"}, nil },
		"no port":      func(string, map[int32]string) (map[int32]string, error) { return map[int32]string{0: "h", 1: "h"}, nil },
		"an error":     func(string, map[int32]string) (map[int32]string, error) { return nil, fmt.Errorf("no") },
	} {
		if err := RouteInterBroker(via, "10.0.0.1", nodes(), nil); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
