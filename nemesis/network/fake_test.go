package network

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
)

// fakeCluster is an in-memory cluster: containers that run, pause and
// stop, and an iptables that keeps the rules the nemesis scripts add and
// delete, so the runner and the heal can be tested without Docker. Like
// Docker, starting a stopped container gives it a fresh network namespace
// (no rules).
type fakeCluster struct {
	mu    sync.Mutex
	nodes map[int32]cluster.Node
	state map[int32]cluster.NodeState
	rules map[int32][]string
	calls []string
	// logDirs are the nodes' log dirs on the local disk, for the
	// power-loss fault; tests set them.
	logDirs map[int32]string
	onCall  func(call string) // may panic, for the runner's panic test
	// net is the simulated tc state, probes and host dials (netfake_test.go).
	net fakeNet
	// clientCtrs are client containers' addresses (ClientAddrs gives them
	// after the host's); tests set them.
	clientCtrs []netip.Addr
}

var _ cluster.Nodes = (*fakeCluster)(nil)

func newFakeCluster() *fakeCluster {
	f := &fakeCluster{nodes: map[int32]cluster.Node{}, state: map[int32]cluster.NodeState{},
		rules: map[int32][]string{}}
	add := func(n cluster.Node) {
		f.nodes[n.ID] = n
		f.state[n.ID] = cluster.NodeState{Running: true}
	}
	add(cluster.Node{ID: 1000, Role: cluster.RoleController, IP: "10.9.0.10"})
	for i, rack := range []string{"a", "a", "b"} {
		add(cluster.Node{ID: int32(i), Role: cluster.RoleBroker, IP: fmt.Sprintf("10.9.0.%d", 20+i), Rack: rack})
	}
	return f
}

func (f *fakeCluster) list(role cluster.Role) []cluster.Node {
	var out []cluster.Node
	for _, n := range f.nodes {
		if n.Role == role {
			out = append(out, n)
		}
	}
	slices.SortFunc(out, func(a, b cluster.Node) int { return int(a.ID - b.ID) })
	return out
}

func (f *fakeCluster) Brokers() []cluster.Node     { return f.list(cluster.RoleBroker) }
func (f *fakeCluster) Controllers() []cluster.Node { return f.list(cluster.RoleController) }
func (f *fakeCluster) Node(id int32) (cluster.Node, bool) {
	n, ok := f.nodes[id]
	return n, ok
}
func (f *fakeCluster) Bootstrap() []string {
	var out []string
	for _, n := range f.Brokers() {
		out = append(out, n.Addr())
	}
	return out
}

// Files serves each node's log dir from a folder of the test's own
// (SetLogDir); a node without one has no log dir to cut.
func (f *fakeCluster) Files(id int32) (cluster.LogFiles, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if d, ok := f.logDirs[id]; ok {
		return cluster.LocalDir(d), nil
	}
	return nil, fmt.Errorf("node %d: no log dir in the fake cluster", id)
}

// op records a call and changes a node's state; check refuses what Docker
// refuses.
func (f *fakeCluster) op(name string, id int32, check func(cluster.NodeState) error, apply func(*cluster.NodeState)) error {
	call := fmt.Sprintf("%s %d", name, id)
	if f.onCall != nil {
		f.onCall(call)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	st, ok := f.state[id]
	if !ok {
		return fmt.Errorf("node %d: no such node", id)
	}
	if err := check(st); err != nil {
		return fmt.Errorf("node %d: %s: %w", id, name, err)
	}
	f.calls = append(f.calls, call)
	apply(&st)
	f.state[id] = st
	return nil
}

func mustRun(st cluster.NodeState) error {
	if !st.Running {
		return fmt.Errorf("not running")
	}
	return nil
}

func (f *fakeCluster) Kill(_ context.Context, id int32) error {
	return f.op("kill", id, mustRun, func(s *cluster.NodeState) { *s = cluster.NodeState{ExitCode: 137} })
}

// Signal delivers KILL like Kill and TERM like Stop; the nemesis sends
// no others.
func (f *fakeCluster) Signal(ctx context.Context, id int32, sig string) error {
	switch sig {
	case "KILL":
		return f.Kill(ctx, id)
	case "TERM":
		return f.Stop(ctx, id, 0)
	}
	return fmt.Errorf("fake cluster: signal %s not simulated", sig)
}

func (f *fakeCluster) Stop(_ context.Context, id int32, _ time.Duration) error {
	return f.op("stop", id, func(cluster.NodeState) error { return nil }, func(s *cluster.NodeState) { *s = cluster.NodeState{} })
}

func (f *fakeCluster) Start(_ context.Context, id int32) error {
	return f.op("start", id, func(cluster.NodeState) error { return nil }, func(s *cluster.NodeState) {
		if !s.Running {
			f.rules[id] = nil // a fresh network namespace
			delete(f.net.tc, id)
		}
		*s = cluster.NodeState{Running: true}
	})
}

func (f *fakeCluster) Pause(_ context.Context, id int32) error {
	return f.op("pause", id, mustRun, func(s *cluster.NodeState) { s.Paused = true })
}

func (f *fakeCluster) Resume(_ context.Context, id int32) error {
	return f.op("unpause", id, func(st cluster.NodeState) error {
		if !st.Paused {
			return fmt.Errorf("not paused")
		}
		return nil
	}, func(s *cluster.NodeState) { s.Paused = false })
}

func (f *fakeCluster) State(_ context.Context, id int32) (cluster.NodeState, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	st, ok := f.state[id]
	if !ok {
		return st, fmt.Errorf("node %d: no such node", id)
	}
	return st, nil
}

// Exec understands the commands the nemesis runs: `iptables -w 5 -S`,
// `sh -c` scripts of iptables -I/-D lines, and (netExec) tc, ip route and
// the proofs' probes.
func (f *fakeCluster) Exec(_ context.Context, id int32, cmd ...string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := f.state[id]
	if !st.Running || st.Paused {
		return "", fmt.Errorf("node %d: exec: container not running or paused", id)
	}
	if out, err, ok := f.netExec(id, cmd); ok {
		return out, err
	}
	if slices.Equal(cmd, []string{"iptables", "-w", "5", "-S"}) {
		out := "-P INPUT ACCEPT\n-P FORWARD ACCEPT\n-P OUTPUT ACCEPT\n-A INPUT -s 10.9.0.99/32 -j DROP\n"
		for _, r := range f.rules[id] {
			out += r + "\n"
		}
		return out, nil
	}
	if slices.Equal(cmd, []string{"iptables", "-w", "5", "-S", "-v"}) {
		return f.rulesWithCounters(id), nil
	}
	if len(cmd) != 3 || cmd[0] != "sh" || cmd[1] != "-c" {
		return "", fmt.Errorf("fake exec: unexpected %q", cmd)
	}
	for _, line := range strings.Split(cmd[2], "\n") {
		fs := strings.Fields(line)
		if len(fs) == 0 || line == "set -e" {
			continue
		}
		if len(fs) < 5 || fs[0] != "iptables" {
			return "", fmt.Errorf("fake exec: unexpected line %q", line)
		}
		spec := fs[4:]
		for i, a := range spec { // iptables -S writes an address as a /32
			if (a == "-s" || a == "-d") && i+1 < len(spec) && !strings.Contains(spec[i+1], "/") {
				spec[i+1] += "/32"
			}
		}
		switch fs[3] {
		case "-I":
			f.rules[id] = append(f.rules[id], "-A "+strings.Join(spec, " "))
		case "-D":
			r := "-A " + strings.Join(spec, " ")
			i := slices.Index(f.rules[id], r)
			if i < 0 {
				return "", fmt.Errorf("iptables: Bad rule (does a matching rule exist in that chain?): %s", r)
			}
			f.rules[id] = slices.Delete(f.rules[id], i, i+1)
		default:
			return "", fmt.Errorf("fake exec: unexpected line %q", line)
		}
	}
	return "", nil
}

func (f *fakeCluster) ruleCount(id int32) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.rules[id])
}

// fakeAdmin serves one partition's state and the live brokers (the fake
// cluster's running, unpaused brokers). With simulate on, it derives the
// partition's leader and ISR from the cluster as Kafka would, only at once:
// a leader that is not live leaves the partition offline until it returns
// (no unclean election), and the ISR is the leader plus the live replicas
// that have no kchaos rule cutting them from it.
type fakeAdmin struct {
	mu         sync.Mutex
	c          *fakeCluster
	parts      []admin.PartitionState
	simulate   bool
	last       int32 // the leader before the partition went offline
	hw         int64
	err        error // returned by Describe when set
	configs    map[string]*string
	configOf   string // the topic of the last SetTopicConfig
	elections  []string
	electVia   []int32 // the brokers ElectLeadersVia named
	controller int32
	electErrs  []error // returned, one per call, before elections succeed
	liveCalls  int
	// txnState is __transaction_state's partitions (Describe of that topic).
	txnState []admin.PartitionState
	// groupState is __consumer_offsets' partitions, for the group roles.
	groupState []admin.PartitionState
	reorders   []string // ReorderReplicas calls
	// lso and open are partition 0's last stable offset and the
	// transactions its leader holds open (abort-hanging); aborts are the
	// AbortTxn calls, each of which ends its transaction (lso = hw) unless
	// abortDeaf.
	lso       *int64
	open      []histories.OpenTxn
	aborts    []string
	abortDeaf bool
	// quorum, when set, is what Quorum answers.
	quorum *histories.QuorumValue
}

func newFakeAdmin(c *fakeCluster) *fakeAdmin {
	return &fakeAdmin{c: c, controller: 1000, configs: map[string]*string{}, last: -1,
		parts: []admin.PartitionState{{Topic: "t", Partition: 0, Leader: 0,
			Replicas: []int32{0, 1, 2}, ISR: []int32{0, 1, 2}}}}
}

func (a *fakeAdmin) derive(ctx context.Context) {
	live, _ := a.LiveBrokers(ctx)
	p := &a.parts[0]
	if p.Leader >= 0 && !slices.Contains(live, p.Leader) {
		a.last, p.Leader, p.ISR = p.Leader, -1, []int32{p.Leader}
	}
	if p.Leader < 0 && a.last >= 0 && slices.Contains(live, a.last) {
		p.Leader = a.last
	}
	if p.Leader < 0 {
		return
	}
	isr := []int32{p.Leader}
	for _, r := range p.Replicas {
		if r != p.Leader && slices.Contains(live, r) && !a.c.cutOff(p.Leader, r) {
			isr = append(isr, r)
		}
	}
	slices.Sort(isr)
	p.ISR = isr
}

// cutOff reports whether a kchaos rule on node a drops node b.
func (f *fakeCluster) cutOff(a, b int32) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.rules[a] {
		if strings.Contains(r, " "+f.nodes[b].IP+"/32 ") && !isLossRule(r) {
			return true
		}
	}
	return false
}

func (a *fakeAdmin) set(p admin.PartitionState) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.parts[0] = p
}

func (a *fakeAdmin) Describe(ctx context.Context, topic string) ([]admin.PartitionState, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.err != nil {
		return nil, a.err
	}
	if topic == admin.TransactionStateTopic {
		return slices.Clone(a.txnState), nil
	}
	if topic == admin.ConsumerOffsetsTopic {
		return slices.Clone(a.groupState), nil
	}
	if a.simulate {
		a.derive(ctx)
	}
	return slices.Clone(a.parts), nil
}

func (a *fakeAdmin) LastStableOffset(context.Context, int32, string, int32) (int64, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.lso == nil {
		return a.hw, nil
	}
	return *a.lso, nil
}

func (a *fakeAdmin) OpenTxns(context.Context, string, int32) ([]histories.OpenTxn, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.open), nil
}

func (a *fakeAdmin) AbortTxn(_ context.Context, topic string, p int32, t histories.OpenTxn) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.aborts = append(a.aborts, fmt.Sprintf("%s-%d pid %d epoch %d coord %d", topic, p, t.ProducerID, t.ProducerEpoch, t.CoordinatorEpoch))
	if !a.abortDeaf {
		hw := a.hw
		a.lso = &hw
		a.open = nil
	}
	return nil
}

func (a *fakeAdmin) LiveBrokers(ctx context.Context) ([]int32, error) {
	a.c.mu.Lock()
	a.liveCalls++ // under the cluster's lock: derive calls this holding a.mu
	a.c.mu.Unlock()
	var out []int32
	for _, b := range a.c.Brokers() {
		if st, _ := a.c.State(ctx, b.ID); st.Running && !st.Paused {
			out = append(out, b.ID)
		}
	}
	return out, nil
}

func (a *fakeAdmin) HighWatermark(context.Context, int32, string, int32) (int64, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.hw, nil
}

func (a *fakeAdmin) ActiveController(context.Context) (int32, error) { return a.controller, nil }

// Quorum is q when set, else the fake cluster's controllers as voters led
// by a.controller and its brokers as observers.
func (a *fakeAdmin) Quorum(context.Context) (histories.QuorumValue, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.quorum != nil {
		return *a.quorum, nil
	}
	q := histories.QuorumValue{LeaderID: a.controller, LeaderEpoch: 1}
	for _, n := range a.c.Controllers() {
		q.Voters = append(q.Voters, histories.QuorumReplica{ID: n.ID})
	}
	for _, n := range a.c.Brokers() {
		q.Observers = append(q.Observers, histories.QuorumReplica{ID: n.ID})
	}
	return q, nil
}

func (a *fakeAdmin) SetTopicConfig(_ context.Context, topic, key string, value *string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.configs[key] = value
	a.configOf = topic
	return nil
}

// ElectLeadersVia is ElectLeaders; via must name a running broker.
func (a *fakeAdmin) ElectLeadersVia(ctx context.Context, via int32, topic string, partitions []int32, unclean bool) error {
	a.mu.Lock()
	a.electVia = append(a.electVia, via)
	a.mu.Unlock()
	return a.ElectLeaders(ctx, topic, partitions, unclean)
}

// ReorderReplicas reorders a partition's replicas (the workload topic's
// or __transaction_state's); the set must stay the same.
func (a *fakeAdmin) ReorderReplicas(_ context.Context, topic string, partition int32, replicas []int32) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	parts := a.parts
	switch topic {
	case admin.TransactionStateTopic:
		parts = a.txnState
	case admin.ConsumerOffsetsTopic:
		parts = a.groupState
	}
	for i, p := range parts {
		if p.Partition == partition {
			if !slices.Equal(slices.Sorted(slices.Values(p.Replicas)), slices.Sorted(slices.Values(replicas))) {
				return fmt.Errorf("fake: %s-%d: %v is not a reorder of %v", topic, partition, replicas, p.Replicas)
			}
			parts[i].Replicas = slices.Clone(replicas)
			a.reorders = append(a.reorders, fmt.Sprintf("%s-%d %v", topic, partition, replicas))
			return nil
		}
	}
	return fmt.Errorf("fake: %s has no partition %d", topic, partition)
}

// ElectLeaders elects the first live replica (unclean) or the preferred one
// (on __transaction_state: the first replica, of the partitions named).
func (a *fakeAdmin) ElectLeaders(ctx context.Context, topic string, partitions []int32, unclean bool) error {
	live, _ := a.LiveBrokers(ctx)
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.electErrs) > 0 {
		err := a.electErrs[0]
		a.electErrs = a.electErrs[1:]
		return err
	}
	a.elections = append(a.elections, fmt.Sprintf("%s %v unclean=%t", topic, partitions, unclean))
	if topic == admin.TransactionStateTopic || topic == admin.ConsumerOffsetsTopic {
		coord := a.txnState
		if topic == admin.ConsumerOffsetsTopic {
			coord = a.groupState
		}
		for i, p := range coord {
			if slices.Contains(partitions, p.Partition) && slices.Contains(p.ISR, p.Replicas[0]) {
				coord[i].Leader = p.Replicas[0]
			}
		}
		return nil
	}
	for i, p := range a.parts {
		for _, r := range p.Replicas {
			if slices.Contains(live, r) && (unclean || slices.Contains(p.ISR, r)) {
				a.parts[i].Leader = r
				a.parts[i].ISR = []int32{r}
				a.last = r
				break
			}
		}
	}
	return nil
}

// readers are the brokers the seam's state reads would ask, in its order
// (nemesis/state.go: readers, less the last answerer's preference): every
// running, unpaused broker no kind's AvoidReads skips, those it puts last
// after the others. The seam's own tests check that its reads follow
// these (TestReadersAvoid).
func readers(ctx context.Context, env *nemesis.Env) []int32 {
	skip, last := map[int32]bool{}, map[int32]bool{}
	for _, k := range nemesis.Kinds() {
		if k.AvoidReads != nil {
			s, l := k.AvoidReads(env)
			maps.Copy(skip, s)
			maps.Copy(last, l)
		}
	}
	var good, stale []int32
	for _, id := range env.BrokerIDs() {
		switch {
		case skip[id] || !env.RunsUnpaused(ctx, id):
		case last[id]:
			stale = append(stale, id)
		default:
			good = append(good, id)
		}
	}
	return append(good, stale...)
}

// brokers are the fake cluster's brokers, as the seam's plan tests name
// them.
var brokers = []int32{0, 1, 2}

// wantErr fails t unless err is nil when want is empty, or an error
// containing want otherwise (the seam's want_test.go).
func wantErr(t *testing.T, err error, want string) {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Fatalf("want valid, got %v", err)
		}
		return
	}
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want %q", err, want)
	}
}

// proofOf returns the details.proof of the last completion of f (the
// seam's proof_test.go).
func proofOf(t *testing.T, evs []histories.Event, f string) (histories.Event, map[string]any) {
	t.Helper()
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].F == f && evs[i].Type != histories.Invoke {
			var v histories.NemesisValue
			if err := evs[i].Decode(&v); err != nil {
				t.Fatal(err)
			}
			p, _ := v.Details["proof"].(map[string]any)
			return evs[i], p
		}
	}
	t.Fatalf("no completion of %s", f)
	return histories.Event{}, nil
}

// recorded runs fn with an env on the fake cluster that records to a
// history, and returns the nemesis ops it recorded.
func recorded(t *testing.T, fn func(env *nemesis.Env, c *fakeCluster, a *fakeAdmin)) []histories.Event {
	t.Helper()
	env, c, a := newFakeEnv()
	a.simulate = true
	var buf bytes.Buffer
	env.Recorder = histories.NewRecorder(&buf)
	fn(env, c, a)
	if err := env.Recorder.Close(); err != nil {
		t.Fatal(err)
	}
	evs, _, err := histories.ReadAll(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(evs); i += 2 {
		if evs[i].Process != histories.NemesisProcess || evs[i].Type != histories.Invoke ||
			i+1 >= len(evs) || evs[i+1].Type == histories.Invoke || evs[i+1].F != evs[i].F {
			t.Fatalf("event %d: want nemesis invoke then its completion: %+v", i, evs[i:])
		}
	}
	return evs
}

// summary renders the completions as "f:type nodes" lines.
func summary(evs []histories.Event) string {
	return strings.Join(completions(evs, func(e histories.Event, v histories.NemesisValue) string {
		s := fmt.Sprintf("%s:%s", e.F, e.Type)
		if len(v.Nodes) > 0 {
			s += fmt.Sprint(v.Nodes)
		}
		return s
	}), " ")
}

// completions renders each completion in evs (invokes are left out) with
// its nemesis value.
func completions(evs []histories.Event, line func(e histories.Event, v histories.NemesisValue) string) []string {
	var out []string
	for _, e := range evs {
		if e.Type == histories.Invoke {
			continue
		}
		var v histories.NemesisValue
		_ = e.Decode(&v)
		out = append(out, line(e, v))
	}
	return out
}

// processStep is the seam's process fault of st (resume, start: the
// seam's processFault{op, target}), which the room's tests use to bring
// nodes back.
func processStep(t *testing.T, st nemesis.Step) nemesis.Fault {
	t.Helper()
	f, err := nemesis.NewFault(st)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// checkParse wants yaml to parse, or to fail with every error of want
// (the seam's schedule_test.go).
func checkParse(t *testing.T, yaml string, want []string) {
	t.Helper()
	_, err := nemesis.ParseSchedule([]byte(yaml))
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
