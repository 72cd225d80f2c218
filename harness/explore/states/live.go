package states

import (
	"slices"
	"sync"

	"github.com/kchaos/kchaos/histories"
)

// Live follows a run's nemesis and observer events as they are recorded
// (histories.Recorder.Tap) and says a partition's abstract state now: the
// state Abstract will name as the before state of an op invoked now, but
// for what only the run's end can give. The brokers' log markers are read
// after the run, so a live state's Truncation is what the observer's
// samples showed (seen, else unknown) and its Election is inferred from
// the samples alone (Abstract lets a controller's UNCLEAN marker win);
// Project makes both sides comparable.
type Live struct {
	mu     sync.Mutex
	info   *histories.RunInfo
	events []histories.Event
}

// NewLive is a Live for a run described by info (the topic, its
// replication factor and min.insync.replicas, the controllers: what the
// ISR levels and the roles need; run.json's fields).
func NewLive(info *histories.RunInfo) *Live { return &Live{info: info} }

// Event takes one recorded event (a Recorder tap); a client's is ignored.
func (l *Live) Event(e histories.Event) {
	if e.Process >= 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, e)
}

// Now is partition part's state, and its leader in the last sample (-1
// offline); ok is false before the observer sampled it.
func (l *Live) Now(part int32) (st State, leader int32, ok bool) {
	l.mu.Lock()
	events := slices.Clone(l.events)
	l.mu.Unlock()
	in := Input{Events: events, Info: l.info}
	t := newTracker(in)
	replay(t, timeline(in), func(histories.Event) {})
	ps, ok := t.parts[part]
	if !ok {
		return t.unknownState(), -1, false
	}
	return t.state(part), ps.last.Leader, true
}

// Project is s as a live state and a recorded one both name it: without
// its Truncation, which only the brokers' logs read after the run tell
// for certain (Live), and with a paused, killed or fenced leader all
// "struck": that the controller fenced it is, live, known only where an
// until waited for it, and after the run also from the controller's log.
func Project(s State) State {
	s.Truncation = Unknown
	switch s.Leader {
	case LeaderFenced, leaderPaused, leaderDown:
		s.Leader = leaderStruck
	}
	return s
}

// leaderStruck is a projected state's leader that a fault froze, stopped
// or had fenced (Project).
const leaderStruck = "struck"

// ProjectText is Project on a state's text (as coverage keys spell it);
// a text that is no state is returned as it is.
func ProjectText(text string) string {
	s, err := Parse(text)
	if err != nil {
		return text
	}
	return Project(s).String()
}

// Projected is c with every state projected (ProjectText), transitions
// that become one summed: the coverage a live chooser learns from.
func (c *Coverage) Projected() *Coverage {
	if c == nil {
		return nil
	}
	out := &Coverage{Runs: c.Runs}
	for _, t := range c.Transitions {
		t.Before, t.After = ProjectText(t.Before), ProjectText(t.After)
		out.add(t)
	}
	out.sort()
	return out
}
