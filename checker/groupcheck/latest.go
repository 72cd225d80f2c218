package groupcheck

import (
	"math"

	"github.com/kchaos/kchaos/checker/model"
)

// A group that starts at "latest" (docs/HISTORY.md, "Consumer groups: what
// the checker proves") never had to deliver the records below the position
// a member was reset to; it must deliver, as an earliest group must, every
// record above it. The history does not record the reset position, so the
// checker excuses only what a reset could have put below it, and judges
// the rest as for an earliest group:
//
// A member resets a partition to the log's end only when it starts the
// partition with no committed offset: at an assignment recorded while the
// group had no ok commit of it (or at a delivery or commit its recorded
// rebalances do not explain). The reset position P is the partition's end
// at some moment after the assignment and no later than the return of the
// member's first poll that delivered from the partition (an empty poll
// proves nothing: a client such as franz-go lists offsets in the
// background, and a poll may time out before). That delivery is at or
// above P. So a record is excused by the reset only if it is below that
// first delivered offset and its send (or its txn) was invoked no later
// than that poll's return: a record whose send was invoked after the
// position was fixed was appended after it, at or above P, whenever its
// ack reached the producer (a late ack proves nothing about the offset,
// which is why send invokes, not acks, are compared). A member that
// committed the partition with no delivery since such an assignment may
// have committed its reset position: the records below that commit, sent
// at any time, are excused. A reset that led to no delivery and no
// commit moved nothing the group kept.

// resetsOf returns the resets of group g's partition tp, with those of the
// ok commits that may have committed a reset position.
func (a *run) resetsOf(key groupTP) []model.Reset {
	c := a.c
	var out []model.Reset
	for _, r := range c.Resets {
		if r.Group == key.group && r.TP == key.tp {
			out = append(out, r)
		}
	}
	for i := range c.Commits {
		op := &c.Commits[i]
		if op.Group != key.group || op.Typ != model.OpOK {
			continue
		}
		for _, cp := range op.Parts {
			if cp.OK && cp.Reset && cp.TP == key.tp {
				out = append(out, model.Reset{Group: key.group, TP: key.tp, Below: cp.Off, Bound: math.MaxInt64})
			}
		}
	}
	return out
}

// excused reports whether record r of the final read may have been below
// a latest group's reset position (resets from resetsOf).
func (a *run) excused(resets []model.Reset, r model.Rec) bool {
	call := a.c.WriteInvoked(r.Val, r.TP, r.Off) // MaxInt64, no send known: it may have been anywhere
	for _, e := range resets {
		if r.Off < e.Below && call <= e.Bound {
			return true
		}
	}
	return false
}
