package nemesis

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/kchaos/kchaos/histories"
)

// TestBootstrapValidation: a bootstrap schedule takes only what exists
// while the cluster starts: node faults aimed by id or at the quorum's
// roles, and quorum_leader.
func TestBootstrapValidation(t *testing.T) {
	for _, c := range []struct {
		name, yaml, want string
	}{
		{"the first leader killed", `
bootstrap:
  - until: {quorum_leader: true}
    timeout: 30s
  - fault: kill
    target: {role: active-controller}
  - wait: 2s
  - heal: kill
steps:
  - wait: 1s`, ""},
		{"controllers' links delayed", `
bootstrap:
  - fault: netem
    shape: isolate
    target: {role: nodes, nodes: [1000, 1001, 1002]}
    netem: {delay: 300ms}
  - fault: pause
    target: {role: controller-followers}
  - heal: all`, ""},
		{"a partition's state cannot be waited for", `
bootstrap:
  - until: {partition: 0, offline: true}`, "nemesis.bootstrap[0].until: while the cluster starts only quorum_leader"},
		{"quorum_leader beside live", `
bootstrap:
  - until: {quorum_leader: true, live: [0]}`, "nemesis.bootstrap[0].until: while the cluster starts only quorum_leader"},
		{"a config change needs the admin API", `
bootstrap:
  - fault: set-config
    config: {unclean.leader.election.enable: "true"}`, "nemesis.bootstrap[0].fault: set-config cannot strike while the cluster starts"},
		{"no topic, no partition leader", `
bootstrap:
  - fault: kill
    target: {role: leader, partition: 0}`, `nemesis.bootstrap[0].target.role: "leader" while the cluster starts`},
		{"a bootstrap step is a step", `
bootstrap:
  - wait: 1s
    heal: all`, "nemesis.bootstrap[0]: want exactly one of wait, until, fault, heal"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseSchedule([]byte(c.yaml))
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
	for _, k := range []string{histories.FKill, histories.FPause, histories.FStart} {
		if !strings.Contains(strings.Join(bootstrapKinds(), ","), k) {
			t.Errorf("BootstrapKinds() %v lacks %s", bootstrapKinds(), k)
		}
	}
}

// quorumAfter is a QuorumSource whose leader is elected on the n-th ask.
type quorumAfter struct {
	mu     sync.Mutex
	asks   int
	n      int
	leader int32
}

func (q *quorumAfter) Quorum(context.Context) (histories.QuorumValue, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.asks++
	v := histories.QuorumValue{LeaderID: -1, Voters: []histories.QuorumReplica{{ID: 1000}, {ID: 1001}, {ID: 1002}}}
	if q.asks >= q.n {
		v.LeaderID, v.LeaderEpoch = q.leader, 1
	}
	return v, nil
}

// TestRunBootstrap plays a bootstrap schedule on an env without an admin
// client (nothing answers but the controllers): it waits for the first
// quorum leader, kills it, heals, and records it all as a bootstrap
// schedule, without waiting for brokers that do not answer yet.
func TestRunBootstrap(t *testing.T) {
	s, err := ParseSchedule([]byte(`
bootstrap:
  - until: {quorum_leader: true}
    timeout: 10s
  - fault: kill
    target: {role: active-controller}
  - heal: kill
`))
	if err != nil {
		t.Fatal(err)
	}
	c := newFakeCluster()
	q := &quorumAfter{n: 3, leader: c.Controllers()[0].ID}
	var buf bytes.Buffer
	env := &Env{Cluster: c, Quorum: q, Recorder: histories.NewRecorder(&buf), Seed: 7}
	r := &Runner{Env: env}
	if err := r.RunBootstrap(context.Background(), s.Bootstrap); err != nil {
		t.Fatalf("RunBootstrap: %v", err)
	}
	if err := env.Recorder.Close(); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	evs, _, err := histories.ReadAll(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	for _, e := range evs {
		if e.Type == histories.Invoke {
			continue
		}
		ops = append(ops, e.F+":"+string(e.Type))
	}
	want := "schedule:ok until:ok kill:ok heal:ok heal:ok"
	if strings.Join(ops, " ") != want {
		t.Errorf("ops %q, want %q", strings.Join(ops, " "), want)
	}
	if !strings.Contains(text, `"mode":"bootstrap"`) {
		t.Errorf("the schedule op does not say bootstrap:\n%s", text)
	}
	if !strings.Contains(text, fmt.Sprintf(`"nodes":[%d]`, q.leader)) {
		t.Errorf("the kill did not strike the first leader %d:\n%s", q.leader, text)
	}
	if q.asks < 3 {
		t.Errorf("the until asked the quorum %d times; the leader came on the third", q.asks)
	}
	healthy(t, env, c)
}
