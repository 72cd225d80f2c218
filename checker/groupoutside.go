package checker

import (
	"cmp"
	"github.com/kchaos/kchaos/checker/model"
)

// delivery-outside-assignment (docs/HISTORY.md, "Consumer groups: what the
// checker proves"): a member's poll delivered records of a partition that
// its client did not hold when it polled, by the recording rule that
// histories.Holdings states once (held from the rebalance that assigned it
// to the one that revoked or lost it; a process that continues another's
// client holds what that one held). That is how a zombie consumer shows: a
// member the group fenced, or one that never had the partition, going on
// reading it. It is counted per poll and partition.

// noteOutside records the runs of group poll gi (process p of group g,
// its records sorted by partition) outside p's assignment. Such a
// delivery is one its recorded rebalances do not explain, so it may follow
// a reset of a latest group (package groupcheck, latest.go).
func (c *checker) noteOutside(gi, p, g int32, op *model.Read) {
	for i, end := op.Start, op.End; i < end; {
		tp := c.Recs[i].TP
		j := i + 1
		for j < end && c.Recs[j].TP == tp {
			j++
		}
		if !c.holds.Holds(int(p), tp) {
			run := outsideRun{GPoll: gi, TP: tp, Start: i, End: j, Held: c.holds.Held(int(p), cmp.Compare[int32])}
			for _, h := range c.holds.Holders(tp) {
				if _, continued := c.ContTo[int32(h)]; !continued && !c.gone[h] {
					run.Holders = append(run.Holders, int32(h))
				}
			}
			c.Outside = append(c.Outside, run)
			c.Resets = append(c.Resets, resetEp{Group: g, TP: tp, Below: c.Recs[i].Off, Bound: op.Ret})
		}
		i = j
	}
}
