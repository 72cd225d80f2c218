package groupcheck

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/checker/judge"
	"github.com/kchaos/kchaos/checker/model"
)

// The group coordinator's state read back (group-final, docs/HISTORY.md
// "Consumer groups: what the checker proves"). The members' commits say
// what the coordinator acknowledged; the read-back says what it kept.
//
// commit-lost: the coordinator holds, for a partition, an offset below
// the last offset it acknowledged. Kafka keeps the last commit written,
// not the highest, so the bar is the offset of the ok commit that came
// last: one that no other ok commit of the partition followed (was
// invoked after it completed). When several overlap in time any of them
// may have been written last, so the bar is the lowest of them. A
// read-back equal to the offset of a commit of unknown outcome (info, or
// still open at the end) is no violation: that commit may have been
// written after every acknowledged one. Commits of unknown outcome above
// the read-back excuse nothing: they may never have happened, and the
// acknowledged commit did.
//
// commit-unexplained: the coordinator holds an offset that no commit of
// the history asked for (ok or of unknown outcome; a refused commit did
// not happen). It is information, never against validity: a client may
// commit by itself without telling the workload (a commit in a client's
// close, a request it resent after reporting failure), and the history
// cannot tell that from a coordinator making an offset up.
//
// Only an ok read-back is judged; one that ended info or never ended says
// nothing (the stats say so). Commits count when they completed before
// the read-back was invoked (ok) or were invoked before it completed
// (unknown): a later one could not be in what it read.

// CommitLostEntry is a partition whose committed offset read back is
// below the offset the coordinator last acknowledged.
type CommitLostEntry struct {
	Group     string `json:"group"`
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	// ReadBack is the offset the coordinator held (-1: none), read by
	// the group-final op whose invoke is at ReadBackIndex.
	ReadBack      int64   `json:"read_back"`
	ReadBackEpoch *int32  `json:"read_back_leader_epoch,omitempty"`
	ReadBackIndex int64   `json:"read_back_index"`
	ReadBackS     float64 `json:"read_back_s"`
	// Commit is the acknowledged commit it forgot (the last one; the
	// lowest of the last when several overlap in time).
	Commit CommitRef `json:"commit"`
	By     int64     `json:"by"`
	// Unknown counts the group's commits of the partition of unknown
	// outcome at offsets above the read-back (they excuse nothing).
	Unknown int `json:"unknown_above,omitempty"`
	// Faults are those made between the commit's completion and the
	// read-back's invoke, those on __consumer_offsets first; Requests the
	// request faults' actions then, the last 5.
	Faults   []judge.FaultRef   `json:"faults,omitempty"`
	Requests []judge.RequestRef `json:"requests,omitempty"`
	Causes   []string           `json:"causes"`
	Text     string             `json:"text"`
}

// CommitUnexplainedEntry is a partition whose committed offset read back
// is one no commit of the history asked for.
type CommitUnexplainedEntry struct {
	Group         string `json:"group"`
	Topic         string `json:"topic"`
	Partition     int32  `json:"partition"`
	ReadBack      int64  `json:"read_back"`
	ReadBackIndex int64  `json:"read_back_index"`
	// Highest is the highest offset a commit that may have happened
	// asked for (-1: none).
	Highest int64 `json:"highest_commit"`
	// Refused is a commit the coordinator refused (fail) that asked for
	// the offset read back, if any.
	Refused *CommitRef `json:"refused,omitempty"`
	Text    string     `json:"text"`
}

// readBack judges every ok group-final of the history.
func (a *run) readBack() {
	for i := range a.c.ReadBacks {
		if rb := &a.c.ReadBacks[i]; rb.Typ == model.OpOK {
			a.judgeReadBack(rb)
		}
	}
}

// judgeReadBack judges one ok read-back, partition by partition: those
// the group committed and those the coordinator holds.
func (a *run) judgeReadBack(rb *model.ReadBack) {
	c := a.c
	tps := map[int32]bool{}
	for tp := range rb.Offsets {
		tps[tp] = true
	}
	for i := range c.Commits {
		if op := &c.Commits[i]; op.Group == rb.Group {
			for _, cp := range op.Parts {
				if c.TPs[cp.TP].Topic == rb.Topic {
					tps[cp.TP] = true
				}
			}
		}
	}
	for _, tp := range slices.Sorted(maps.Keys(tps)) {
		if _, bad := rb.Errors[tp]; bad {
			continue
		}
		r, ok := rb.Offsets[tp]
		if !ok {
			r = -1
		}
		if !a.commitLost(rb, tp, r) && r >= 0 {
			a.commitUnexplained(rb, tp, r)
		}
	}
}

// commitLost reports (and records) whether read-back r of tp is below the
// last acknowledged commit.
func (a *run) commitLost(rb *model.ReadBack, tp int32, r int64) bool {
	c := a.c
	var acked []int32 // ok commits of tp, completed before the read-back
	for i := range c.Commits {
		op := &c.Commits[i]
		if op.Group == rb.Group && op.Typ == model.OpOK && op.Ret < rb.Call && partOK(op, tp) {
			acked = append(acked, int32(i))
		}
	}
	bar := int32(-1) // the lowest of the last acknowledged commits
	for _, ci := range acked {
		op := &c.Commits[ci]
		followed := slices.ContainsFunc(acked, func(d int32) bool { return c.Commits[d].Call > op.Ret })
		if !followed && (bar < 0 || a.partOff(ci, tp) < a.partOff(bar, tp) ||
			a.partOff(ci, tp) == a.partOff(bar, tp) && op.Ret > c.Commits[bar].Ret) {
			bar = ci
		}
	}
	if bar < 0 || r >= a.partOff(bar, tp) {
		return false
	}
	unknownAbove := 0
	for i := range c.Commits {
		op := &c.Commits[i]
		if op.Group != rb.Group || (op.Typ != model.OpInfo && op.Typ != model.OpOpen) || (rb.Ret >= 0 && op.Call > rb.Ret) {
			continue
		}
		for _, cp := range op.Parts {
			switch {
			case cp.TP != tp:
			case cp.Off == r:
				return false // that commit may have been written last
			case cp.Off > r:
				unknownAbove++
			}
		}
	}
	t := c.TPs[tp]
	e := CommitLostEntry{Group: c.GroupNames.List[rb.Group], Topic: t.Topic, Partition: t.Partition, ReadBack: r,
		ReadBackIndex: rb.Index, ReadBackS: judge.Secs(rb.Call), Commit: a.commitRef(bar, tp), Unknown: unknownAbove}
	e.By = e.Commit.Offset - max(r, 0)
	if ep, ok := rb.Epochs[tp]; ok && r >= 0 {
		e.ReadBackEpoch = &ep
	}
	e.Faults, e.Causes = a.readBackCauses(c.Commits[bar].Ret, rb.Call, unknownAbove)
	e.Requests = a.places.RequestsBetween(c.Commits[bar].Ret, rb.Call)
	if w := judge.RequestsWords("request actions between the commit and the read-back: ", e.Requests); w != "" {
		e.Causes = append(e.Causes, w)
	}
	held := fmt.Sprintf("offset %d", r)
	if r < 0 {
		held = "no committed offset"
	}
	cm := e.Commit
	e.Text = fmt.Sprintf("group %s's coordinator holds %s of %s-%d (group-final #%d at %.1f s), below offset %d that commit #%d by %s committed "+
		"and the coordinator acknowledged at %.1f s: it forgot an acknowledged commit; %s",
		e.Group, held, e.Topic, e.Partition, rb.Index, e.ReadBackS, cm.Offset, cm.Index, who(cm.Process, cm.Member, cm.Generation),
		cm.DoneS, strings.Join(e.Causes, "; "))
	a.out.CommitLost = append(a.out.CommitLost, e)
	return true
}

// readBackCauses lists what the history holds between an acknowledged
// commit and the read-back that lacks it: the faults (those on
// __consumer_offsets or its coordinator first), and the commits of
// unknown outcome above the read-back, which excuse nothing.
func (a *run) readBackCauses(from, to int64, unknown int) ([]judge.FaultRef, []string) {
	var offsets, others []judge.FaultRef
	for _, fi := range a.places.Faults() {
		if op := a.c.Nem[fi]; op.Call > from && op.Call <= to {
			if f := a.places.FaultRef(fi); mentionsOffsetsTopic(f.Details) {
				offsets = append(offsets, f)
			} else {
				others = append(others, f)
			}
		}
	}
	var out []string
	for _, f := range offsets {
		out = append(out, fmt.Sprintf("%s on __consumer_offsets (where the group's commits are stored), between the commit and the read-back", f))
	}
	if len(others) > 0 {
		var words []string
		for _, f := range others {
			words = append(words, f.String())
		}
		out = append(out, "faults between the commit and the read-back: "+strings.Join(words, ", "))
	}
	if unknown > 0 {
		what := fmt.Sprintf("%d commits of the partition of unknown outcome asked for more; they may never have happened and excuse nothing", unknown)
		if unknown == 1 {
			what = "1 commit of the partition of unknown outcome asked for more; it may never have happened and excuses nothing"
		}
		out = append(out, what)
	}
	if len(offsets)+len(others) == 0 {
		out = append(out, "the history holds no fault between the commit and the read-back")
	}
	return append(offsets, others...), out
}

// commitUnexplained records read-back r of tp when no commit that may
// have happened asked for it.
func (a *run) commitUnexplained(rb *model.ReadBack, tp int32, r int64) {
	c := a.c
	highest := int64(-1)
	var refused *CommitRef
	for i := range c.Commits {
		op := &c.Commits[i]
		if op.Group != rb.Group || (rb.Ret >= 0 && op.Call > rb.Ret) {
			continue
		}
		for _, cp := range op.Parts {
			if cp.TP != tp {
				continue
			}
			// An ok commit's partition that did not commit was refused.
			happened := op.Typ == model.OpInfo || op.Typ == model.OpOpen || (op.Typ == model.OpOK && cp.OK)
			switch {
			case happened && cp.Off == r:
				return
			case happened:
				highest = max(highest, cp.Off)
			case cp.Off == r && refused == nil:
				ref := a.commitRef(int32(i), tp)
				refused = &ref
			}
		}
	}
	t := c.TPs[tp]
	e := CommitUnexplainedEntry{Group: c.GroupNames.List[rb.Group], Topic: t.Topic, Partition: t.Partition, ReadBack: r,
		ReadBackIndex: rb.Index, Highest: highest, Refused: refused}
	e.Text = fmt.Sprintf("group %s's coordinator holds offset %d of %s-%d (group-final #%d), which no commit of the history asked for",
		e.Group, r, e.Topic, e.Partition, rb.Index)
	switch {
	case highest < 0:
		e.Text += " (the group committed nothing there that may have happened)"
	case r > highest:
		e.Text += fmt.Sprintf(" (the highest was %d)", highest)
	}
	if refused != nil {
		e.Text += fmt.Sprintf("; commit #%d by %s asked for it and was refused (%s)", refused.Index,
			who(refused.Process, refused.Member, refused.Generation), refused.Error)
	}
	e.Text += ": information: a client may commit without telling the workload"
	a.out.CommitUnexplained = append(a.out.CommitUnexplained, e)
}

// partOK reports whether commit op committed tp (an ok completion listed it).
func partOK(op *model.Commit, tp int32) bool {
	return slices.ContainsFunc(op.Parts, func(cp model.CommitPart) bool { return cp.TP == tp && cp.OK })
}
