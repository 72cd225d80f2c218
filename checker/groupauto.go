package checker

import (
	"github.com/kchaos/kchaos/checker/model"
	"slices"
	"sort"
)

// A commit the client made by itself (`"auto":true`: kgo's auto-commit, its
// commit before a revoke) reaches the workload only when the client reports
// its outcome, so the history records its invoke just before its
// completion (docs/HISTORY.md), later than the request really went out. A
// commit of another member that completed between the two was not, as the
// history's order would say, "completed before it was invoked": the
// coordinator may well have applied the auto commit first. How it
// happens: a member stalled past max.poll.interval (g3) holds its slot's
// lock, so its client's report of a commit the coordinator already applied
// waits out the stall (9 s) while the partition's next owner, a
// generation later, commits higher. Compared with its late record, the
// first g3 run with 200 ms polls flagged three commits of generation 4
// "lower" than generation 5's: an order the coordinator, which refuses an
// old generation's commit, cannot have applied.
//
// What is sound: the client can ask for offset O of a partition only after
// one of its polls returned the record at O-1 (kgo commits the offset just
// past the last record a poll returned for the partition:
// groupConsumer.updateUncommitted), and that poll was invoked before the
// client had it. So an auto commit is compared with what
// the group had committed when that poll was invoked. An auto commit whose
// offset is the end of none of its process's last autoBoundPolls polls of
// the partition has no sound "before" and is not judged (committed-lower
// needs proof, not a guess).

// autoBoundPolls is how many of a process's polls per partition are kept to
// find the one an auto commit's offset came from: a client commits what
// its last polls returned.
const autoBoundPolls = 64

// delivStep is one poll's end (last offset + 1) on a partition, and the
// commit clock when that poll was invoked.
type delivStep struct {
	end, clock int64
}

// commitStep is a rise of the group's committed offset of a partition, at
// a tick of the commit clock.
type commitStep struct {
	clock int64
	at    committedAt
}

// autoState is the part of groupState that bounds auto commits.
type autoState struct {
	clock     int64 // ticks at every rise of a committed offset
	commitLog map[groupTP][]commitStep
	deliv     map[procTP][]delivStep
}

// noteCommitted records a rise of key's committed offset.
func (c *checker) noteCommitted(key groupTP, at committedAt) {
	if c.commitLog == nil {
		c.commitLog = map[groupTP][]commitStep{}
	}
	c.clock++
	c.commitLog[key] = append(c.commitLog[key], commitStep{clock: c.clock, at: at})
}

// noteDelivered records the ends, per partition, of process p's ok poll op
// (records sorted by offset within a partition) invoked at commit clock
// clock.
func (c *checker) noteDelivered(p int32, clock int64, op *model.Read) {
	if c.deliv == nil {
		c.deliv = map[procTP][]delivStep{}
	}
	ends := map[int32]int64{}
	for i := op.Start; i < op.End; i++ {
		r := c.Recs[i]
		ends[r.TP] = max(ends[r.TP], r.Off+1)
	}
	for _, tp := range sortedKeys(ends) {
		k := procTP{p, tp}
		s := append(c.deliv[k], delivStep{end: ends[tp], clock: clock})
		if len(s) > autoBoundPolls {
			s = slices.Delete(s, 0, len(s)-autoBoundPolls)
		}
		c.deliv[k] = s
	}
}

// forgetDelivered drops process p's polls of tps (revoked or lost: the
// client no longer commits them).
func (c *checker) forgetDelivered(p int32, tps []int32) {
	for _, tp := range tps {
		delete(c.deliv, procTP{p, tp})
	}
}

// autoPrev is what group g had committed on tp when process p invoked the
// poll whose end is off: the sound "before" of p's auto commit of off.
// None (-1) when no kept poll ended there.
func (c *checker) autoPrev(g, p, tp int32, off int64) committedAt {
	none := committedAt{Off: -1, Commit: -1}
	s := c.deliv[procTP{p, tp}]
	i := len(s) - 1
	for ; i >= 0 && s[i].end != off; i-- {
	}
	if i < 0 {
		return none
	}
	log := c.commitLog[groupTP{g, tp}]
	j := sort.Search(len(log), func(k int) bool { return log[k].clock > s[i].clock })
	if j == 0 {
		return none
	}
	return log[j-1].at
}
