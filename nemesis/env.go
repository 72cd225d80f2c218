// Package nemesis injects faults into a kchaos run's Kafka cluster and
// undoes them: network partitions (iptables inside the containers),
// degraded links (netem: tc qdiscs, and iptables for loss), clients cut
// off from brokers (those three in nemesis/network), crashed producers
// and group members (nemesis/clients, through the workload: Clients and
// Members), paused and killed brokers and clean restarts (nemesis/process),
// power loss (lose-unflushed), live topic config changes, manual
// elections, upgrades and voter changes (those in nemesis/quorum). A
// fault that can proves that
// it took effect before the schedule goes on (proof.go). Targets are chosen by role
// when a fault fires; schedules are scripted or seeded-random; a final heal
// always runs. Every injection and heal is recorded as a nemesis op
// (process -1) in the run's history.
//
// The design follows etcd's tests/robustness failpoints: a fault is a small
// value with a Name and an Inject, driven by a runner that records when it
// started and ended, and every fault kind is registered (registry.go) with
// what it needs of the backend, so that a scenario asking a backend for a
// fault it cannot apply (cluster.Caps) is refused at validation.
//
// This package is the seam: the schedule format, targets, conditions,
// proofs, the runner and the Env. Fault kinds live in rooms, packages of
// their own grouped by what they act on (nemesis/disk: the disk faults
// and the power loss, lose-unflushed; nemesis/network: the link faults,
// partition, netem and cut-clients; nemesis/process: pause, resume,
// kill, start and restart; nemesis/quorum: the config,
// election, release, feature and voter-set changes made through the admin
// API; nemesis/clients: the faults on kchaos's own clients, their
// groups' members and producers, and on the coordinators and
// transactions they use; nemesis/requests: the request faults), each
// importing this package and registering its kinds at init
// (Register); this package never imports a room, and nemesis/kinds links
// them all for the programs that read schedules. What the seam must know
// of a room's kinds it asks through the registry (HealKind.Retry and
// Pending, Kind.AvoidReads, Kind.VoterChange, Draw.Validate) or through
// interfaces its parameters implement (Sequence, ConfigChanger,
// Upgrader), or names a heal another room owns (HealNamed). The seam has
// no kinds of its own. The integration tests of the seam and of every
// room share one cluster harness, nemesis/nemesistest; the unit tests of
// the seam and of the rooms one in-memory cluster, nemesis/nemesisfake.
//
// Adding a fault kind is one new file and one line:
//   - a file in its room with its Kind (kind.go: name, the cluster
//     capabilities it needs, a new one through cluster.RegisterCapability,
//     how it ends: its own HealKind if lasting, Instant or UndoOp; whether
//     and how a random schedule draws it; its colour, whether it may lose
//     acked records or move leaders; its proof; what it leaves behind),
//     its parameter type (the step's own YAML keys as yaml tags, with
//     Validate, CheckAgainst when its rules need the scenario, and Build
//     returning the Fault), and the Fault itself (Name, Inject, Heal;
//     Prover if it can prove it took effect);
//   - its Kind on the room's list, which the room's init gives to
//     Register in order (a name registered twice panics). A new room is
//     a blank import in nemesis/kinds.
//
// Then go generate ./nemesis copies its history facts into
// histories/faults_kinds.go for the checker and the report, which do not
// link this package (TestHistoryFactsGenerated fails until it is run),
// and TestRegistry wants a valid and an invalid step for it
// (registry_test.go). These tests see every room's kinds through
// kinds_test.go. TestKindsDecide fails while the kind leaves any of
// the above unsaid; pagecache_fixture_test.go is such a kind, whole.
//
// The shared step fields (fault, target, wait, until, ...) are Step's; a
// key that belongs to another fault's parameters is refused naming the
// faults that take it.
package nemesis

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/internal/ctxsleep"
	"github.com/kchaos/kchaos/nemesis/proxy"
)

// RequestProxy is the proxy on the clients' path, as the request faults
// (nemesis/requests) use it; *proxy.Proxy implements it. The harness sets
// Env.Requests when the scenario has a request fault.
type RequestProxy interface {
	Add(proxy.Rule) (proxy.RuleID, error)
	Remove(proxy.RuleID)
	Counts(proxy.RuleID) (proxy.Counts, bool)
}

var _ RequestProxy = (*proxy.Proxy)(nil)

// StateSource is the cluster state that targets and conditions read;
// *admin.Client implements it.
type StateSource interface {
	Describe(ctx context.Context, topic string) ([]admin.PartitionState, error)
	LiveBrokers(ctx context.Context) ([]int32, error)
	HighWatermark(ctx context.Context, leader int32, topic string, partition int32) (int64, error)
	// LastStableOffset is what a read_committed reader can reach (below
	// the high watermark while a transaction is open on the partition).
	LastStableOffset(ctx context.Context, leader int32, topic string, partition int32) (int64, error)
	ActiveController(ctx context.Context) (int32, error)
}

// Admin is the admin API the faults use; *admin.Client implements it.
type Admin interface {
	StateSource
	SetTopicConfig(ctx context.Context, topic, key string, value *string) error
	ElectLeaders(ctx context.Context, topic string, partitions []int32, unclean bool) error
	// ElectLeadersVia sends the election to one broker, which forwards it.
	ElectLeadersVia(ctx context.Context, via int32, topic string, partitions []int32, unclean bool) error
	// ReorderReplicas sets a partition's replicas to the same brokers in
	// another order (move-coordinator puts its broker first).
	ReorderReplicas(ctx context.Context, topic string, partition int32, replicas []int32) error
	// OpenTxns and AbortTxn are abort-hanging's: the transactions the
	// leader holds open with their coordinators' view, and an abort marker
	// (KIP-664's admin calls).
	OpenTxns(ctx context.Context, topic string, partition int32) ([]histories.OpenTxn, error)
	AbortTxn(ctx context.Context, topic string, partition int32, t histories.OpenTxn) error
	// Quorum is the KRaft quorum as DescribeQuorum reports it, for the
	// quorum roles (quorumtarget.go).
	Quorum(ctx context.Context) (histories.QuorumValue, error)
}

var _ Admin = (*admin.Client)(nil)

// Members is the workload's group members as the member faults
// (nemesis/clients) act on them. It is the seam's because the harness
// hands the run's members over through Env.Members (workloads'
// GroupControl implements it), and the harness does not name a room.
type Members interface {
	Members() []string
	Kill(ctx context.Context, member string) error
	Start(ctx context.Context, member string) error
	Leave(ctx context.Context, member string) error
	Stall(ctx context.Context, member string, d time.Duration) error
}

// Clients is what the producer faults (nemesis/clients: producer-crash,
// stop-producers) need of the workload; the harness wires the run's
// workload in (Env.Clients), so it is the seam's, as Members is.
// nemesis cannot import workloads (they are beside each other in the
// layering), so the workload implements this.
type Clients interface {
	// Producers is the number of producer clients.
	Producers() int
	// CrashProducer crashes producer client i (closed without a flush:
	// what it had in flight completes info), waits down, and starts a new
	// client with new history processes in its place; it returns what it
	// did for the op's details.
	CrashProducer(ctx context.Context, i int, down time.Duration) (map[string]any, error)
	// StopProducers ends the producing half of the run (no new sends or
	// transactions; consumers go on) and returns once the producers have
	// returned, with what it did for the op's details.
	StopProducers(ctx context.Context) (map[string]any, error)
}

// QuorumSource answers the KRaft quorum as one sample.
type QuorumSource interface {
	Quorum(ctx context.Context) (histories.QuorumValue, error)
}

// Env is what a fault acts on and records to.
type Env struct {
	// Cluster is the run's nodes. Faults act only through it (never
	// through a backend such as Docker by name), so they can touch only
	// nodes of the current run, and any backend (cluster/docker, SSH
	// hosts) serves them unchanged; tests use an in-memory fake.
	Cluster cluster.Nodes
	Admin   Admin
	// Quorum, when set, answers the quorum roles (active-controller,
	// controller-followers, observers) instead of Admin: the controllers
	// asked on their own listeners (*admin.Controllers), which know a new
	// leader as soon as it is elected, where a broker forwards to the
	// controller it cached (15-20 s stale after that one's host vanished).
	Quorum QuorumSource
	// Topic is the workload topic: roles such as "leader of partition 0"
	// and conditions refer to its partitions.
	Topic string
	// TransactionalIDs are the workload's transactional ids, in producer
	// order: role txn-coordinator reads the first one's coordinator.
	TransactionalIDs []string
	// GroupID is the workload's consumer group, for the roles
	// group-coordinator and group-coordinator-followers ("": none).
	GroupID string
	// ShareGroup is the workload's share group, for the role
	// share-coordinator ("": none).
	ShareGroup string
	// Members are the workload's consumer-group members, for the member
	// faults (nemesis/clients); nil without a group.
	Members Members
	// Recorder receives the nemesis ops; nil records nothing.
	Recorder *histories.Recorder
	// Log receives progress; nil discards it.
	Log *slog.Logger
	// Seed drives random target choices made at injection time (a scripted
	// step with role random). The Runner records it.
	Seed int64
	// Clients are the workload's producer clients, for producer-crash;
	// nil: none (the fault is refused). Kept apart from Members: a group
	// member and a producer are different clients with different faults
	// (a member leaves, stalls and rejoins a group; a producer crashes
	// with sends in flight), and each workload offers only its own.
	Clients Clients
	// Requests is the request proxy on the clients' path, for the request
	// faults (nemesis/requests); nil when the run has none. ClientPrefixes are
	// the workload's client roles with their client id prefixes
	// (workloads.ClientIDPrefixes), which the request faults select by.
	Requests       RequestProxy
	ClientPrefixes map[string]string

	mu    sync.Mutex
	rooms map[reflect.Type]any // each room's run state (RoomState)
	rng   *prng
	// For state reads (state.go): the broker that answered last.
	lastReader int32
	// invoked: every registered fault kind the run invoked (Invoked).
	invoked map[string]bool
	// touched: the nodes the fault ops injected since the runner last
	// took them (takeTouched), for an until's struck nodes.
	touched []int32
}

// takeTouched returns the nodes the fault ops injected since the last
// call, and forgets them: the runner takes them around each fault step,
// so a step that plays several ops (a Sequence) struck all their nodes.
func (e *Env) takeTouched() []int32 {
	e.mu.Lock()
	defer e.mu.Unlock()
	ids := e.touched
	e.touched = nil
	return sortedIDs(ids)
}

// Invoked is every fault kind this Env invoked (an invoke recorded,
// whatever its outcome: a fault that failed may have been partly
// applied), sorted: a reused cluster's next run asks each kind whether it
// leaves state (LeavesState).
func (e *Env) Invoked() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Sorted(maps.Keys(e.invoked))
}

// Leaves is what the faults this Env invoked leave behind that a heal
// does not undo, one line per kind ("remove-controller: changes the
// controller quorum's voters"); empty when nothing.
func (e *Env) Leaves() []string {
	var out []string
	for _, f := range e.Invoked() {
		if why := leavesState(f); why != "" {
			out = append(out, f+": "+why)
		}
	}
	return out
}

// RoomState is the run's state of type T, zero until a fault first asks
// for it: what a room's faults share across one run (the rules the
// request faults added, which their heal removes), kept on the Env so
// that it lives and ends with the run. It is keyed by its type, which
// the room declares, so that no two rooms meet.
func RoomState[T any](e *Env) *T {
	e.mu.Lock()
	defer e.mu.Unlock()
	key := reflect.TypeFor[T]()
	if v, ok := e.rooms[key]; ok {
		return v.(*T)
	}
	if e.rooms == nil {
		e.rooms = map[reflect.Type]any{}
	}
	v := new(T)
	e.rooms[key] = v
	return v
}

// RecordEvent writes an event of the nemesis that is no op of a fault's
// own (type info, process -1, f its name): a room's account of what its
// faults do as it happens (each request the proxy acted on, f request).
func (e *Env) RecordEvent(f string, v histories.NemesisValue) {
	e.record(histories.Info, f, v, "")
}

// Logger is Log, or a logger that drops everything when Log is unset:
// every fault logs through it, the rooms' (nemesis/quorum's
// reconfigurations) as the seam's.
func (e *Env) Logger() *slog.Logger {
	if e.Log == nil {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return e.Log
}

func (e *Env) rand() *prng {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.rng == nil {
		e.rng = newPRNG(e.Seed)
	}
	return e.rng
}

// RandomIndex is a number in [0, n) drawn from the run's seed (Seed), in
// the same sequence as the seam's own draws at injection time: a room's
// fault that picks when it fires (a producer, a group member) replays the
// same pick from the same seed.
func (e *Env) RandomIndex(n int) int { return e.rand().intn(n) }

// AllNodes returns every node id of the run: controllers, then brokers.
func (e *Env) AllNodes() []int32 { return cluster.IDs(cluster.AllNodes(e.Cluster)) }

// BrokerIDs are the run's broker ids, and ControllerIDs its controllers':
// exported for the rooms, whose faults check that a target is a broker (a
// disk fault) or a node of the run (a power loss).
func (e *Env) BrokerIDs() []int32 { return cluster.IDs(e.Cluster.Brokers()) }

// ControllerIDs: see BrokerIDs.
func (e *Env) ControllerIDs() []int32 { return cluster.IDs(e.Cluster.Controllers()) }

// Inject injects f and records it: an invoke carrying the fault's spec,
// then ok with the nodes it touched and what it did (and, for a Prover,
// the proof that it holds), or info with the error (the fault may have
// been partly applied, or did not take effect, so its outcome is
// unknown).
func (e *Env) Inject(ctx context.Context, f Fault) error {
	begin := time.Now()
	e.record(histories.Invoke, f.Name(), histories.NemesisValue{Fault: f.Name(), Details: specOf(f)}, "")
	defer e.completeOnPanic(f.Name(), histories.NemesisValue{Fault: f.Name()})
	nodes, details, err := f.Inject(ctx, e)
	if err == nil {
		details, err = e.prove(ctx, f, details) // proof.go
	}
	v := histories.NemesisValue{Fault: f.Name(), Nodes: sortedIDs(nodes), Details: details}
	e.mu.Lock()
	e.touched = append(e.touched, v.Nodes...)
	e.mu.Unlock()
	if r := (*Refusal)(nil); errors.As(err, &r) {
		e.record(histories.Fail, f.Name(), v, r.Error())
		e.Logger().Info("nemesis: refused, as the step allows", "fault", f.Name(), "err", r)
		return nil
	}
	if err != nil {
		e.record(histories.Info, f.Name(), v, err.Error())
		e.Logger().Warn("nemesis: inject failed", "fault", f.Name(), "nodes", v.Nodes, "err", err)
		return fmt.Errorf("%s: %w", f.Name(), err)
	}
	e.record(histories.OK, f.Name(), v, "")
	e.Logger().Info("nemesis: injected", "fault", f.Name(), "nodes", v.Nodes, "details", details,
		"took", time.Since(begin).Round(time.Millisecond))
	return nil
}

// Refusal is a fault's answer that the cluster refused it outright and
// changed nothing (Kafka's definite refusal, not a timeout), returned by a
// fault whose step asked to record refusals (set-feature's `refused:
// record`): the op completes `fail` with the refusal as its error, and the
// schedule goes on, so that a story can make the refusal its outcome.
type Refusal struct{ Err error }

func (r *Refusal) Error() string { return r.Err.Error() }
func (r *Refusal) Unwrap() error { return r.Err }

// HealFault undoes one injected fault and records it as a heal op.
func (e *Env) HealFault(ctx context.Context, f Fault) error {
	return e.recordHeal(ctx, f.Name(), func(ctx context.Context) ([]int32, map[string]any, error) {
		return nil, nil, f.Heal(ctx, e)
	})
}

// recordHeal runs a heal and records it as f heal, value.fault = what.
func (e *Env) recordHeal(ctx context.Context, what string, heal func(context.Context) ([]int32, map[string]any, error)) error {
	e.record(histories.Invoke, histories.FHeal, histories.NemesisValue{Fault: what}, "")
	defer e.completeOnPanic(histories.FHeal, histories.NemesisValue{Fault: what})
	nodes, details, err := heal(ctx)
	v := histories.NemesisValue{Fault: what, Nodes: sortedIDs(nodes), Details: details}
	if err != nil {
		e.record(histories.Info, histories.FHeal, v, err.Error())
		e.Logger().Warn("nemesis: heal failed", "what", what, "err", err)
		return fmt.Errorf("heal %s: %w", what, err)
	}
	e.record(histories.OK, histories.FHeal, v, "")
	e.Logger().Info("nemesis: healed", "what", what, "nodes", v.Nodes, "details", details)
	return nil
}

// completeOnPanic, deferred after an invoke, completes the op as info when
// the fault panics (so every invoke keeps its completion) and panics on.
func (e *Env) completeOnPanic(f string, v histories.NemesisValue) {
	if p := recover(); p != nil {
		e.record(histories.Info, f, v, fmt.Sprint("panic: ", p))
		panic(p)
	}
}

// record appends a nemesis op. A recorder error is logged, not returned:
// losing a history line must not stop the heal that follows.
func (e *Env) record(typ histories.Type, f string, v histories.NemesisValue, errText string) {
	if _, ok := LookupKind(f); ok && typ == histories.Invoke {
		e.mu.Lock()
		if e.invoked == nil {
			e.invoked = map[string]bool{}
		}
		e.invoked[f] = true
		e.mu.Unlock()
	}
	if e.Recorder == nil {
		return
	}
	if _, err := e.Recorder.Record(histories.NemesisProcess, typ, f, v, errText); err != nil {
		e.Logger().Error("nemesis: cannot record", "f", f, "type", typ, "err", err)
	}
}

// Specer is implemented by faults that describe their spec (shape,
// target, config) in the invoke's details.
type Specer interface{ Spec() map[string]any }

func specOf(f Fault) map[string]any {
	if s, ok := f.(Specer); ok {
		return s.Spec()
	}
	return nil
}

func sortedIDs(ids []int32) []int32 {
	if len(ids) == 0 {
		return nil
	}
	out := slices.Clone(ids)
	slices.Sort(out)
	return slices.Compact(out)
}

// without is all but the ids in drop.
func without(all, drop []int32) []int32 {
	var out []int32
	for _, id := range all {
		if !slices.Contains(drop, id) {
			out = append(out, id)
		}
	}
	return out
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error { return ctxsleep.Sleep(ctx, d) }
