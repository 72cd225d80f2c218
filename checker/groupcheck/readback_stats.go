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
