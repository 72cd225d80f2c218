package metadata

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/histories"
)

// The voter set (KIP-853). The nemesis changes it with add-controller
// (AddRaftVoter) and remove-controller (RemoveRaftVoter); each op's
// details record Kafka's answers, the voter's id and directory id, and
// the quorum before and after. The admin client asks AddRaftVoter with
// AckWhenCommitted, and the leader answers RemoveRaftVoter once the new
// voter set commits, so an answer NONE is an acknowledged, committed
// change: from then on every leader has it (Raft's leader completeness),
// and only a RemoveRaftVoter takes a voter out, only an AddRaftVoter
// (the nemesis's, or the controller's own under auto-join) puts one in.
// An op that ended ok without NONE (the voter set read back showed the
// change after a timeout, or auto-join had made it: already_voter)
// proves no commit, like an info metadata change, and is not judged.
//
// What judges an acknowledged change is every quorum sample asked after
// the op's completion (Sample.Since: an answer received after the ack may
// have been computed before it) that lists the voters, names a leader, and comes from
// the newest epoch seen so far and no older than the newest epoch known
// at the ack (the samples before the completion and the op's own
// quorum_before and quorum_after): a deposed leader of an older epoch
// still answering (split-brain's grace) shows its own log, not the
// quorum's. The samples name voters by id only, so a voter is matched by
// id. The last such sample is the final DescribeQuorum.

// VoterChangeEntry is an acknowledged voter set change that a later
// quorum sample contradicts: an added voter missing with no removal of
// it, or a removed voter voting again with no add of it.
type VoterChangeEntry struct {
	F           string  `json:"f"` // add-controller or remove-controller
	Voter       int32   `json:"voter"`
	DirectoryID string  `json:"directory_id,omitempty"`
	Index       int64   `json:"index"` // the op's completion in the history
	InvokedS    float64 `json:"invoked_s"`
	AckedS      float64 `json:"acked_s"` // the op's completion: Kafka's NONE came before it
	// AckEpoch is the newest leader epoch known at the ack: only samples
	// of this epoch or a newer one judge the change.
	AckEpoch int32 `json:"ack_epoch"`
	// First is the first sample after the ack that contradicts it (for a
	// counted removal, the first that proves it); Final the last sample
	// that judges voters (the final DescribeQuorum); Samples how many
	// after the ack contradict it, of Judged.
	First   VoterSample `json:"first"`
	Final   VoterSample `json:"final"`
	Samples int         `json:"samples"`
	Judged  int         `json:"judged"`
	// Counted: the change is lost for sure. A removed voter that voted
	// again while it may have been running is not counted when the run
	// may have had auto-join on: the verdict is then unknown.
	Counted bool   `json:"counted"`
	Why     string `json:"why"`
}

// VoterSample is one quorum sample as an entry names it.
type VoterSample struct {
	AtS float64 `json:"at_s"`
	// SinceS is the earliest moment the answer can show (Sample.Since).
	SinceS float64 `json:"since_s"`
	Leader int32   `json:"leader"`
	Epoch  int32   `json:"epoch"`
	From   int32   `json:"from,omitempty"`
	Voters []int32 `json:"voters"`
}

func (s VoterSample) String() string {
	return fmt.Sprintf("at %.3f s (asked from %.3f s; leader %d, epoch %d) voters %v", s.AtS, s.SinceS, s.Leader, s.Epoch, s.Voters)
}

// voterOp is a reconfiguration op read from its details.
type voterOp struct {
	nemOp
	node    int32 // -1: the op named none (open, or it failed before choosing)
	dir     string
	acked   bool // Kafka answered NONE
	stopped string
	already bool  // add-controller found it voting before it asked
	epoch   int32 // newest epoch its quorum_before and quorum_after name, -1 none
}

func readVoterOp(o nemOp) voterOp {
	v := voterOp{nemOp: o, node: -1, epoch: -1}
	d := o.Details
	if n, ok := d["node"].(float64); ok {
		v.node = int32(n)
	} else if len(o.Nodes) == 1 {
		v.node = o.Nodes[0]
	}
	v.dir, _ = d["directory_id"].(string)
	v.stopped, _ = d["stopped"].(string)
	v.already = d["already_voter"] != nil
	if as, ok := d["answers"].([]any); ok && len(as) > 0 {
		last, _ := as[len(as)-1].(map[string]any)
		v.acked = last["code"] == "NONE"
	}
	for _, k := range []string{"quorum_before", "quorum_after"} {
		if q, ok := d[k].(map[string]any); ok {
			if e, ok := q["leader_epoch"].(float64); ok {
				v.epoch = max(v.epoch, int32(e))
			}
		}
	}
	return v
}

func (c *Collector) voterOps() []voterOp {
	var out []voterOp
	for _, o := range c.nem {
		if o.F == histories.FAddController || o.F == histories.FRemoveController {
			out = append(out, readVoterOp(o))
		}
	}
	return out
}

// vsample is a sample that can judge voters: a leader, its voters, and
// its epoch the newest seen so far.
type vsample struct {
	at     int64
	since  int64
	epoch  int32
	voters []int32
	VoterSample
}

func (c *Collector) voterSamples() []vsample {
	var out []vsample
	newest := int32(-1)
	for _, s := range c.samples {
		if s.LeaderID < 0 {
			continue
		}
		newest = max(newest, s.LeaderEpoch)
		if len(s.Voters) == 0 || s.LeaderEpoch < newest {
			continue // voters not recorded, or a deposed leader's claim
		}
		ids := s.VoterIDs()
		out = append(out, vsample{at: s.At, since: s.Since, epoch: s.LeaderEpoch, voters: ids,
			VoterSample: VoterSample{AtS: secs(s.At), SinceS: secs(s.Since), Leader: s.LeaderID, Epoch: s.LeaderEpoch, From: s.From, Voters: ids}})
	}
	return out
}

// ackEpoch is the newest epoch known when op completed.
func (c *Collector) ackEpoch(op voterOp) int32 {
	e := op.epoch
	for _, s := range c.samples {
		if s.At > op.Complete {
			break
		}
		if s.LeaderID >= 0 {
			e = max(e, s.LeaderEpoch)
		}
	}
	return e
}

// undoneBy reports whether an op f of voter id (or one whose voter is
// unknown: it never completed) may have taken effect after op was
// invoked and before time t, undoing op's change.
func undoneBy(ops []voterOp, f string, id int32, op voterOp, t int64) bool {
	return slices.ContainsFunc(ops, func(o voterOp) bool {
		return o.F == f && (o.node == id || o.Complete < 0) && o.Invoke < t && (o.Complete < 0 || o.Complete > op.Invoke)
	})
}

// neverStarts are the nemesis ops that stop or cut nodes and never start
// one; any other op (heal, start, restart, lose-unflushed, upgrade,
// set-config, add-controller, one the checker does not know) may.
var neverStarts = []string{histories.FPartition, histories.FPause, histories.FKill, histories.FNetem, histories.FCutClients,
	histories.FMemberKill, histories.FMemberLeave, histories.FMemberStart, histories.FMemberStall,
	histories.FProducerCrash, histories.FStopProducers, histories.FRemoveController}

// downThrough reports whether controller id was down from before the
// removal op could commit until t: the removal stopped it first (stop:
// before), or a kill of it completed before the removal was invoked, and
// no op that may start a node was invoked since. Such a controller could
// not add itself back (auto-join is the controller's own request).
func (c *Collector) downThrough(id int32, op voterOp, t int64) bool {
	from := int64(-1)
	for _, o := range c.nem {
		if o.Invoke >= op.Invoke {
			break
		}
		switch {
		case o.F == histories.FKill && o.Type == histories.OK && slices.Contains(o.Nodes, id) && o.Complete <= op.Invoke:
			from = o.Invoke
		case from >= 0 && mayStart(o.F):
			from = -1
		}
	}
	if op.stopped == "before" {
		from = op.Invoke
	}
	if from < 0 {
		return false
	}
	return !slices.ContainsFunc(c.nem, func(o nemOp) bool { return o.Invoke >= from && o.Invoke <= t && mayStart(o.F) })
}

func mayStart(f string) bool { return !histories.IsBookkeeping(f) && !slices.Contains(neverStarts, f) }

// autoJoinShown is the history's own evidence that controllers auto-join
// ("" none): an add-controller that found its controller voting before
// it asked, or a controller that became a voter with no add-controller of
// it, neither of them ever removed before (a removed one voting again is
// what is being judged, never its own excuse).
func (c *Collector) autoJoinShown(ops []voterOp, ss []vsample) string {
	removedBy := func(id int32, t int64) bool {
		return slices.ContainsFunc(ops, func(o voterOp) bool {
			return o.F == histories.FRemoveController && (o.node == id || o.Complete < 0) && o.Invoke < t
		})
	}
	for _, o := range ops {
		if o.F == histories.FAddController && o.already && o.node >= 0 && !removedBy(o.node, o.Invoke) {
			return fmt.Sprintf("add-controller at %.3f s found controller %d voting before it asked", secs(o.Invoke), o.node)
		}
	}
	for i := 1; i < len(ss); i++ {
		for _, id := range ss[i].voters {
			if slices.Contains(ss[i-1].voters, id) || removedBy(id, ss[i].at) ||
				slices.ContainsFunc(ops, func(o voterOp) bool {
					return o.F == histories.FAddController && (o.node == id || o.Complete < 0) && o.Invoke < ss[i].at
				}) {
				continue
			}
			return fmt.Sprintf("controller %d became a voter at %.3f s with no add-controller of it", id, ss[i].AtS)
		}
	}
	return ""
}

// voterChanges judges every acknowledged voter set change: the entries
// (counted or not), the changes no sample can judge (unknown) and the
// removals auto-join excuses (notes).
func (c *Collector) voterChanges() (out []VoterChangeEntry, unknown, notes []string) {
	ops := c.voterOps()
	ss := c.voterSamples()
	shown := ""
	shownDone := false
	for _, op := range ops {
		if !op.acked || op.Complete < 0 || op.node < 0 {
			continue
		}
		id, add := op.node, op.F == histories.FAddController
		floor := c.ackEpoch(op)
		what := fmt.Sprintf("%s of voter %d%s acknowledged at %.3f s", op.F, id, dirText(op.dir), secs(op.Complete))
		var judged, bad []vsample
		for _, s := range ss {
			if s.since <= op.Complete || s.epoch < floor {
				continue
			}
			judged = append(judged, s)
			if has := slices.Contains(s.voters, id); add && !has && !undoneBy(ops, histories.FRemoveController, id, op, s.at) ||
				!add && has && !undoneBy(ops, histories.FAddController, id, op, s.at) {
				bad = append(bad, s)
			}
		}
		if len(judged) == 0 {
			unknown = append(unknown, fmt.Sprintf("%s: %s (Kafka answered NONE), and no quorum sample asked after it lists the voters in epoch %d or newer: nothing shows whether it held",
				VoterChangeLost, what, floor))
			continue
		}
		if len(bad) == 0 {
			continue
		}
		e := VoterChangeEntry{F: op.F, Voter: id, DirectoryID: op.dir, Index: op.Index, InvokedS: secs(op.Invoke), AckedS: secs(op.Complete),
			AckEpoch: floor, First: bad[0].VoterSample, Final: judged[len(judged)-1].VoterSample, Samples: len(bad), Judged: len(judged), Counted: add}
		var why []string
		if add {
			why = append(why, fmt.Sprintf("%s (epoch %d then): the quorum sample %s lacks %d, and no remove-controller of %d was invoked before it", what, floor, e.First, id, id))
		} else {
			why = append(why, fmt.Sprintf("%s (epoch %d then): the quorum sample %s has %d again, and no add-controller of %d was invoked before it", what, floor, e.First, id, id))
			on, recorded := c.opts.AutoJoin[id]
			down := slices.IndexFunc(bad, func(s vsample) bool { return c.downThrough(id, op, s.at) })
			switch {
			case down >= 0:
				e.Counted, e.First = true, bad[down].VoterSample
				why[0] = fmt.Sprintf("%s (epoch %d then): the quorum sample %s has %d again while it was down (stopped or killed before its removal, and no op that could start it since), and no add-controller of %d was invoked before it",
					what, floor, e.First, id, id)
			case recorded && !on:
				e.Counted = true
				why = append(why, fmt.Sprintf("auto-join is off on %d (run.json: %s not true)", id, AutoJoinKey))
			case recorded:
				notes = append(notes, fmt.Sprintf("%s: %s; %d voted again from %.3f s with no add-controller: auto-join (run.json: %s=true on %d; KAFKA-19850), not a lost removal",
					VoterChangeLost, what, id, e.First.AtS, AutoJoinKey, id))
				continue
			default:
				if !shownDone {
					shown, shownDone = c.autoJoinShown(ops, ss), true
				}
				if shown != "" {
					notes = append(notes, fmt.Sprintf("%s: %s; %d voted again from %.3f s with no add-controller: auto-join, which the history shows (%s; KAFKA-19850), not a lost removal",
						VoterChangeLost, what, id, e.First.AtS, shown))
					continue
				}
				why = append(why, fmt.Sprintf("not counted: %d may have been running, and neither run.json nor the history says whether auto-join (%s) was on: an auto-joining controller adds itself back (KAFKA-19850)", id, AutoJoinKey))
			}
		}
		if e.Samples > 1 || e.Final.AtS != e.First.AtS {
			why = append(why, fmt.Sprintf("%d of the %d samples asked after the ack contradict it; the final one, %s", e.Samples, e.Judged, e.Final))
		}
		e.Why = strings.Join(why, "; ")
		out = append(out, e)
	}
	return out, unknown, notes
}

func dirText(dir string) string {
	if dir == "" {
		return ""
	}
	return " (directory id " + dir + ")"
}

// CountedVoters is the number of voter-change-lost entries that count.
func (x *MetadataAnomalies) CountedVoters() int {
	n := 0
	for _, e := range x.VoterChangeLost {
		if e.Counted {
			n++
		}
	}
	return n
}
