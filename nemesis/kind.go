package nemesis

import (
	"context"
	"fmt"
	"slices"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/histories"
)

// Kind is one registered fault kind, as etcd's robustness failpoints are
// registered: everything kchaos knows of a fault is said once, by the kind,
// in the fault's own file. Its name (the f of the ops it records), what it
// needs of the backend whatever its parameters, its own parameter type
// (which a step's fields decode into, which validates them alone and
// against the scenario, and which builds the fault), how it is undone,
// whether a random schedule may draw it and how it aims, how it proves
// that it took effect, and what the history and the report say of it.
// TestKindsDecide fails for a kind that leaves one of these unsaid, so
// that no list elsewhere has to be kept in step with the kinds.
type Kind struct {
	Name string
	// Needs is the backend capabilities the fault needs (none: it acts
	// through the admin API or on the workload's clients).
	Needs cluster.Caps
	// New returns a fresh parameter value for a step of this kind.
	New func() Params
	// LeavesState says what the fault leaves behind that the final heal
	// does not undo ("": nothing): a changed voter set, a failed or full
	// log dir, another release, a config or feature level that outlives
	// the run's topic. kchaos explore runs the next run on the same
	// cluster only when every fault of the run just done leaves nothing
	// (harness.reuse), so the kind that knows what it does says so here,
	// not a list in explore.
	LeavesState string

	// Heal is how the fault ends: the heal kind that undoes a lasting
	// fault (a step's `heal:`, the final heal), Instant for one that acts
	// once, or UndoOp for an op that only ends other faults (resume,
	// start). Never nil.
	Heal *HealKind
	// UndoneBy are the ops besides a heal that end a lasting fault on the
	// nodes they name (resume ends a pause; a restart ends a kill).
	UndoneBy []string
	// Color is the report's colour for the fault (CSS hex).
	Color string
	// LosesAcked says whether the fault can by itself lose acknowledged
	// records (a crash, a power cut, an election that may be unclean): an
	// explanation names these first.
	LosesAcked Decision
	// MovesLeaders says whether the fault can take a partition's leader
	// away, so that the metrics look for a new leader after it
	// (leader_after_fault).
	MovesLeaders Decision
	// OnClients marks the kinds that act on kchaos's own clients (a group
	// or share member, a producer), not on a broker or controller.
	OnClients bool
	// Bootstrap says the fault acts on the nodes through the backend
	// alone (no topic, no admin API, no workload), so that a schedule may
	// strike with it while the cluster starts (nemesis.bootstrap,
	// bootstrap.go): a kill, a pause, a cut link. False refuses the kind
	// there.
	Bootstrap bool
	// Requests marks the kinds that act on single requests through the
	// request proxy (nemesis/requests): a run with one puts the proxy on the
	// clients' path (HasRequestFaults).
	Requests bool
	// VoterChange says whether a step of the kind adds a voter to a
	// dynamic quorum's voter set (1: add-controller) or removes one (-1:
	// remove-controller; both in nemesis/quorum); 0, the others, change
	// none. The seam follows the scripted
	// steps in order with it, to refuse a change the scenario's quorum
	// cannot make before any cluster starts (ScenarioView.checkReconfig).
	VoterChange int
	// Draw is how a random schedule draws the fault, or NotDrawn: only a
	// fault that a heal undoes (or that undoes itself) may be drawn, or a
	// random run could leave the cluster in a state no later step repairs.
	Draw *Draw
	// Proof is Proved when the fault proves that it holds after its
	// injection (its Fault implements Prover), else why it has no such
	// proof (it proves itself inside Inject, its answer is its proof...).
	Proof string
	// AvoidReads, when set, names the brokers the state reads (state.go)
	// must avoid while the kind's faults hold: skip, the brokers the
	// kchaos host cannot reach (a client cut drops its requests too), and
	// last, those whose metadata goes stale (cut off from the
	// controller). The kind that cuts the links knows which; the seam
	// asks every kind that says.
	AvoidReads func(e *Env) (skip, last map[int32]bool)
}

// Proved is the Proof of a kind whose Fault implements Prover.
const Proved = "proved"

// AdminProof is the Proof of the kinds that act through the admin API:
// Kafka's answer to the request is the proof, recorded with the op. It is
// the seam's because kinds of several rooms share it (nemesis/clients'
// move-coordinator, nemesis/quorum's config, election and feature
// changes).
const AdminProof = "Kafka's answer to its admin request, recorded with the op"

// Decision is a yes or no that a kind must give: its zero value is "not
// said", which TestKindsDecide refuses, so that a new kind cannot fall
// silently on the wrong side of a rule (whether it may lose acked
// records, whether it moves leaders).
type Decision uint8

const (
	undecided Decision = iota
	// No and Yes are the answers.
	No
	Yes
)

// HealKind is a heal a step may name (`heal: disk`) and a part of the
// final heal, declared in the file of the lasting kind that owns it (disk
// in nemesis/disk/disk.go); other kinds that it undoes refer to it: in
// their own room by its variable (cut-clients to partition's), from
// another room by its name (HealNamed: lose-unflushed to kill's).
type HealKind struct {
	Name string
	// named marks a reference by name (HealNamed), which heals resolves
	// to the heal kind a registered kind owns.
	named bool
	// Rank is its place in a heal all: lower first. The order matters:
	// paused nodes resume before the partition rules go (a frozen node's
	// rules cannot be removed), and disks heal before nodes start (a
	// broker must not start on a frozen dir).
	Rank int
	// Heal undoes every fault it covers across the run, from the nodes'
	// actual state rather than from bookkeeping, so that it also repairs
	// what an interrupted injection left half done. It adds what it did
	// to the heal op's details d and returns the nodes it touched.
	Heal func(ctx context.Context, e *Env, d map[string]any) ([]int32, error)
	// Check, when set, reports what a `heal:` step of this kind needs of
	// the scenario (heal member needs group members).
	Check func(p string, st *Step, v *ScenarioView, add AddFunc)
	// Retry, when set, undoes on node id what Heal could not reach while
	// the node was down or paused (a link's rules and qdiscs): the seam
	// calls it whenever it starts, resumes or upgrades a node, before the
	// node counts as back.
	Retry func(ctx context.Context, e *Env, id int32) error
	// Pending, when set, lists the nodes Heal could not reach yet (Retry
	// clears them): a heal all that leaves any fails, naming them.
	Pending func(e *Env) []int32
}

var (
	// Instant is the Heal of a fault that acts once and needs no undoing
	// (a restart, a config change, an election).
	Instant = &HealKind{Name: "(instant)"}
	// UndoOp is the Heal of a kind that is no fault but the end of others
	// (resume, start, member-start).
	UndoOp = &HealKind{Name: "(undo)"}
)

// HealNamed is the Heal of a kind that the heal of a kind in another room
// undoes: lose-unflushed (nemesis/disk) leaves its nodes down as a kill
// does, and kill's heal (nemesis/process), which starts every stopped
// node, ends it. The heal is named rather than imported, so that no room
// imports another and each kind is declared once, in its own room, heal
// and all; the seam resolves the name when it heals (heals), never at
// init, since Go initializes the rooms in import-path order and disk's
// kinds register before process's. Declaring the kill heal in the seam
// instead would make the seam own a decision of the kill kind's (what
// its heal does and where it ranks). A name that no registered kind's
// heal bears (a program that does not link the owner's room) stays a
// heal that fails when it runs, rather than one a heal all skips.
func HealNamed(name string) *HealKind {
	return &HealKind{Name: name, named: true, Heal: func(context.Context, *Env, map[string]any) ([]int32, error) {
		return nil, fmt.Errorf("heal %s: no registered fault kind owns it (nemesis/kinds links every room)", name)
	}}
}

// resolved is h, or for a heal named by another room (HealNamed) the
// heal kind a registered kind owns under that name (h itself while none
// does).
func (h *HealKind) resolved() *HealKind {
	if !h.named {
		return h
	}
	for _, k := range registry {
		if k.lasting() && !k.Heal.named && k.Heal.Name == h.Name {
			return k.Heal
		}
	}
	return h
}

// lasting reports whether the kind's fault stays until a heal ends it.
func (k Kind) lasting() bool { return k.Heal != nil && k.Heal != Instant && k.Heal != UndoOp }

// Draw is how a random schedule draws a kind: the names a mix gives it
// (its own and, for a link fault, name-<shape>), the parameters a drawn
// step takes, and how it aims.
type Draw struct {
	// Rank is the place of the kind's names in the list of drawable names
	// (RandomFaultNames, and the default mix): a seed replays the same
	// draws only while that list keeps its order, so a kind added later
	// takes a higher rank than every kind before it.
	Rank int
	// Shape is what the bare name draws (partition: isolate); Shapes are
	// the variants name-<shape> a mix may name.
	Shape  string
	Shapes []string
	// Params are a drawn step's parameters for shape (nil: none).
	Params func(rs RandomSchedule, shape string) Params
	// Links says the fault cuts or degrades links, so it aims as a shape
	// needs (planTarget); otherwise at one random broker unless the
	// schedule's targets say otherwise.
	Links bool
	// AnyBroker says a drawn step takes no target unless the schedule's
	// targets give one: a request fault selects its own requests, and one
	// aimed at a random broker would select nothing on a broker that leads
	// no partition.
	AnyBroker bool
	// Validate, when set, checks what a random schedule says for this
	// kind's draws beyond its mix (netem: nemesis.random.netem, the spec
	// every drawn netem takes), whether or not the mix names the kind.
	Validate func(rs *RandomSchedule, add AddFunc)
}

// NotDrawn is the Draw of a kind a random schedule never draws.
var NotDrawn = &Draw{}

// facts are the kind's history facts, as histories.RegisterFault takes
// them: the history's vocabulary, read by the checker and the report,
// which do not import this package.
func (k Kind) facts() histories.OpFacts {
	f := histories.OpFacts{Name: k.Name, Effect: histories.Instant, Color: k.Color,
		CanLoseAcked: k.LosesAcked == Yes, OnClients: k.OnClients}
	switch {
	case k.Heal == UndoOp:
		f.Effect = histories.Undo
	case k.lasting():
		f.Effect, f.Heal = histories.Lasting, k.Heal.Name
		f.UndoneBy = append(slices.Clone(k.UndoneBy), histories.FHeal)
	}
	return f
}

// MovesLeaders reports whether the nemesis op f can take a partition's
// leader away (Kind.MovesLeaders); false for an op that is no kind.
func MovesLeaders(f string) bool {
	k, ok := LookupKind(f)
	return ok && k.MovesLeaders == Yes
}

// heals are the heal kinds of the registered kinds, in Rank order; a
// heal named by another room (HealNamed) counts as the one it names.
func heals() []*HealKind {
	var out []*HealKind
	for _, k := range registry {
		if !k.lasting() {
			continue
		}
		if h := k.Heal.resolved(); !slices.Contains(out, h) {
			out = append(out, h)
		}
	}
	slices.SortStableFunc(out, func(a, b *HealKind) int { return a.Rank - b.Rank })
	return out
}

// hooked are the registered kinds that the seam calls back from its own
// work (a node started again, a heal all, a state read: Kind.AvoidReads,
// HealKind.Retry and Pending), in registry order. It is its own list,
// filled as kinds register, because that work runs inside the kinds'
// faults: reading registry there would make Go's initialization of
// registry depend on itself.
var hooked []Kind

// hooks reports whether the seam calls k back (hooked).
func (k Kind) hooks() bool {
	return k.AvoidReads != nil || k.lasting() && (k.Heal.Retry != nil || k.Heal.Pending != nil)
}

// RetryHeals runs, on node id that runs again, every heal kind's Retry:
// what a heal could not reach while the node was down or paused. It is
// exported for the rooms that start a node again themselves
// (nemesis/quorum's upgrade restarts one on another release).
func (e *Env) RetryHeals(ctx context.Context, id int32) error {
	var done []*HealKind
	for _, k := range hooked {
		if h := k.Heal; k.lasting() && h.Retry != nil && !slices.Contains(done, h) {
			done = append(done, h)
			if err := h.Retry(ctx, e, id); err != nil {
				return err
			}
		}
	}
	return nil
}

// pendingHeals are the nodes some heal kind could not reach yet, sorted.
func (e *Env) pendingHeals() []int32 {
	var out []int32
	for _, k := range hooked {
		if k.lasting() && k.Heal.Pending != nil {
			out = append(out, k.Heal.Pending(e)...)
		}
	}
	return sortedIDs(out)
}

// healNames are the heals a step may name: all, then every heal kind in
// the order histories lists them.
func healNames() []string { return append([]string{histories.HealAll}, histories.HealKinds()...) }

// Register adds a fault kind to the registry, with its history facts: a
// room (a package of fault kinds of its own, such as nemesis/requests)
// calls it from its init, once per kind, in the order its kinds are to be
// listed after the ones before them. A name already registered panics:
// two kinds cannot share the f of their ops.
func Register(k Kind) { register(k) }

// register is Register that returns what takes the kind out again: tests
// register their own kinds (pagecache_fixture_test.go) for the length of
// a test.
func register(k Kind) (undo func()) {
	if _, dup := LookupKind(k.Name); dup || k.Name == "" {
		panic(fmt.Sprintf("nemesis: fault kind %q registered twice (or unnamed)", k.Name))
	}
	registry = append(registry, k)
	if k.hooks() {
		hooked = append(hooked, k)
	}
	undoFacts := histories.RegisterFault(k.facts())
	return func() {
		undoFacts()
		registry = slices.DeleteFunc(registry, func(x Kind) bool { return x.Name == k.Name })
		hooked = slices.DeleteFunc(hooked, func(x Kind) bool { return x.Name == k.Name })
	}
}

func init() {
	// Every built-in kind's facts replace the generated copy histories
	// holds for readers without the nemesis (faults_kinds.go): a binary
	// that injects faults reads its histories by the kinds' own word.
	for _, k := range registry {
		histories.RegisterFault(k.facts())
		if k.hooks() {
			hooked = append(hooked, k)
		}
	}
}
