package report

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/checker/groupcheck"
	"github.com/kchaos/kchaos/histories"
)

// The consumer group, one lane per member (docs/HISTORY.md "Consumer
// groups"): the partitions it held over time (from the rebalances its
// processes recorded: held from an assignment to the revoke or loss that
// ended it, or until its process was retired or replaced), its commits
// (ok, fail, info) and rebalances, and a mark on the commit of every
// lost-by-commit range, named in its title; and, in words, each
// delivery-outside-assignment (a member reading a partition its client
// did not hold: a zombie consumer).

// groupView is the group section of a report; nil without a group.
type groupView struct {
	ID      string
	Members []memberRow
	Lost    []string // the lost-by-commit ranges, in words
	Outside []string // the delivery-outside-assignment entries' texts
	// ReadBack says, in words, what each group-final read-back found:
	// what the coordinator held, or that it never answered.
	ReadBack []string
	SVG      svgDoc
}

type memberRow struct {
	Member     string
	Processes  string
	Held       string // per partition, the intervals held
	Rebalances int
	OK, Fail   int
	Info       int
}

// held is one partition held by one member process.
type held struct {
	tp         int32
	start, end int64
}

type commitMark struct {
	at   int64
	inv  int64 // the index of the commit's invoke
	typ  histories.Type
	desc string
	lost string // non-empty: a lost-by-commit range this commit covered
}

type lane struct {
	member string
	procs  []int
	held   []held
	open   map[int32]int64 // partition -> held since (its current process)
	rebals []int64
	commit []commitMark
}

// lostEntry is what the report reads of results.json's lost-by-commit.
type lostEntry struct {
	Topic       string `json:"topic"`
	Partition   int32  `json:"partition"`
	FirstOffset int64  `json:"first_offset"`
	LastOffset  int64  `json:"last_offset"`
	Count       int    `json:"count"`
	Commit      struct {
		Index int64 `json:"index"`
	} `json:"commit"`
}

// groupAnomalies is what the report reads of results.json's group
// anomalies.
type groupAnomalies struct {
	LostByCommit []lostEntry `json:"lost-by-commit"`
	Outside      []struct {
		Text string `json:"text"`
	} `json:"delivery-outside-assignment"`
}

// readBackText is one read-back in words: a coordinator that never
// answered is said first and plainly, since the checker judges nothing
// from it (the metric group_read_backs_unanswered counts it).
func readBackText(r groupcheck.ReadBackStats) string {
	if !r.Judged {
		why := r.Outcome
		if r.Error != "" {
			why += ", last error " + r.Error
		}
		return fmt.Sprintf("read-back at %.1f s: the group coordinator never answered (%s): its state is unknown and nothing is judged from it", r.AtS, why)
	}
	t := fmt.Sprintf("read-back at %.1f s: the coordinator", r.AtS)
	if r.Coordinator != nil {
		t += fmt.Sprintf(" (broker %d)", *r.Coordinator)
	}
	t += fmt.Sprintf(" holds committed offsets for %d partition(s)", len(r.Offsets))
	if len(r.Errors) > 0 {
		t += fmt.Sprintf(", errors for %d", len(r.Errors))
	}
	if r.DescribeError != "" {
		t += "; its description failed: " + r.DescribeError
	} else if r.Type != "" {
		t += fmt.Sprintf("; a %s group, %s, %d member(s)", r.Type, r.State, r.Members)
	}
	if r.CommitLost > 0 {
		t += fmt.Sprintf("; %d partition(s) below an acknowledged commit (commit-lost)", r.CommitLost)
	}
	return t
}

// groupResults is what the report reads of results.json for the group
// section: the lost-by-commit and delivery-outside-assignment entries, and
// the coordinator's read-backs (stats.groups.read_back).
type groupResults struct {
	Anomalies groupAnomalies `json:"anomalies"`
	Stats     struct {
		Groups struct {
			ReadBack []groupcheck.ReadBackStats `json:"read_back"`
		} `json:"groups"`
	} `json:"stats"`
}

// readGroupResults reads them in one pass over results.json, if any (a
// run without results shows its lanes unmarked).
func readGroupResults(dir string) groupResults {
	var r groupResults
	b, err := histories.ReadRegular(filepath.Join(dir, ResultsFile))
	if err != nil || json.Unmarshal(b, &r) != nil {
		return groupResults{}
	}
	return r
}

// groupScan follows the group ops of a pass: the lanes, their commits
// (each with the index of its invoke, for the lost-by-commit marks that
// results.json gives after the pass) and rebalances.
type groupScan struct {
	lanes    map[string]*lane
	byProc   map[int]*lane
	commitAt map[int]int64 // process -> index of its open commit invoke
	group    string
}

func newGroupScan() *groupScan {
	return &groupScan{lanes: map[string]*lane{}, byProc: map[int]*lane{}, commitAt: map[int]int64{}}
}

// release ends l's hold of partition p at time at.
func (l *lane) release(p int32, at int64) {
	if s, ok := l.open[p]; ok {
		l.held = append(l.held, held{p, s, at})
		delete(l.open, p)
	}
}

// add takes one event of the pass (any: it picks the group ops).
func (g *groupScan) add(e *histories.Event) {
	switch e.F {
	case histories.FSubscribe:
		var v histories.SubscribeValue
		if e.Decode(&v) != nil || e.Type != histories.OK {
			return
		}
		g.group = v.Group
		l := g.lanes[v.Member]
		if l == nil {
			l = &lane{member: v.Member, open: map[int32]int64{}}
			g.lanes[v.Member] = l
		}
		// A new process of the member: what its predecessor held
		// ended with it.
		for p := range l.open {
			l.release(p, e.Time)
		}
		l.procs = append(l.procs, e.Process)
		g.byProc[e.Process] = l
	case histories.FRebalance:
		l := g.byProc[e.Process]
		var v histories.RebalanceValue
		if l == nil || e.Type != histories.OK || e.Decode(&v) != nil {
			return
		}
		l.rebals = append(l.rebals, e.Time)
		for _, p := range slices.Concat(v.Revoked, v.Lost) {
			l.release(p, e.Time)
		}
		for _, p := range v.Assigned {
			if _, ok := l.open[p]; !ok {
				l.open[p] = e.Time
			}
		}
	case histories.FCommit:
		l := g.byProc[e.Process]
		if l == nil {
			return
		}
		if e.Type == histories.Invoke {
			g.commitAt[e.Process] = e.Index
			return
		}
		var v histories.CommitValue
		_ = e.Decode(&v)
		var parts []string
		for _, p := range histories.SortedPartitions(v.Offsets) {
			parts = append(parts, fmt.Sprintf("%d@%d", p, v.Offsets[histories.PartitionKey(p)]))
		}
		m := commitMark{at: e.Time, typ: e.Type, inv: g.commitAt[e.Process], desc: fmt.Sprintf("commit %s by p%d at %s: %s", e.Type, e.Process, secs(e.Time), strings.Join(parts, " "))}
		if e.Error != "" {
			m.desc += " (" + e.Error + ")"
		}
		l.commit = append(l.commit, m)
	}
}

// section is the group section of the run folder dir (its results.json
// marks the commits that covered lost-by-commit ranges), end the
// history's last time; nil when the run had no group. Call it once: it
// ends the lanes' open holds at end.
func (g *groupScan) section(dir string, end int64) *groupView {
	lanes := g.lanes
	if len(lanes) == 0 {
		return nil
	}
	lost := map[int64][]lostEntry{} // commit invoke index -> ranges it covered
	results := readGroupResults(dir)
	found := results.Anomalies
	for _, e := range found.LostByCommit {
		lost[e.Commit.Index] = append(lost[e.Commit.Index], e)
	}
	for _, l := range lanes {
		for i := range l.commit {
			m := &l.commit[i]
			for _, le := range lost[m.inv] {
				m.lost += fmt.Sprintf("lost by commit: %s-%d offsets %d-%d (%d records) ", le.Topic, le.Partition, le.FirstOffset, le.LastOffset, le.Count)
			}
		}
	}
	group := g.group

	names := slices.Sorted(maps.Keys(lanes))
	gv := &groupView{ID: group}
	for _, e := range found.Outside {
		gv.Outside = append(gv.Outside, "delivery outside the assignment: "+e.Text)
	}
	for _, r := range results.Stats.Groups.ReadBack {
		if r.Group == group {
			gv.ReadBack = append(gv.ReadBack, readBackText(r))
		}
	}
	for _, n := range names {
		l := lanes[n]
		for p := range l.open {
			l.release(p, end)
		}
		row := memberRow{Member: n, Rebalances: len(l.rebals)}
		var ps []string
		for _, p := range l.procs {
			ps = append(ps, fmt.Sprintf("p%d", p))
		}
		row.Processes = strings.Join(ps, " ")
		byTP := map[int32][]string{}
		for _, h := range l.held {
			byTP[h.tp] = append(byTP[h.tp], bareSecs(h.start)+"-"+secs(h.end))
		}
		var hs []string
		for _, p := range slices.Sorted(func(y func(int32) bool) {
			for p := range byTP {
				if !y(p) {
					return
				}
			}
		}) {
			hs = append(hs, fmt.Sprintf("%d: %s", p, strings.Join(byTP[p], ", ")))
		}
		row.Held = strings.Join(hs, "; ")
		for _, c := range l.commit {
			switch c.typ {
			case histories.OK:
				row.OK++
			case histories.Fail:
				row.Fail++
			default:
				row.Info++
			}
			if c.lost != "" {
				gv.Lost = append(gv.Lost, strings.TrimSpace(c.lost)+" ("+c.desc+", member "+n+")")
			}
		}
		gv.Members = append(gv.Members, row)
	}
	gv.SVG = groupSVG(names, lanes, end)
	return gv
}

// groupSVG draws one lane per member: a thin bar per partition held,
// ticks for commits (green ok, grey fail, orange info, red when it
// covered records lost by commit) and rebalances (blue).
func groupSVG(names []string, lanes map[string]*lane, end int64) svgDoc {
	const left, width, rowH = 110.0, 1000.0, 14.0
	parts := map[int32]bool{}
	for _, l := range lanes {
		for _, h := range l.held {
			parts[h.tp] = true
		}
	}
	np := max(len(parts), 1)
	laneH := float64(np)*rowH/2 + 26
	doc := svgDoc{W: left + width + 20, H: 30 + laneH*float64(len(names)), Label: "consumer group lanes"}
	x := func(t int64) float64 {
		if end <= 0 {
			return left
		}
		return left + width*float64(t)/float64(end)
	}
	for i := 0; i <= 10; i++ {
		t := end * int64(i) / 10
		doc.Under = append(doc.Under, el{Kind: "line", X: x(t), Y: 16, X2: x(t), Y2: doc.H, Stroke: "#eee", SW: 1})
		doc.Els = append(doc.Els, el{Kind: "text", X: x(t), Y: 12, Anchor: "middle", Class: "tick", Text: secs(t)})
	}
	for i, n := range names {
		l := lanes[n]
		y0 := 24 + laneH*float64(i)
		doc.Els = append(doc.Els, el{Kind: "text", X: 4, Y: y0 + 12, Class: "lane-head", Text: n})
		for _, h := range l.held {
			y := y0 + 18 + float64(h.tp)*rowH/2
			doc.Els = append(doc.Els, el{Kind: "rect", X: x(h.start), Y: y, W: max(x(h.end)-x(h.start), 1), H: rowH/2 - 1,
				Fill: "#4a7fc1", Opacity: 0.7, Title: fmt.Sprintf("%s holds partition %d from %s to %s", n, h.tp, bareSecs(h.start), secs(h.end))})
		}
		for _, t := range l.rebals {
			doc.Els = append(doc.Els, el{Kind: "line", X: x(t), Y: y0 + 2, X2: x(t), Y2: y0 + 16, Stroke: "#1f5fa8", SW: 1})
		}
		for _, c := range l.commit {
			color := map[histories.Type]string{histories.OK: "#2e8b57", histories.Fail: "#888", histories.Info: "#d68910"}[c.typ]
			title := c.desc
			if c.lost != "" {
				color, title = "#c0392b", c.lost+"— "+c.desc
			}
			doc.Els = append(doc.Els, el{Kind: "rect", X: x(c.at) - 1, Y: y0 + 4, W: 2, H: 10, Fill: color, Title: title})
		}
	}
	return doc
}

// bareSecs is secs without its unit, for the start of a range.
func bareSecs(t int64) string { return strings.TrimSuffix(secs(t), " s") }
