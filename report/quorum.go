package report

import (
	"fmt"
	"maps"
	"slices"

	"github.com/kchaos/kchaos/histories"
)

// The KRaft quorum's lane (docs/HISTORY.md, `quorum` events): the active
// controller and its epoch over time as the observer's DescribeQuorum
// samples saw them, the leader changes (with how long no leader was
// seen), each voter's lag behind the leader, and, in words, the metadata
// anomalies the checker found (results.json; quorumexplain.go).

// qSample is one quorum sample, kept only when its state changed.
type qSample struct {
	at     int64
	v      histories.QuorumValue
	leader string // "none" or the id
}

type quorumScan struct{ samples []qSample }

func (q *quorumScan) used() bool { return q != nil && len(q.samples) > 0 }

// add takes one of the observer's quorum samples (the pass's Timeline
// decoded them); it keeps those whose state changed (a heartbeat sample
// repeats the last one).
func (q *quorumScan) add(at int64, v histories.QuorumValue) {
	if n := len(q.samples); n > 0 && q.samples[n-1].v.SameState(v) {
		return
	}
	s := qSample{at: at, v: v, leader: "none"}
	if v.LeaderID >= 0 {
		s.leader = fmt.Sprint(v.LeaderID)
	}
	q.samples = append(q.samples, s)
}

type quorumView struct {
	Samples       int
	Changes       []leaderChange
	MoreChanges   int // changes not listed (maxExplained)
	NoLeader      []interval
	NoLeaderTotal float64
	Voters        []voterRow
	Terms         []termRow
}

// leaderChange is a new leader or epoch; Gap is the time from the last
// sample that named the previous leader to the first that named this one
// (a sample is recorded on a change or on the observer's heartbeat, and a
// failed DescribeQuorum records none, so it bounds from above how long
// no leader was seen).
type leaderChange struct {
	At, From, To string
	Gap          float64
	None         bool // samples between them named no leader
}

type voterRow struct {
	ID           int32
	MaxLag, Last int64
	LaggingS     float64 // time the samples showed it behind the leader
	Unknown      float64 // time its lag was unknown (-1) while a voter
}

type termRow struct {
	Epoch, Leader int32
	First, Last   string
	Stale         string
}

// quorumSection is the quorum's section; nil without quorum samples.
func quorumSection(q *quorumScan, res *results, end int64) *quorumView {
	if !q.used() {
		return nil
	}
	qv := &quorumView{Samples: len(q.samples)}
	var lastLed *qSample // the last sample that named a leader
	none := false
	var open *interval
	for i := range q.samples {
		s := &q.samples[i]
		if s.v.LeaderID < 0 {
			none = true
			if open == nil {
				open = &interval{Start: s.at, Cause: "DescribeQuorum named no leader"}
			}
			continue
		}
		if open != nil {
			open.End = s.at
			qv.NoLeader = append(qv.NoLeader, *open)
			open = nil
		}
		if lastLed != nil && (lastLed.v.LeaderID != s.v.LeaderID || lastLed.v.LeaderEpoch != s.v.LeaderEpoch) {
			from := fmt.Sprintf("%d (epoch %d)", lastLed.v.LeaderID, lastLed.v.LeaderEpoch)
			to := fmt.Sprintf("%d (epoch %d)", s.v.LeaderID, s.v.LeaderEpoch)
			if len(qv.Changes) < maxExplained {
				qv.Changes = append(qv.Changes, leaderChange{At: secs(s.at), From: from, To: to, Gap: float64(s.at-lastLed.at) / 1e9, None: none})
			} else {
				qv.MoreChanges++
			}
		}
		lastLed, none = s, false
	}
	if open != nil {
		open.End, open.Cause = max(end, open.Start), open.Cause+" (until the end of the history)"
		qv.NoLeader = append(qv.NoLeader, *open)
	}
	for _, iv := range qv.NoLeader {
		qv.NoLeaderTotal += iv.seconds()
	}
	qv.Voters = voterRows(q.samples, end)
	if res != nil {
		for _, t := range res.Terms {
			row := termRow{Epoch: t.Epoch, Leader: t.Leader, First: fmt.Sprintf("%.3f s", t.FirstS), Last: fmt.Sprintf("%.3f s", t.LastS)}
			switch {
			case t.StaleS < 0:
				row.Stale = "not superseded"
			case t.StaleS == 0:
				row.Stale = "never after a newer epoch"
			default:
				row.Stale = fmt.Sprintf("%.3f s after a newer epoch", t.StaleS)
			}
			qv.Terms = append(qv.Terms, row)
		}
	}
	return qv
}

// NoLeaderText says how long the samples named no leader, and when.
func (qv *quorumView) NoLeaderText() string {
	s := fmt.Sprintf("No leader named for %.3f s", qv.NoLeaderTotal)
	for i, iv := range qv.NoLeader {
		sep := ", "
		if i == 0 {
			sep = " ("
		}
		s += sep + bareSecs(iv.Start) + "-" + secs(iv.End)
		if i == len(qv.NoLeader)-1 {
			s += ")"
		}
	}
	return s
}

// voterRows sums each voter's lag over the samples: a sample's lag holds
// until the next sample.
func voterRows(ss []qSample, end int64) []voterRow {
	by := map[int32]*voterRow{}
	for i, s := range ss {
		next := end
		if i+1 < len(ss) {
			next = ss[i+1].at
		}
		dt := float64(max(next-s.at, 0)) / 1e9
		for _, r := range s.v.Voters {
			row := by[r.ID]
			if row == nil {
				row = &voterRow{ID: r.ID}
				by[r.ID] = row
			}
			row.Last = r.Lag
			switch {
			case r.Lag < 0:
				row.Unknown += dt
			case r.Lag > 0:
				row.LaggingS += dt
				row.MaxLag = max(row.MaxLag, r.Lag)
			}
		}
	}
	var out []voterRow
	for _, id := range slices.Sorted(maps.Keys(by)) {
		out = append(out, *by[id])
	}
	return out
}

// quorumLanes draws the quorum under the fault lane: the active
// controller, its epoch, a dashed mark at each leader change (from the
// last leader named to the next one, as the section lists them), and a lag
// lane per voter (green caught up, yellow behind, grey unknown; no bar
// while it was not a voter).
func (c *canvas) quorumLanes(q *quorumScan) {
	if !q.used() {
		return
	}
	c.text(8, c.y+12, "KRaft quorum", "start", "part-head")
	c.y += laneH
	top := c.y
	var leader, epoch []runPt
	for _, s := range q.samples {
		fill := "#e74c3c"
		if s.v.LeaderID >= 0 {
			fill = brokerColors[int(s.v.LeaderID)%len(brokerColors)]
		}
		leader = append(leader, runPt{s.at, s.leader, fill})
		epoch = append(epoch, runPt{s.at, fmt.Sprint(s.v.LeaderEpoch), []string{"#e3e3e3", "#cfcfcf"}[int(s.v.LeaderEpoch)&1]})
	}
	c.runLane("active controller", leader)
	c.runLane("controller epoch", epoch)
	ids := map[int32]bool{}
	for _, s := range q.samples {
		for _, r := range s.v.Voters {
			ids[r.ID] = true
		}
	}
	for _, id := range slices.Sorted(maps.Keys(ids)) {
		var pts []runPt
		for _, s := range q.samples {
			i := slices.IndexFunc(s.v.Voters, func(r histories.QuorumReplica) bool { return r.ID == id })
			switch {
			case i < 0:
				pts = append(pts, runPt{s.at, "", ""}) // not a voter: no bar
			case s.v.Voters[i].Lag < 0:
				pts = append(pts, runPt{s.at, "?", "#d5d5d5"})
			case s.v.Voters[i].Lag == 0:
				pts = append(pts, runPt{s.at, "0", "#b7e1b0"})
			default:
				pts = append(pts, runPt{s.at, fmt.Sprint(s.v.Voters[i].Lag), "#f5d98b"})
			}
		}
		c.runLane(fmt.Sprintf("voter %d lag", id), pts)
	}
	var last *qSample // the last sample that named a leader
	for i := range q.samples {
		b := &q.samples[i]
		if b.v.LeaderID < 0 {
			continue
		}
		if a := last; a != nil && (a.v.LeaderID != b.v.LeaderID || a.v.LeaderEpoch != b.v.LeaderEpoch) {
			x := c.x(b.at)
			c.add(el{Kind: "line", X: x, Y: top, X2: x, Y2: c.y, Stroke: "#8e44ad", SW: 1.5, Dash: "3 2", Class: "leader-change"})
			c.rect(x-2, top, 4, laneH, "#8e44ad", "leader-change", fmt.Sprintf("leader %s (epoch %d) to %s (epoch %d) at %s",
				a.leader, a.v.LeaderEpoch, b.leader, b.v.LeaderEpoch, secs(b.at)))
		}
		last = b
	}
	c.y += 8
}

// runPt is a lane's state from time t on; an empty label draws nothing.
type runPt struct {
	t           int64
	label, fill string
}

// runLane draws one lane of states, a box per run of equal labels, at
// most one run per pixel (the latest state of the pixel wins), as the
// partition lanes are drawn.
func (c *canvas) runLane(name string, pts []runPt) {
	c.text(24, c.y+13, name, "start", "lane")
	var runs []runPt
	for _, p := range pts {
		if n := len(runs); n > 0 && runs[n-1].label == p.label {
			continue
		}
		if n := len(runs); n > 0 && int(c.x(runs[n-1].t)) == int(c.x(p.t)) {
			runs[n-1].label, runs[n-1].fill = p.label, p.fill
			continue
		}
		runs = append(runs, p)
	}
	for i, r := range runs {
		if r.label == "" {
			continue
		}
		end := c.t1
		if i+1 < len(runs) {
			end = runs[i+1].t
		}
		x0, x1 := c.x(r.t), c.x(end)
		c.rect(x0, c.y+1, max(x1-x0, 1), laneH-2, r.fill, "lane-seg", fmt.Sprintf("%s %s from %s to %s", name, r.label, secs(r.t), secs(end)))
		if float64(len(r.label))*charPx+4 < x1-x0 {
			c.text(x0+2, c.y+13, r.label, "start", "seg-label")
		}
	}
	c.y += laneH
}

// text is the leader change in words.
func (l leaderChange) Text() string {
	s := fmt.Sprintf("at %s: leader %s → %s", l.At, l.From, l.To)
	s += fmt.Sprintf(", %.3f s after the last sample naming the old leader", l.Gap)
	if l.None {
		s += "; samples between them named no leader"
	}
	return s
}
