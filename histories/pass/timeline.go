package pass

import (
	"maps"

	"github.com/kchaos/kchaos/histories"
)

// Timeline is the typed timeline of a history's faults and samples: the
// nemesis's events, the observer's partition and quorum samples, each
// decoded once, in file order, with its index. The report draws its
// fault bands, partition states and quorum lane from it and the harness
// measures leadership, ISR changes and voters from it; neither decodes
// these values again. It is small beside the history (the sends and
// reads, which are most of it, are not kept), so it is held whole.
type Timeline struct {
	Events int64 // events taken
	End    int64 // the latest event time (ns since the run started)
	// Nemesis is every event of the nemesis process, bookkeeping (the
	// schedule's records, its untils) included.
	Nemesis []NemEvent
	// Observed is every observe event whose value decodes, whoever
	// recorded it (the report reads the observer's, the metrics the ok
	// ones).
	Observed []Observation
	// Quorum is every quorum sample of the observer whose value decodes.
	Quorum []QuorumSample
	// Torn and Err are set when the pass ends (Pass.Done): the last line
	// was torn, or the history could not be read to its end (the figures
	// cover the events before Err).
	Torn bool
	Err  error

	holding map[string]int // lasting fault -> times applied, while it holds
	// The index in Nemesis, Observed or Quorum of the event taken last,
	// -1 when it went to none of them.
	lastNem, lastObs, lastQ int
}

// NemEvent is one event of the nemesis process with its value decoded.
type NemEvent struct {
	Index, Time int64
	F           string
	Type        histories.Type
	// Value is the decoded value (what encoding/json filled in before an
	// error, if BadValue).
	Value    histories.NemesisValue
	BadValue bool
}

// Observation is one observe event with its value decoded.
type Observation struct {
	Index, Time int64
	Process     int
	Type        histories.Type
	Value       histories.ObserveValue
}

// QuorumSample is one quorum sample of the observer.
type QuorumSample struct {
	Index, Time int64
	Value       histories.QuorumValue
}

func newTimeline() Timeline {
	return Timeline{holding: map[string]int{}, lastNem: -1, lastObs: -1, lastQ: -1}
}

func (t *Timeline) add(e *histories.Event) {
	t.lastNem, t.lastObs, t.lastQ = -1, -1, -1
	t.Events++
	t.End = max(t.End, e.Time)
	switch {
	case e.Process == histories.NemesisProcess:
		n := NemEvent{Index: e.Index, Time: e.Time, F: e.F, Type: e.Type}
		n.BadValue = e.Decode(&n.Value) != nil
		t.lastNem = len(t.Nemesis)
		t.Nemesis = append(t.Nemesis, n)
		t.apply(&n)
	case e.F == histories.FObserve:
		o := Observation{Index: e.Index, Time: e.Time, Process: e.Process, Type: e.Type}
		if e.Decode(&o.Value) == nil {
			t.lastObs = len(t.Observed)
			t.Observed = append(t.Observed, o)
		}
	case e.F == histories.FQuorum && e.Process == histories.ObserverProcess:
		q := QuorumSample{Index: e.Index, Time: e.Time}
		if e.Decode(&q.Value) == nil {
			t.lastQ = len(t.Quorum)
			t.Quorum = append(t.Quorum, q)
		}
	}
}

// apply follows which lasting faults hold: a lasting fault's ok
// completion opens it (an info op may or may not have taken), and an ok
// op that undoes it (a heal covering it, a resume of a pause) closes it.
// The reconfiguration ops and the untils neither open nor close one.
func (t *Timeline) apply(n *NemEvent) {
	switch {
	case n.Type != histories.OK, n.F == histories.FUntil,
		n.F == histories.FAddController, n.F == histories.FRemoveController:
		return
	}
	if histories.KindOf(n.F) == histories.Lasting {
		t.holding[n.F]++
	}
	for open := range t.holding {
		if n.F == histories.FHeal && histories.HealCovers(n.Value.Fault, open) || n.F != histories.FHeal && histories.Undoes(n.F, open) {
			delete(t.holding, open)
		}
	}
}

// LastNemesis, LastObserved and LastQuorum are the typed form of the
// event the pass took last, nil when it was not of their kind (or, for
// the samples, its value did not decode): a sink reads them rather than
// decode the value again.
func (t *Timeline) LastNemesis() *NemEvent { return last(t.Nemesis, t.lastNem) }

// LastObserved: see LastNemesis.
func (t *Timeline) LastObserved() *Observation { return last(t.Observed, t.lastObs) }

// LastQuorum: see LastNemesis.
func (t *Timeline) LastQuorum() *QuorumSample { return last(t.Quorum, t.lastQ) }

func last[T any](s []T, i int) *T {
	if i < 0 {
		return nil
	}
	return &s[i]
}

// Holding reports whether a lasting fault holds at the event the pass
// took last: a sink's Add may ask it (the Timeline takes each event
// before the sinks do).
func (t *Timeline) Holding() bool { return len(t.holding) > 0 }

// FaultSpan is one nemesis op as the report draws it: its invoke and its
// completion.
type FaultSpan struct {
	F string
	// Value is the invoke's value with what the completion learned (the
	// nodes a role resolved to, details found while injecting) filled in.
	Value      histories.NemesisValue
	Start, End int64
	Type       histories.Type // of the completion; "" if none was recorded
}

// Faults pairs the nemesis's ops, bookkeeping left out, each invoke with
// the completion that follows it. An invoke whose completion never came
// is kept (Type ""); a completion of another op than the one open starts
// an op of its own at its time (the open one is dropped).
func (t *Timeline) Faults() []FaultSpan {
	var out []FaultSpan
	var pending *FaultSpan
	for i := range t.Nemesis {
		n := &t.Nemesis[i]
		if histories.IsBookkeeping(n.F) {
			continue
		}
		if n.Type == histories.Invoke {
			if pending != nil {
				out = append(out, *pending)
			}
			v := n.Value
			v.Details = maps.Clone(v.Details) // merged into below: never the event's own map
			pending = &FaultSpan{F: n.F, Start: n.Time, End: n.Time, Value: v}
			continue
		}
		if pending == nil || pending.F != n.F {
			pending = &FaultSpan{F: n.F, Start: n.Time}
		}
		pending.End, pending.Type = n.Time, n.Type
		if !n.BadValue {
			mergeNemesis(&pending.Value, n.Value)
		}
		out = append(out, *pending)
		pending = nil
	}
	if pending != nil {
		out = append(out, *pending)
	}
	return out
}

// mergeNemesis fills what the invoke did not know from the completion.
func mergeNemesis(dst *histories.NemesisValue, src histories.NemesisValue) {
	if dst.Fault == "" {
		dst.Fault = src.Fault
	}
	if len(dst.Nodes) == 0 {
		dst.Nodes = src.Nodes
	}
	for k, v := range src.Details {
		if dst.Details == nil {
			dst.Details = map[string]any{}
		}
		dst.Details[k] = v
	}
}

// Request is one action of a request fault (a request event) with its
// details decoded: the moment a client's request was dropped, delayed,
// repeated or answered, which the report places on its timeline beside
// the request fault's band.
type Request struct {
	Index, Time int64
	Fault       string // the request fault whose rule acted
	Nodes       []int32
	Action      histories.RequestAction
}

// Requests returns the request events whose value decodes
// (histories.RequestOf), in file order: the checker refuses a history
// with one that does not, the report draws what it can.
func (t *Timeline) Requests() []Request {
	var out []Request
	for i := range t.Nemesis {
		n := &t.Nemesis[i]
		if n.F != histories.FRequest || n.BadValue {
			continue
		}
		if a, err := histories.RequestOf(n.Value); err == nil {
			out = append(out, Request{Index: n.Index, Time: n.Time, Fault: n.Value.Fault, Nodes: n.Value.Nodes, Action: a})
		}
	}
	return out
}
