package states

import (
	"maps"
	"slices"
	"strconv"

	"github.com/kchaos/kchaos/histories"
)

// tracker folds the evidence, in time order, into what each component
// needs.
type tracker struct {
	in          Input
	topic       string
	minISR      int
	rf          int
	controllers []int32
	indexOf     map[int64]int

	parts map[int32]*partTrack
	// paused, down and fenced are the nodes the nemesis paused, killed or
	// powered off, and the controller fenced, now.
	paused, down, fenced map[int32]bool

	quorumSeen            bool
	quorumLeader, quorumE int32
	quorumBaseL, quorumBE int32
	quorumBaseSet         bool
	coordSeen, coordMoved bool
}

// partTrack is one partition's evidence so far.
type partTrack struct {
	last      histories.ObserveValue
	election  string
	truncated bool
	maxHW     int64
	leo       map[string]int64 // each replica's last log end seen
}

func newTracker(in Input) *tracker {
	t := &tracker{in: in, parts: map[int32]*partTrack{}, paused: map[int32]bool{}, down: map[int32]bool{},
		fenced: map[int32]bool{}, indexOf: map[int64]int{}, minISR: minISR(in.Info)}
	if in.Info != nil {
		t.topic, t.rf, t.controllers = in.Info.Topic, in.Info.Replication, in.Info.Controllers
	}
	for i, e := range in.Events {
		t.indexOf[e.Index] = i
	}
	return t
}

func (t *tracker) partitionIDs() []int32 { return slices.Sorted(maps.Keys(t.parts)) }

// unknownState is a partition's state before any sample of it.
func (t *tracker) unknownState() State {
	s := State{ISR: Unknown, Leader: Unknown, ELR: Unknown, Election: Unknown, Truncation: Unknown}
	s.Quorum, s.Coordinator = t.quorum(), t.coordinator()
	return s
}

// state is partition part's abstract state now.
func (t *tracker) state(part int32) State {
	ps, ok := t.parts[part]
	if !ok {
		return t.unknownState()
	}
	s := State{ISR: t.isrLevel(len(ps.last.ISR)), Leader: t.leader(ps.last.Leader), ELR: ELREmpty,
		Election: ps.election, Truncation: Unknown, Quorum: t.quorum(), Coordinator: t.coordinator()}
	if len(ps.last.ELR) > 0 {
		s.ELR = elrNonEmpty
	}
	switch {
	case ps.truncated:
		s.Truncation = TruncSeen
	case t.in.MarkersRead:
		s.Truncation = TruncNone
	}
	return s
}

func (t *tracker) isrLevel(n int) string { return ISRLevel(n, t.rf, t.minISR) }

// ISRLevel is the ISR component of n in-sync replicas of rf against
// min.insync.replicas minISR (0 when either is not known). Exported for
// the guided strategy, which predicts where a strike at some of a
// partition's replicas leaves its ISR with the same rule.
func ISRLevel(n, rf, minISR int) string {
	switch {
	case n == 0:
		return Unknown
	case rf > 0 && n >= rf:
		return ISRFull
	case minISR > 0 && n > minISR:
		return isrAboveMin
	case minISR > 0 && n == minISR:
		return ISRAtMin
	case minISR > 0:
		return isrUnderMin
	case rf > 0:
		return isrShrunk
	}
	return Unknown
}

func (t *tracker) leader(id int32) string {
	switch {
	case id < 0:
		return LeaderOffline
	case t.fenced[id]:
		// Fenced first: the controller has acted on the pause or the kill.
		return LeaderFenced
	case t.paused[id]:
		return leaderPaused
	case t.down[id]:
		return leaderDown
	}
	return LeaderAlive
}

func (t *tracker) quorum() string {
	switch {
	case !t.quorumSeen:
		return Unknown
	case !t.quorumBaseSet || t.quorumLeader == t.quorumBaseL && t.quorumE == t.quorumBE:
		return same
	}
	return changed
}

func (t *tracker) coordinator() string {
	switch {
	case !t.coordSeen:
		return Unknown
	case t.coordMoved:
		return changed
	}
	return same
}

// baseline starts a new window for the "since the previous fault or
// heal" components.
func (t *tracker) baseline() {
	if t.quorumSeen {
		t.quorumBaseL, t.quorumBE, t.quorumBaseSet = t.quorumLeader, t.quorumE, true
	}
	t.coordMoved = false
}

// event folds one history event in.
func (t *tracker) event(e histories.Event) {
	switch {
	case e.Process == histories.ObserverProcess && e.F == histories.FObserve:
		var v histories.ObserveValue
		if e.Decode(&v) != nil || t.topic != "" && v.Topic != t.topic {
			return
		}
		t.observe(v)
	case e.Process == histories.ObserverProcess && e.F == histories.FQuorum:
		var q histories.QuorumValue
		if e.Decode(&q) != nil || q.LeaderID < 0 {
			return
		}
		if !t.quorumSeen || q.LeaderEpoch >= t.quorumE {
			t.quorumLeader, t.quorumE = q.LeaderID, q.LeaderEpoch
		}
		if !t.quorumSeen {
			t.quorumBaseL, t.quorumBE, t.quorumBaseSet = q.LeaderID, q.LeaderEpoch, true
		}
		t.quorumSeen = true
	case e.Process == histories.NemesisProcess && e.Type != histories.Invoke:
		t.completion(e)
	}
}

// observe folds a partition sample in: the election it shows, and a
// replica's log end below a high watermark seen before.
func (t *tracker) observe(v histories.ObserveValue) {
	ps, ok := t.parts[v.Partition]
	if !ok {
		ps = &partTrack{election: ElectionNone, maxHW: -1, leo: map[string]int64{}}
		t.parts[v.Partition] = ps
	} else if v.Leader >= 0 && v.LeaderEpoch > ps.last.LeaderEpoch {
		switch {
		case slices.Contains(ps.last.ISR, v.Leader):
			ps.election = electionClean
		case slices.Contains(ps.last.ELR, v.Leader):
			ps.election = electionELR
		default:
			ps.election = ElectionUnclean
		}
	}
	// A replica's log end that went back, below a high watermark the
	// partition had reached, lost records counted as committed. (A
	// follower lagging below the high watermark is no evidence: it never
	// had them.)
	for r, leo := range v.LogEndOffsets {
		if prev, ok := ps.leo[r]; ok && leo < prev && leo < ps.maxHW {
			ps.truncated = true
		}
		ps.leo[r] = leo
	}
	ps.maxHW = max(ps.maxHW, v.HighWatermark)
	ps.last = v
}

// completion folds a nemesis op's completion in: which nodes are paused,
// down or fenced, and whether a coordinator moved.
func (t *tracker) completion(e histories.Event) {
	v := decodeDetails(e)
	set := func(m map[int32]bool, on bool) {
		for _, n := range v.Nodes {
			if on {
				m[n] = true
			} else {
				delete(m, n)
			}
		}
	}
	switch e.F {
	case histories.FPause:
		set(t.paused, true)
	case histories.FResume:
		set(t.paused, false)
		set(t.fenced, false)
	case histories.FKill:
		set(t.down, true)
	case histories.FLoseUnflushed:
		if started, _ := v.Details["start"].(bool); !started {
			set(t.down, true)
		}
	case histories.FStart, histories.FRestart:
		set(t.down, false)
		set(t.fenced, false)
	case histories.FHeal:
		if histories.HealCovers(v.Fault, histories.FPause) {
			clear(t.paused)
		}
		if histories.HealCovers(v.Fault, histories.FKill) {
			clear(t.down)
		}
		// A healed node registers again (a fence the controller keeps
		// shows again as a marker or an until): the nodes the heal names,
		// or, naming none, every node it left neither paused nor down.
		if len(v.Nodes) > 0 {
			set(t.fenced, false)
		} else {
			for n := range t.fenced {
				if !t.paused[n] && !t.down[n] {
					delete(t.fenced, n)
				}
			}
		}
	case histories.FMoveCoordinator:
		t.coordSeen = true
		before, _ := v.Details["leaders_before"].(map[string]any)
		after, _ := v.Details["leaders_after"].(map[string]any)
		for p, l := range after {
			if before[p] != l {
				t.coordMoved = true
			}
		}
	case histories.FUntil:
		if u, err := histories.UntilOf(v); err == nil && u.Held {
			for _, n := range u.Fenced {
				t.fenced[n] = true
			}
			if u.Struck == histories.StruckFenced {
				// The nodes the last fault touched, as the runner
				// resolved them: a guided strike whose ids it did not
				// know in advance.
				for _, n := range u.StruckNodes {
					t.fenced[n] = true
				}
			}
			for _, n := range u.Live {
				delete(t.fenced, n)
			}
		}
	}
}

// marker folds a broker-log marker in.
func (t *tracker) marker(m Marker) {
	switch m.Name {
	case MarkerFenced:
		if id, ok := intField(m.Fields, "broker"); ok {
			t.fenced[int32(id)] = true
		}
	case MarkerTruncateBelowHW, MarkerUncleanElection:
		p, ok := partitionOf(m.Partition, t.topic)
		if !ok {
			return
		}
		ps, ok := t.parts[p]
		if !ok {
			return // no sample yet: nothing to attach it to
		}
		if m.Name == MarkerTruncateBelowHW {
			ps.truncated = true
			return
		}
		ps.election = ElectionUnclean
		// The controller's line names the new leader and epoch: evidence
		// of the leader when the observer could not sample (every broker
		// it asks paused or down).
		if l, ok := intField(m.Fields, "leader"); ok && l >= 0 {
			// An unclean partition change leaves the new leader alone in
			// the ISR (the line's "isr: [0] -> [1]").
			ps.last.Leader, ps.last.ISR = int32(l), []int32{int32(l)}
			if e, ok := intField(m.Fields, "leader_epoch"); ok {
				ps.last.LeaderEpoch = int32(e)
			}
		}
	}
}

// intField reads a marker's numeric field.
func intField(f map[string]string, name string) (int64, bool) {
	n, err := strconv.ParseInt(f[name], 10, 64)
	return n, err == nil
}
