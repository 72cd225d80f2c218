package checker

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

// resetEp is one such reset of a partition by a member: records below
// below whose send was invoked at or before bound may have been under its
// position.
type resetEp struct {
	group, tp int32
	below     int64
	bound     int64
}

// resetsOf returns the resets of group g's partition tp, with those of the
// ok commits that may have committed a reset position.
func (a *analysis) resetsOf(key groupTP) []resetEp {
	c := a.c
	var out []resetEp
	for _, r := range c.resets {
		if r.group == key.group && r.tp == key.tp {
			out = append(out, r)
		}
	}
	for i := range c.commits {
		op := &c.commits[i]
		if op.group != key.group || op.typ != model.OpOK {
			continue
		}
		for _, cp := range op.parts {
			if cp.ok && cp.reset && cp.tp == key.tp {
				out = append(out, resetEp{group: key.group, tp: key.tp, below: cp.off, bound: math.MaxInt64})
			}
		}
	}
	return out
}

// excused reports whether record r of the final read may have been below
// a latest group's reset position (resets from resetsOf).
func (a *analysis) excused(resets []resetEp, r rec) bool {
	c := a.c
	call := int64(math.MaxInt64) // no send known: it may have been anywhere
	if s, ts := c.writer(r.Val, r.TP, r.Off); s >= 0 && c.Sends[s].TP == r.TP {
		call = c.Sends[s].Call
	} else if ts >= 0 && c.txnSends[ts].tp == r.TP {
		call = c.txns[c.txnSends[ts].txn].call
	}
	for _, e := range resets {
		if r.Off < e.below && call <= e.bound {
			return true
		}
	}
	return false
}
