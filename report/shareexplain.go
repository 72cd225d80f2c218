package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/checker/share"
)

// The share group's section of report.md and report.html: a row per
// member, the redeliveries by cause, the start offsets the group
// reported beside the log end, and each share anomaly the checker found
// (results.json), in words: its record, the members and delivery counts
// of its deliveries with their acks, and the faults around it.

// maxExplained bounds the explanations of one kind on the page; the rest
// are counted and left to results.json.
const maxExplained = 20

type shareView struct {
	Group, Topic string
	LockMS       int64
	Limit        int32
	Members      []shareMemberRow
	Causes       []causeRow
	Offsets      []spsoRow
}

type shareMemberRow struct {
	Member, Processes string
	N                 [shKinds]int
	Faults, Ended     int
}

type causeRow struct {
	Cause              string
	Redeliveries, Recs int
	Unseen, WithFaults int
}

type spsoRow struct {
	Partition     int32
	At            string
	Start, LogEnd int64
	FinalEnd      string
	Drained       string
	Error         string
}

// RowNames are the lane rows' names, for the page's table head.
func (*shareView) RowNames() [shKinds]string { return shareRowNames }

// shareSection is the share group's section; nil without a share group.
func shareSection(s *shareScan, res *results, nem []nemOp) *shareView {
	if !s.used() {
		return nil
	}
	sv := &shareView{Group: s.group, Topic: s.topic, LockMS: s.lockMS, Limit: s.limit}
	for _, l := range s.members() {
		row := shareMemberRow{Member: l.name, N: l.total, Ended: len(l.ended)}
		var ps []string
		for _, p := range l.procs {
			ps = append(ps, fmt.Sprintf("p%d", p))
		}
		row.Processes = strings.Join(ps, " ")
		for _, op := range nem {
			if op.Value.Details["member"] == l.name {
				row.Faults++
			}
		}
		sv.Members = append(sv.Members, row)
	}
	for _, pt := range s.spso {
		ps := slices.Sorted(func(y func(int32) bool) {
			for p := range pt.start {
				if !y(p) {
					return
				}
			}
			for p := range pt.errs {
				if _, ok := pt.start[p]; !ok && !y(p) {
					return
				}
			}
		})
		for _, p := range ps {
			row := spsoRow{Partition: p, At: secs(pt.at), Start: -1, LogEnd: valueAt(s.logEndOf(p), pt.at), Drained: yesNo(pt.done), Error: pt.errs[p]}
			if o, ok := pt.start[p]; ok {
				row.Start = o
			}
			if fe, ok := s.finalEnd[p]; ok {
				row.FinalEnd = fmt.Sprint(fe)
			}
			sv.Offsets = append(sv.Offsets, row)
		}
	}
	if res != nil {
		sv.Causes = causeRows(res.Anoms.ShareRedelivery)
	}
	return sv
}

// causeRows counts the checker's redeliveries by their cause.
func causeRows(rs []share.RedeliveryEntry) []causeRow {
	by := map[string]*causeRow{}
	recs := map[string]map[[2]int64]bool{}
	for _, r := range rs {
		c := by[r.Cause]
		if c == nil {
			c = &causeRow{Cause: r.Cause}
			by[r.Cause], recs[r.Cause] = c, map[[2]int64]bool{}
		}
		c.Redeliveries++
		c.Unseen += int(r.Unseen)
		if len(r.Faults) > 0 {
			c.WithFaults++
		}
		recs[r.Cause][[2]int64{int64(r.Partition), r.Offset}] = true
	}
	var out []causeRow
	for _, k := range slices.Sorted(maps.Keys(by)) {
		by[k].Recs = len(recs[k])
		out = append(out, *by[k])
	}
	return out
}

// explainEach appends the first maxExplained of n entries of kind, in
// words, and a count of the rest.
func explainEach(out []explanation, kind string, n int, text func(i int) string) []explanation {
	for i := 0; i < min(n, maxExplained); i++ {
		out = append(out, explanation{Kind: kind, Text: text(i)})
	}
	if n > maxExplained {
		out = append(out, explanation{Kind: kind, Text: fmt.Sprintf("... and %d more in results.json", n-maxExplained)})
	}
	return out
}

// shareExplanations are the share anomalies of res in words, at most
// maxExplained of each kind.
func shareExplanations(res *results, topic string) []explanation {
	if res == nil {
		return nil
	}
	a := &res.Anoms
	var out []explanation
	add := func(kind string, n int, text func(i int) string) { out = explainEach(out, kind, n, text) }
	rec := func(p int32, o int64, v string) string {
		return fmt.Sprintf("%s-%d offset %d (value %q)", topic, p, o, v)
	}
	records := func(kind string, es []share.RecordEntry) {
		add(kind, len(es), func(i int) string {
			e := es[i]
			return rec(e.Partition, e.Offset, e.Value) + ": " + e.Reason + deliveriesText(e.Deliveries...) + faultsText(e.Faults) + requestsText(e.Requests) + leaderText(e.LeaderMoved)
		})
	}
	pairs := func(kind string, es []share.PairEntry) {
		add(kind, len(es), func(i int) string {
			e := es[i]
			return rec(e.Partition, e.Offset, e.Value) + ": " + e.Reason + deliveriesText(e.First, e.Second) + faultsText(e.Faults) + requestsText(e.Requests) + leaderText(e.LeaderMoved)
		})
	}
	records(share.Lost, a.ShareLost)
	pairs(share.DoubleAcquire, a.ShareDoubleAcquire)
	pairs(share.RedeliveredAfterAccept, a.ShareRedeliveredAfterAccept)
	add(share.DeliveryCount, len(a.ShareDeliveryCount), func(i int) string {
		e := a.ShareDeliveryCount[i]
		return rec(e.Partition, e.Offset, e.Value) + ": " + e.Reason + deliveriesText(e.Delivery)
	})
	records(share.Unknown, a.ShareUnknown)
	return out
}

// deliveriesText names each delivery: member, process, count, when, and
// what its acks became.
func deliveriesText(ds ...share.Delivery) string {
	if len(ds) == 0 {
		return "; never delivered"
	}
	var parts []string
	for _, d := range ds {
		s := fmt.Sprintf("%s (p%d) delivery %d at %.3f s", d.Member, d.Process, d.DeliveryCount, d.DeliveredS)
		var acks []string
		for _, a := range d.Acks {
			t := a.Status + " " + a.Outcome
			if a.Outcome == "" {
				t = a.Status + " unknown"
			}
			if a.DoneS != nil {
				t += fmt.Sprintf(" at %.3f s", *a.DoneS)
			} else {
				t += fmt.Sprintf(" (invoked at %.3f s, never completed)", a.InvokedS)
			}
			if a.Error != "" {
				t += " (" + a.Error + ")"
			}
			acks = append(acks, t)
		}
		if len(acks) == 0 {
			acks = []string{"no ack"}
		}
		parts = append(parts, s+": "+strings.Join(acks, ", "))
	}
	return "; deliveries: " + strings.Join(parts, "; ")
}

func faultsText(fs []string) string {
	if len(fs) == 0 {
		return "; no fault around it"
	}
	return "; faults around it: " + strings.Join(fs, ", ")
}

// leaderText names the leader move the checker saw around a record
// (share.RecordEntry.LeaderMoved); nothing without one.
func leaderText(m string) string {
	if m == "" {
		return ""
	}
	return "; " + m
}

// requestsText names the request faults' actions around a record (the
// checker's requests, beside its faults); nothing without any.
func requestsText(rs []string) string {
	if len(rs) == 0 {
		return ""
	}
	return "; request actions around it: " + strings.Join(rs, ", ")
}
