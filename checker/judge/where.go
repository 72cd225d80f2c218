package judge

import (
	"fmt"
	"sort"

	"github.com/kchaos/kchaos/checker/model"
	"github.com/kchaos/kchaos/histories"
)

// Where is the cluster as the observer last saw the partition at a moment
// (the latest observe sample at or before it) and the last nemesis fault
// before it. Fields are absent when nothing was observed.
type Where struct {
	Leader      *int32    `json:"leader,omitempty"`
	LeaderEpoch *int32    `json:"leader_epoch,omitempty"`
	ISR         []int32   `json:"isr,omitempty"`
	ELR         []int32   `json:"elr,omitempty"`
	ObservedS   *float64  `json:"observed_s,omitempty"`
	LastFault   *FaultRef `json:"last_fault,omitempty"`
}

// FaultRef names a nemesis op.
type FaultRef struct {
	F       string         `json:"f"`
	Fault   string         `json:"fault,omitempty"`
	Nodes   []int32        `json:"nodes,omitempty"`
	AtS     float64        `json:"at_s"`
	Details map[string]any `json:"details,omitempty"`
}

func (f FaultRef) String() string {
	s := f.F
	if f.Fault != "" && f.Fault != f.F {
		s += " (" + f.Fault + ")"
	}
	if len(f.Nodes) > 0 {
		s += " " + Ints(f.Nodes)
	}
	return fmt.Sprintf("%s at %.1f s", s, f.AtS)
}

// Ints writes v as [1,2,3], as the explanations' texts name brokers.
func Ints(v []int32) string {
	b := []byte{'['}
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, "%d", x)
	}
	return string(append(b, ']'))
}

// Places says where a history stood: a partition's leader, epoch, ISR and
// ELR at a time (from the observer's samples), and the faults made around
// it, so that every analyzer's entries name them alike.
type Places struct {
	h      *model.History
	faults []int // nemesis ops that make a fault (not a heal), by time
}

// NewPlaces indexes h's faults.
func NewPlaces(h *model.History) *Places {
	p := &Places{h: h}
	for i, op := range h.Nem {
		if histories.KindOf(op.F) != histories.Undo {
			p.faults = append(p.faults, i)
		}
	}
	return p
}

// Faults are the nemesis ops (indexes in History.Nem) that make a fault
// rather than heal one, by time.
func (p *Places) Faults() []int { return p.faults }

// Where describes partition tp at time t.
func (p *Places) Where(tp int32, t int64) Where {
	var w Where
	if o := p.h.TPs[tp].At(t); o != nil {
		leader, epoch, at := o.Leader, o.Epoch, Secs(o.At)
		w.Leader, w.LeaderEpoch, w.ObservedS, w.ISR, w.ELR = &leader, &epoch, &at, o.ISR, o.ELR
	}
	w.LastFault = p.FaultBefore(t)
	return w
}

// FaultBefore returns the last fault made at or before t.
func (p *Places) FaultBefore(t int64) *FaultRef {
	i := sort.Search(len(p.faults), func(i int) bool { return p.h.Nem[p.faults[i]].Call > t })
	if i == 0 {
		return nil
	}
	f := p.FaultRef(p.faults[i-1])
	return &f
}

// FaultRef names nemesis op i.
func (p *Places) FaultRef(i int) FaultRef {
	op := p.h.Nem[i]
	return FaultRef{F: op.F, Fault: op.V.Fault, Nodes: op.V.Nodes, AtS: Secs(op.Call), Details: op.V.Details}
}

// FaultsBetween returns the faults made in (from, to], at most the last 5.
// The faults are in time order (a history's times never go back): two
// binary searches find them, so that naming the faults of every lost
// range or txn entry does not cost entries times faults.
func (p *Places) FaultsBetween(from, to int64) []FaultRef {
	lo := sort.Search(len(p.faults), func(i int) bool { return p.h.Nem[p.faults[i]].Call > from })
	hi := sort.Search(len(p.faults), func(i int) bool { return p.h.Nem[p.faults[i]].Call > to })
	var out []FaultRef
	for _, i := range p.faults[max(lo, hi-5):max(lo, hi)] {
		out = append(out, p.FaultRef(i))
	}
	return out
}
