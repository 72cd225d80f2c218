package states

import (
	"cmp"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/kchaos/kchaos/histories"
)

// Marker names this package reads: brokerlogs' (its M* constants), the
// only log lines that are evidence for a component. A test in package
// explore holds them equal to brokerlogs'.
const (
	MarkerTruncateBelowHW = "truncate-below-hw"
	MarkerUncleanElection = "unclean-election"
	MarkerFenced          = "fenced"
)

// Marker is one broker-log marker (logs/summary.json's markers), as far
// as the abstraction reads it.
type Marker struct {
	Name string
	Node int32
	// Time is on the history's clock (ns); a marker without one is not
	// given (it cannot be placed between two faults).
	Time int64
	// Partition is the partition's dir name ("orders-0"), where the
	// marker names one.
	Partition string
	Fields    map[string]string
}

// Input is one run's evidence.
type Input struct {
	Events []histories.Event
	// Markers are the brokers' log markers in any order; MarkersRead says
	// the logs were read (logs/summary.json exists), so that a marker's
	// absence is evidence too.
	Markers     []Marker
	MarkersRead bool
	// Info is run.json (nil: a bare history; min.insync.replicas and the
	// replication factor are then unknown).
	Info *histories.RunInfo
}

// Abstraction is a run abstracted: each fault's and heal's transition on each
// partition, in history order.
type Abstraction struct {
	Transitions []Transition `json:"transitions"`
}

// Abstract is in's transitions. A partition appears once the observer
// sampled it; an op invoked before any sample has its before state all
// unknown on it.
func Abstract(in Input) Abstraction {
	t := newTracker(in)
	items := timeline(in)
	var res Abstraction
	var open []pending
	closeOpen := func() {
		for _, p := range open {
			for _, part := range t.partitionIDs() {
				b, ok := p.before[part]
				if !ok {
					b = t.unknownState()
				}
				role, ok := p.roles[part]
				if !ok {
					role = Unknown // invoked before the partition's first sample
				}
				res.Transitions = append(res.Transitions, Transition{Partition: part, Time: p.time, Before: b,
					Fault: p.fault, Role: role, After: t.state(part)})
			}
		}
		open = nil
	}
	replay(t, items, func(e histories.Event) {
		closeOpen()
		open = append(open, t.action(e))
	})
	closeOpen()
	return res
}

// replay folds the timeline into t, telling act each fault's or heal's
// invoke before it is folded in (t then stands as the op found it).
func replay(t *tracker, items []item, act func(histories.Event)) {
	for _, it := range items {
		if it.marker != nil {
			t.marker(*it.marker)
			continue
		}
		e := it.event
		if e.Process == histories.NemesisProcess && e.Type == histories.Invoke && isAction(e.F) {
			act(e)
			t.baseline()
			continue
		}
		t.event(e)
	}
}

// isAction: the ops whose transitions are recorded (faults and heals, not
// the schedule or an until).
func isAction(f string) bool {
	k := histories.KindOf(f)
	return k == histories.Lasting || k == histories.Instant || k == histories.Undo
}

// item is an event or a marker on the history's clock.
type item struct {
	time   int64
	event  histories.Event
	marker *Marker
}

// timeline merges the events (in file order) and the markers by time; at
// equal times events come first.
func timeline(in Input) []item {
	out := make([]item, 0, len(in.Events)+len(in.Markers))
	for _, e := range in.Events {
		out = append(out, item{time: e.Time, event: e})
	}
	ms := slices.Clone(in.Markers)
	slices.SortStableFunc(ms, func(a, b Marker) int { return cmp.Compare(a.Time, b.Time) })
	for i := range ms {
		out = append(out, item{time: ms[i].Time, marker: &ms[i]})
	}
	slices.SortStableFunc(out, func(a, b item) int {
		if c := cmp.Compare(a.time, b.time); c != 0 {
			return c
		}
		return cmp.Compare(boolInt(a.marker != nil), boolInt(b.marker != nil))
	})
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// pending is an op whose after state is not taken yet.
type pending struct {
	time   int64
	fault  string
	before map[int32]State
	roles  map[int32]string
}

// action records op e's before states and roles.
func (t *tracker) action(e histories.Event) pending {
	var v histories.NemesisValue
	_ = e.Decode(&v)
	p := pending{time: e.Time, fault: faultName(e.F, v), before: map[int32]State{}, roles: map[int32]string{}}
	nodes := t.nodesOf(e)
	target, _ := v.Details["target"].(map[string]any)
	_, link := v.Details["shape"]
	for _, part := range t.partitionIDs() {
		p.before[part] = t.state(part)
		p.roles[part] = t.role(part, e.F, v, nodes, target, link)
	}
	return p
}

// healPrefix begins a heal's name in coverage: heal-<kind>.
const healPrefix = "heal-"

// HealName is the coverage name of a heal of kind (heal-all for the
// final heal).
func HealName(kind string) string { return healPrefix + kind }

// HealedKind is the kind a coverage name heals, and whether it names a
// heal at all (a fault's name does not).
func HealedKind(name string) (string, bool) { return strings.CutPrefix(name, healPrefix) }

// faultName is an op as a random mix names it: a link fault with its
// shape (partition-leader-followers), a heal as heal-<kind> (heal-all for
// the final heal).
func faultName(f string, v histories.NemesisValue) string {
	if f == histories.FHeal {
		if histories.HealsAll(v.Fault) {
			return HealName(histories.HealAll)
		}
		return HealName(v.Fault)
	}
	if shape, ok := v.Details["shape"].(string); ok && shape != "" {
		return f + "-" + shape
	}
	return f
}

// nodesOf is the nodes an op struck: its completion's (the next nemesis
// completion of the same f), else its invoke's.
func (t *tracker) nodesOf(inv histories.Event) []int32 {
	for i := t.indexOf[inv.Index] + 1; i < len(t.in.Events); i++ {
		e := t.in.Events[i]
		if e.Process != histories.NemesisProcess {
			continue
		}
		if e.F == inv.F && e.Type != histories.Invoke {
			var v histories.NemesisValue
			_ = e.Decode(&v)
			return v.Nodes
		}
		break
	}
	var v histories.NemesisValue
	_ = inv.Decode(&v)
	return v.Nodes
}

// role is what op f struck relative to partition part.
func (t *tracker) role(part int32, f string, v histories.NemesisValue, nodes []int32, target map[string]any, link bool) string {
	if f == histories.FHeal && histories.HealsAll(v.Fault) {
		return RoleAll
	}
	if link {
		role, _ := target["role"].(string)
		tp, _ := target["partition"].(float64)
		if role == "" || role == "nodes" || int32(tp) != part {
			return RoleLinks
		}
		return roleLinkPrefix + role
	}
	if len(nodes) == 0 {
		return RoleNone
	}
	ps, ok := t.parts[part]
	if !ok {
		return Unknown
	}
	isr := ps.last.ISR
	if ps.last.Leader < 0 {
		// Offline: its ISR is who may lead again (the last leader among them).
		inISR, inELR := 0, 0
		for _, id := range nodes {
			switch {
			case slices.Contains(isr, id):
				inISR++
			case slices.Contains(ps.last.ELR, id):
				inELR++
			}
		}
		switch len(nodes) {
		case inISR:
			return RoleISR
		case inELR:
			return RoleELR
		}
	}
	var leader, followers, out, ctrl int
	for _, n := range nodes {
		switch {
		case slices.Contains(t.controllers, n):
			ctrl++
		case n == ps.last.Leader:
			leader++
		case slices.Contains(isr, n):
			followers++
		default:
			out++
		}
	}
	switch {
	case ctrl == len(nodes):
		return RoleController
	case leader == 1 && len(nodes) == 1:
		return RoleLeader
	case leader == 1:
		return RoleLeaderPlus
	case followers == len(nodes):
		return RoleFollowers
	case out == len(nodes):
		return RoleOutOfISR
	}
	return RoleFollowers + "+" + RoleOutOfISR
}

// minISR is min.insync.replicas as run.json records it (the topic's
// applied configs, else any broker's), 0 when it does not.
func minISR(info *histories.RunInfo) int {
	if info == nil {
		return 0
	}
	if v, err := strconv.Atoi(info.TopicConfigs["min.insync.replicas"]); err == nil {
		return v
	}
	for _, id := range slices.Sorted(maps.Keys(info.BrokerConfigs)) {
		if v, err := strconv.Atoi(info.BrokerConfigs[id]["min.insync.replicas"]); err == nil {
			return v
		}
	}
	return 0
}

// partitionOf reads a marker's partition dir name ("orders-0") for topic.
func partitionOf(dir, topic string) (int32, bool) {
	i := strings.LastIndexByte(dir, '-')
	if i < 0 || topic != "" && dir[:i] != topic {
		return 0, false
	}
	p, err := strconv.ParseInt(dir[i+1:], 10, 32)
	return int32(p), err == nil
}

// decodeDetails reads a nemesis op's value (tolerating none).
func decodeDetails(e histories.Event) histories.NemesisValue {
	var v histories.NemesisValue
	if len(e.Value) > 0 {
		_ = json.Unmarshal(e.Value, &v)
	}
	return v
}
