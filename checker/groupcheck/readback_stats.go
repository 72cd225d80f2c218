package groupcheck

import (
	"fmt"
	"maps"
	"slices"

	"github.com/kchaos/kchaos/checker/judge"
	"github.com/kchaos/kchaos/checker/model"
)

// ReadBackStats describes one group-final op: what the group coordinator
// held at the end of the run, and whether it was judged (only an ok one
// is: one that ended info, or never ended, says nothing, and Note says
// so).
type ReadBackStats struct {
	Group   string  `json:"group"`
	Index   int64   `json:"index"` // the history index of its invoke
	AtS     float64 `json:"at_s"`
	Outcome string  `json:"outcome"` // ok, info, fail or open
	Error   string  `json:"error,omitempty"`
	Judged  bool    `json:"judged"`
	// Offsets is the committed offset read back per partition (absent:
	// none); Errors the partitions the coordinator answered an error for.
	Offsets map[string]int64  `json:"offsets,omitempty"`
	Errors  map[string]string `json:"errors,omitempty"`
	// The coordinator's description (information, not judged).
	Type          string `json:"type,omitempty"`
	State         string `json:"state,omitempty"`
	Protocol      string `json:"protocol,omitempty"`
	Generation    *int32 `json:"generation,omitempty"`
	Members       int    `json:"members"`
	Coordinator   *int32 `json:"coordinator,omitempty"`
	DescribeError string `json:"describe_error,omitempty"`
	// What the rules found in it.
	CommitLost        int    `json:"commit_lost"`
	CommitUnexplained int    `json:"commit_unexplained"`
	Note              string `json:"note,omitempty"`
}

// readBackStats describes every group-final op, in invoke order; nil
// without any (results.json as before for a history without one).
func (a *run) readBackStats() []ReadBackStats {
	c := a.c
	var out []ReadBackStats
	for i := range c.ReadBacks {
		rb := &c.ReadBacks[i]
		st := ReadBackStats{Group: c.GroupNames.List[rb.Group], Index: rb.Index, AtS: judge.Secs(rb.Call), Outcome: typName(rb.Typ),
			Error: rb.Err, Judged: rb.Typ == model.OpOK}
		if !st.Judged {
			st.Note = fmt.Sprintf("the read-back ended %s: nothing is judged from it (the coordinator's state is unknown, never guessed)", st.Outcome)
			out = append(out, st)
			continue
		}
		for _, tp := range slices.Sorted(maps.Keys(rb.Offsets)) {
			if st.Offsets == nil {
				st.Offsets = map[string]int64{}
			}
			st.Offsets[c.TPs[tp].Name()] = rb.Offsets[tp]
		}
		for _, tp := range slices.Sorted(maps.Keys(rb.Errors)) {
			if st.Errors == nil {
				st.Errors = map[string]string{}
			}
			st.Errors[c.TPs[tp].Name()] = rb.Errors[tp]
		}
		st.Type, st.State, st.Protocol, st.Generation = rb.Type, rb.State, rb.Protocol, rb.Generation
		st.Members, st.Coordinator, st.DescribeError = rb.Members, rb.Coordinator, rb.DescribeError
		for _, e := range a.out.CommitLost {
			if e.ReadBackIndex == rb.Index {
				st.CommitLost++
			}
		}
		for _, e := range a.out.CommitUnexplained {
			if e.ReadBackIndex == rb.Index {
				st.CommitUnexplained++
			}
		}
		out = append(out, st)
	}
	return out
}

// protocolNotes says, per group, when the coordinator's read-back shows a
// group of another type than the protocol its members asked for: a
// client that falls back (franz-go runs KIP-848 only against brokers that
// serve ConsumerGroupHeartbeat and otherwise joins as classic, silently),
// so that what was checked is the protocol that ran, not the one asked
// for. A note, since every rule holds for the protocol that ran. Only a
// group whose members all asked for one protocol is read so: one of both
// (KIP-848's online migration) is of whichever type the coordinator's
// migration rules made it.
func (a *run) protocolNotes(st *GroupStats) []string {
	if st == nil {
		return nil
	}
	asked := map[string]map[string]bool{} // group -> the protocols its members asked for
	for _, m := range a.c.Members {
		g := a.c.GroupNames.List[m.Group]
		if asked[g] == nil {
			asked[g] = map[string]bool{}
		}
		if m.Protocol != "" {
			asked[g][m.Protocol] = true
		}
	}
	said := map[string]bool{}
	var out []string
	for _, rb := range st.ReadBack {
		if rb.Type == "" || said[rb.Group] {
			continue
		}
		ps := slices.Sorted(maps.Keys(asked[rb.Group]))
		if len(ps) == 1 && ps[0] != rb.Type {
			out = append(out, fmt.Sprintf("consumer group %s: its members asked for the %s protocol, and the coordinator's read-back at %.1f s describes a %s group: the client fell back, so what was checked is the %s protocol",
				rb.Group, ps[0], rb.AtS, rb.Type, rb.Type))
			said[rb.Group] = true
		}
	}
	return out
}
