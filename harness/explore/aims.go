package explore

import (
	"slices"

	"github.com/kchaos/kchaos/harness/explore/states"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
)

// Aims: where a candidate strikes, relative to the guided partition, and
// its bandit arm's role. Those that are a nemesis target role are that
// role (candidates aims the step with it).
const (
	// aimLeader is the partition's leader.
	aimLeader = nemesis.RoleLeader
	// aimFollowers is every follower: the ISR shrinks to the leader, the
	// first half of Kafka's sequence losses.
	aimFollowers = nemesis.RoleFollowers
	// aimFollower is one follower, the first in id order (nemesis
	// Target.Count 1): the ISR shrinks by one, to above-min or at-min
	// rather than to the leader, the states a random schedule's single
	// brokers reach and guided's every-follower strikes skipped.
	aimFollower = "follower"
	// aimOutOfISR is the replicas that left the ISR: once a fault took
	// some out, what else can befall them (killed while cut off, powered
	// off while paused) without touching the leader.
	aimOutOfISR = nemesis.RoleOutOfISR
)

// candidate is a fault of the mix aimed one way.
type candidate struct {
	name  string // the mix's name (partition-leader-followers)
	fault string // the kind (partition)
	shape string // a link fault's shape
	role  string // the step's target role ("" none)
	count int    // the step's target count (1: one follower)
	// armRole is its arm's role: its aim (aim*), "" a link fault's own
	// aim, or anyRole for a random broker.
	armRole string
	// targeted: the random section's own target role, the only aim of
	// its fault (strikable then checks only that it has a leader).
	targeted bool
	links    bool
	step     nemesis.Step
}

// candidates are the mix's faults, each aimed every way the guided
// strategy aims it: a node fault (and an isolating cut) at partition
// part's leader, at every follower, at one follower (where the ISR levels
// tell it apart: isrShape.oneOfSeveral) and at the replicas outside the
// ISR; a leader-followers cut at the leader only; a link fault of another
// shape as its kind aims it by default; and only the random section's
// own target role when it gives one. Aims a schedule would refuse are
// left out. Which of them can strike in a given state is strikable's.
func candidates(rs nemesis.RandomSchedule, part int32, shape isrShape) []candidate {
	var out []candidate
	seen := map[string]bool{}
	for _, name := range rs.Faults {
		if seen[name] {
			continue
		}
		seen[name] = true
		fault, linkShape, ok := splitMixName(name)
		if !ok {
			continue
		}
		k, _ := nemesis.LookupKind(fault)
		links := k.Draw.Links
		aims := []string{aimLeader, aimFollowers, aimFollower, aimOutOfISR}
		switch {
		case links && linkShape == nemesis.ShapeLeaderFollowers:
			aims = []string{aimLeader}
		case links && linkShape == nemesis.ShapeBridge:
			// The bridge is the one broker both halves still reach: the
			// leader (its followers lose each other, which replication
			// does not need) or one follower (the leader loses the
			// other follower). Both followers leave no halves to split.
			aims = []string{aimLeader, aimFollower}
		case links && linkShape != nemesis.ShapeIsolate:
			aims = []string{""}
		case rs.Targets != nil:
			aims = []string{rs.Targets.Role}
		}
		for _, aim := range aims {
			if aim == aimFollower && !shape.oneOfSeveral() {
				continue
			}
			c := candidate{name: name, fault: fault, shape: linkShape, links: links, armRole: aim, role: aim, targeted: rs.Targets != nil}
			c.step = nemesis.Step{Fault: fault}
			switch aim {
			case nemesis.RoleRandom:
				c.armRole = anyRole
				c.step.Target = &nemesis.Target{Role: nemesis.RoleRandom, Count: 1}
			case aimFollower:
				c.role, c.count = nemesis.RoleFollowers, 1
				c.step.Target = &nemesis.Target{Role: nemesis.RoleFollowers, Partition: part, Count: 1}
			case "":
			default:
				c.step.Target = &nemesis.Target{Role: aim, Partition: part}
			}
			if k.Draw.Params != nil {
				c.step.Params = k.Draw.Params(rs, linkShape)
			}
			if (&nemesis.Schedule{Steps: []nemesis.Step{c.step}}).Validate() != nil {
				continue
			}
			out = append(out, c)
		}
	}
	return out
}

// stopsBroker: the lasting faults that take a broker out of service
// (killed, powered off, frozen): its replicas leave the ISR, and a leader
// struck so is replaced, or, alone in its ISR, leaves the partition
// without one until an unclean election or its heal.
func stopsBroker(fault string) bool {
	return fault == histories.FKill || fault == histories.FLoseUnflushed || fault == histories.FPause
}

// shrinks says a strike takes replicas of the partition out of its ISR
// once it had time to act: a broker fault or a cut aimed at its replicas.
func (c candidate) shrinks() bool {
	return (stopsBroker(c.fault) || c.fault == histories.FPartition) &&
		slices.Contains([]string{aimLeader, aimFollowers, aimFollower, aimOutOfISR}, c.armRole)
}

// takesLeader says a strike aimed at the leader removes it: a broker
// fault, or a cut of it from everyone (a leader-followers cut leaves it
// leading).
func (c candidate) takesLeader() bool {
	return c.armRole == aimLeader && (stopsBroker(c.fault) || c.fault == histories.FPartition && c.shape != nemesis.ShapeLeaderFollowers)
}

// isolates says a strike shrinks the ISR to the leader: a cut of the
// leader from its followers, or a broker fault on every follower. Where
// the sequence-loss prior holds (planner.plan), an untried one goes first
// in the episode's first choice: Kafka's sequence losses start there, so
// a fresh exploration strikes there in its first episode.
func (c candidate) isolates() bool { return c.isolation() > 0 }

// isolation ranks how surely a strike that isolates the leader sets up
// the loss, for the sequence-loss prior: a cut (2) leaves the followers
// running, so once the leader is taken one of them is elected uncleanly
// at once (or the partition stays offline where unclean election is
// off), whatever order the heals come in; a broker fault on every
// follower (1) leaves the election to which broker comes back first.
// 0: it does not isolate the leader.
func (c candidate) isolation() int {
	switch {
	case c.fault == histories.FPartition && c.shape == nemesis.ShapeLeaderFollowers:
		if c.armRole == aimLeader {
			return 2
		}
	case c.fault == histories.FPartition && c.shape == nemesis.ShapeIsolate:
		if c.armRole == aimFollowers {
			return 2
		}
	case stopsBroker(c.fault):
		if c.armRole == aimFollowers {
			return 1
		}
	}
	return 0
}

// lossEnd says the transition t struck a sequence loss to its end: a
// strike that takes the leader (a broker fault at it, a cut of it from
// everyone) from an ISR shrunk to it alone, the leader alive, that left
// the partition with no live leader (offline, or the leader fenced with
// no replica to replace it), an unclean election or a truncation the
// state before lacked. Once some run shows one, the sequence-loss prior
// (planner.plan) has done its job: Kafka was driven where the loss is,
// and the episodes go to what is new. It reads the outcome rather than
// the strike because a strike whose ISR had not shrunk in time (an until
// that timed out) struck nothing of the kind.
func (sh isrShape) lossEnd(t states.Covered) bool {
	fault, shape, _ := splitMixName(t.Fault)
	takes := t.Role == states.RoleLeader && stopsBroker(fault) ||
		t.Role == "links-of-leader" && fault == histories.FPartition && shape != nemesis.ShapeLeaderFollowers
	before, err1 := states.Parse(t.Before)
	after, err2 := states.Parse(t.After)
	if !takes || err1 != nil || err2 != nil || before.Leader != states.LeaderAlive {
		return false
	}
	alone := before.ISR != states.ISRFull && before.ISR != states.Unknown
	if sh.rf > 0 {
		alone = before.ISR == states.ISRLevel(1, sh.rf, sh.minISR)
	}
	return alone && (after.Leader == states.LeaderOffline || after.Leader == states.LeaderFenced ||
		after.Election == states.ElectionUnclean && before.Election != states.ElectionUnclean ||
		after.Truncation == states.TruncSeen && before.Truncation != states.TruncSeen)
}

// held is a strike whose fault still holds in an episode.
type held struct {
	c candidate
	// leaderless: it took the leader while the ISR may have been
	// shrunk to it (effects.alone), so the partition may have no leader
	// until healed.
	leaderless bool
}

// effects is what the strikes that hold say about the partition where
// coverage predicts nothing (a state never reached) or may be wrong: a
// strike whose target does not resolve (a leader of an offline
// partition, the replicas outside a full ISR) fails and ends a scripted
// schedule, so the guided strategy aims only where both allow.
type effects struct {
	// shrunk: a strike that takes replicas out of the ISR holds and had
	// time to act.
	shrunk bool
	// alone: a strike that isolates the leader holds, so the ISR may be
	// the leader alone and a strike that takes it may leave the
	// partition with none. A strike at one follower shrinks the ISR but
	// leaves the other in it: the leader taken then, it is elected
	// cleanly, and the episode may strike on.
	alone bool
	// leaderless: the partition may have no leader.
	leaderless bool
	// down: a kill or power cut holds, so replicas out of the ISR may be
	// down already: a kill or a pause of them would touch nothing (they
	// are skipped), a strike that covers nothing and, credited to no aim
	// (its coverage role is none), would be drawn again.
	down bool
}

// effectsOf is what the strikes hs say, each having had time to act.
func effectsOf(hs []held) effects {
	var fx effects
	for _, h := range hs {
		fx.shrunk = fx.shrunk || h.c.shrinks()
		fx.alone = fx.alone || h.c.isolates()
		fx.leaderless = fx.leaderless || h.leaderless
		fx.down = fx.down || h.c.fault == histories.FKill || h.c.fault == histories.FLoseUnflushed
	}
	return fx
}

// strikable says whether c can strike in state (a state's text, or a
// prediction "after ..." where none is known) with the effects fx: an aim
// that needs a leader (the leader, the followers: nemesis resolves them
// from it) not where it may have none; every follower and one
// follower where the ISR is full (the state's, else nothing holds that
// shrank it), the replicas outside it where it is not (and something
// that shrank it holds). So in each state a strike at the followers has
// one aim, whose coverage role (followers, or out-of-isr) is its arm's;
// and a kill or pause of the replicas out of the ISR not where they may
// be down already.
func strikable(c candidate, state string, fx effects) bool {
	st, err := states.Parse(state)
	known := err == nil
	needsLeader := c.armRole == aimLeader || c.armRole == aimFollowers || c.armRole == aimFollower
	if needsLeader && (fx.leaderless || known && st.Leader == states.LeaderOffline) {
		return false
	}
	if c.targeted {
		return true
	}
	full := !fx.shrunk
	if known && st.ISR != states.Unknown {
		full = st.ISR == states.ISRFull
	}
	switch c.armRole {
	case aimFollowers, aimFollower:
		return full
	case aimOutOfISR:
		if fx.down && (c.fault == histories.FKill || c.fault == histories.FPause) {
			return false
		}
		return fx.shrunk && !full
	}
	return true
}
