package groupcheck

import (
	"cmp"
	"slices"

	"github.com/kchaos/kchaos/checker/judge"
	"github.com/kchaos/kchaos/histories"
)

// killedAt finds the member processes that a member fault took away: a
// member-kill or member-leave (done, ok) names its member in
// details.member, and ends the process of that member that subscribed
// last before it. A killed process records nothing more, so without this
// it would seem to hold its partitions to the end.
func (a *run) killedAt() map[int32]int64 {
	c := a.c
	out := map[int32]int64{}
	for _, op := range c.Nem {
		if (op.F != histories.FMemberKill && op.F != histories.FMemberLeave) || op.Typ != histories.OK {
			continue
		}
		name, _ := op.V.Details["member"].(string)
		best, bestAt := int32(-1), int64(-1)
		for p, m := range c.Members {
			if m.Name == name && m.SubAt <= op.Call && m.SubAt > bestAt {
				best, bestAt = p, m.SubAt
			}
		}
		if best >= 0 {
			if g, ok := c.GoneAt[best]; !ok || g > op.Call {
				out[best] = op.Call
			}
		}
	}
	return out
}

// groupStats describes the groups; nil without any.
func (a *run) groupStats() *GroupStats {
	c := a.c
	if len(c.GroupNames.List) == 0 {
		return nil
	}
	st := &GroupStats{Groups: len(c.GroupNames.List), Processes: len(c.Members), Rebalances: len(c.Rebals),
		Redelivered: a.redeliveredN, LostByCommit: a.lostByCommitN}
	names := map[string]bool{}
	for _, m := range c.Members {
		names[c.GroupNames.List[m.Group]+"\x00"+m.Name] = true
	}
	st.Members = len(names)
	for i := range c.Commits {
		if st.Commits == nil {
			st.Commits = map[string]int{}
		}
		st.Commits[typName(c.Commits[i].Typ)]++
		if c.Commits[i].Auto {
			st.Commits["auto"]++
		}
	}
	for _, ds := range a.dels {
		st.Delivered += len(ds)
	}
	st.UnassignedS = a.unassigned()
	st.ReadBack = a.readBackStats()
	return st
}

// unassigned measures, per partition, the seconds from its first
// assignment to the last group event during which no live member of any
// group held it (a member holds a partition from the rebalance that
// assigned it to the one that revoked or lost it, or until an info retired
// its process).
func (a *run) unassigned() map[string]float64 {
	c := a.c
	if len(c.Rebals) == 0 {
		return nil
	}
	type ev struct {
		at    int64
		proc  int32
		tp    int32
		delta int // +1 held, -1 released; 0 a process retired
	}
	var evs []ev
	end := int64(0)
	// A process whose client another continues holds what it held
	// through it (model.Groups.HeldBy): its events count as the last one's.
	for _, r := range c.Rebals {
		p := c.HeldBy(r.Proc)
		for _, tp := range slices.Concat(r.Revoked, r.Lost) {
			evs = append(evs, ev{r.At, p, tp, -1})
		}
		for _, tp := range r.Assigned {
			evs = append(evs, ev{r.At, p, tp, +1})
		}
		end = max(end, r.At)
	}
	for p, at := range c.GoneAt {
		evs = append(evs, ev{at, c.HeldBy(p), -1, 0})
		end = max(end, at)
	}
	for p, at := range a.killedAt() {
		evs = append(evs, ev{at, c.HeldBy(p), -1, 0})
	}
	for _, gp := range c.GPolls {
		end = max(end, c.Polls[gp.Poll].Ret)
	}
	for i := range c.Commits {
		end = max(end, c.Commits[i].Ret)
	}
	slices.SortStableFunc(evs, func(x, y ev) int { return cmp.Compare(x.at, y.at) })
	held := map[procTP]bool{}
	count := map[int32]int{}
	since := map[int32]int64{} // tp -> when it lost its last holder
	total := map[int32]int64{}
	release := func(k procTP, at int64) {
		if !held[k] {
			return
		}
		delete(held, k)
		if count[k.tp]--; count[k.tp] == 0 {
			since[k.tp] = at
		}
	}
	for _, e := range evs {
		switch {
		case e.delta == 0:
			for k := range held {
				if k.proc == e.proc {
					release(k, e.at)
				}
			}
		case e.delta < 0:
			release(procTP{e.proc, e.tp}, e.at)
		default:
			k := procTP{e.proc, e.tp}
			if held[k] {
				continue
			}
			held[k] = true
			if s, ok := since[e.tp]; ok && count[e.tp] == 0 {
				total[e.tp] += e.at - s
				delete(since, e.tp)
			}
			if _, ok := total[e.tp]; !ok {
				total[e.tp] = 0
			}
			count[e.tp]++
		}
	}
	for tp, s := range since {
		if count[tp] == 0 {
			total[tp] += end - s
		}
	}
	out := map[string]float64{}
	for tp, d := range total {
		out[c.TPs[tp].Name()] = judge.Secs(d)
	}
	return out
}
