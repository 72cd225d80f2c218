package logorder

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/checker/judge"
	"github.com/kchaos/kchaos/checker/model"
	"github.com/kchaos/kchaos/internal/tally"
)

// explainReuse groups reused offsets into runs of consecutive offsets.
func (a *run) explainReuse() {
	entries := a.out.OffsetReuse
	for i := 0; i < len(entries); {
		j := i + 1
		for j < len(entries) && entries[j].Topic == entries[i].Topic && entries[j].Partition == entries[i].Partition &&
			entries[j].Offset == entries[j-1].Offset+1 {
			j++
		}
		a.explainReuseRun(entries[i:j])
		i = j
	}
}

func (a *run) explainReuseRun(run []OffsetReuseEntry) {
	c := a.c
	tp := c.TPIdx[c.Topics[run[0].Topic]][run[0].Partition]
	t := c.TPs[tp]
	e := judge.Explanation{Kind: OffsetReuse, Topic: t.Topic, Partition: t.Partition,
		FirstOffset: run[0].Offset, LastOffset: run[len(run)-1].Offset, Count: len(run)}
	oldSeen, newSeen := run[0].Values[0].FirstS, run[0].Values[len(run[0].Values)-1].FirstS
	var now []string
	nowEpoch := int32(-1)
	for k := range run {
		r := &run[k]
		first := r.Values[0]
		e.Offsets = append(e.Offsets, r.Offset)
		e.Values = append(e.Values, first.Value)
		acked := 0.0
		if s := c.Vals[c.ValueID(first.Value)].Send; s >= 0 && c.Sends[s].Typ == model.OpOK && c.Sends[s].Off == r.Offset {
			acked = judge.Secs(c.Sends[s].Ret)
		}
		e.AckedS = append(e.AckedS, acked)
		later := r.Values[len(r.Values)-1]
		if fr, ok := judge.FinalAtOf(c, c.TPs[tp].Final, tp, r.Offset); ok {
			later = Observed{Value: c.Vals[fr.Val].Str, LeaderEpochs: []int32{fr.Epoch}}
		}
		now = append(now, later.Value)
		if nowEpoch < 0 && len(later.LeaderEpochs) > 0 {
			nowEpoch = slices.Max(later.LeaderEpochs)
		}
		oldSeen, newSeen = min(oldSeen, first.FirstS), max(newSeen, r.Values[len(r.Values)-1].FirstS)
		r.Range = len(a.expl)
	}
	from, to := int64(oldSeen*1e9), int64(newSeen*1e9)
	e.FaultBefore = a.in.Places.FaultBefore(from)
	e.FaultsAfter = a.in.Places.FaultsBetween(from, to)
	e.RequestsAfter = a.in.Places.RequestsBetween(from, to)
	e.Elections = elections(t, from, to)
	if nowEpoch >= 0 {
		e.TookOver = a.takeover(t, nowEpoch)
	}
	for k := range run {
		run[k].Faults, run[k].Requests = e.FaultsAfter, e.RequestsAfter
	}
	e.NowHold = &judge.NowHold{FirstOffset: e.FirstOffset, LastOffset: e.LastOffset, Count: len(now), Values: now}
	e.Text = reuseText(t.Name(), &e) + requestsText(&e)
	a.expl = append(a.expl, e)
}

// lostText renders a lost-write range as one sentence, for instance
// "orders-0 offsets 61-99: 39 acked records lost; acked while ISR was [0];
// broker 1 became leader at epoch 2 (unclean election, elect-unclean [1]
// at 12.4 s); offsets 61-65 now hold records written after the failure".
func lostText(name string, e *judge.Explanation) string {
	lost := tally.N(e.Count, "acked record", "acked records")
	acked := "acked"
	if n := e.ReadNotAcked; n > 0 {
		lost = fmt.Sprintf("%s (%d acked, %d read but never acked)", tally.N(e.Count, "record", "records"), e.Count-n, n)
		acked = "acked or read"
	}
	parts := []string{fmt.Sprintf("%s %s: %s lost", name, judge.OffsetSpan(e.FirstOffset, e.LastOffset), lost)}
	isr := "ISR at ack not observed"
	if len(e.ISRAtAck) > 0 {
		var s []string
		for _, x := range e.ISRAtAck {
			s = append(s, judge.Ints(x))
		}
		isr = acked + " while ISR was " + strings.Join(s, " then ")
	}
	if e.FaultBefore != nil {
		isr += ", after " + e.FaultBefore.String()
	}
	parts = append(parts, isr)
	parts = append(parts, takeoverText(e)...)
	if n := e.NowHold; n != nil {
		what, verb := "other records", "now hold"
		switch {
		case n.Count == 1 && n.WrittenAfterFailure:
			what, verb = "a record written after the failure", "now holds"
		case n.Count == 1:
			what, verb = "another record", "now holds"
		case n.WrittenAfterFailure:
			what = "records written after the failure"
		}
		parts = append(parts, fmt.Sprintf("%s %s %s", judge.OffsetSpan(n.FirstOffset, n.LastOffset), verb, what))
	}
	if e.LogEnd != nil {
		parts = append(parts, fmt.Sprintf("the log now ends at offset %d", *e.LogEnd))
	}
	return strings.Join(parts, "; ")
}

// reuseText renders a reused-offset range as one sentence.
func reuseText(name string, e *judge.Explanation) string {
	first := fmt.Sprintf("first held %s", valueSpan(e.Values))
	var acked []float64
	for _, s := range e.AckedS {
		if s > 0 {
			acked = append(acked, s)
		}
	}
	if len(acked) > 0 {
		first += fmt.Sprintf(" (acked at %s)", timeSpan(slices.Min(acked), slices.Max(acked)))
	}
	now := "now hold " + valueSpan(e.NowHold.Values)
	parts := []string{fmt.Sprintf("%s %s: %s reused", name, judge.OffsetSpan(e.FirstOffset, e.LastOffset),
		tally.N(e.Count, "offset", "offsets")), first, now}
	parts = append(parts, takeoverText(e)...)
	return strings.Join(parts, "; ")
}

// requestsText names the request faults' actions in the faults' window,
// as a part of its own: they are moments the history holds, never a
// cause of loss (a request fault acts on what a client hears).
func requestsText(e *judge.Explanation) string {
	if w := judge.RequestsWords("request actions between: ", e.RequestsAfter); w != "" {
		return "; " + w
	}
	return ""
}

// takeoverText says who took over and which faults came before.
func takeoverText(e *judge.Explanation) []string {
	var details []string
	if to := e.TookOver; to != nil {
		if w := electionWords(to.Election); w != "" {
			details = append(details, w)
		}
	}
	for _, f := range judge.Decisive(e.FaultsAfter) {
		details = append(details, f.String())
	}
	to := e.TookOver
	if to == nil {
		if len(details) == 0 {
			return nil
		}
		return []string{"after " + strings.Join(details, ", ")}
	}
	var s string
	if to.Leader != nil {
		s = fmt.Sprintf("broker %d became leader at epoch %d", *to.Leader, to.LeaderEpoch)
	} else {
		s = fmt.Sprintf("offset %d now carries leader epoch %d (its leader was not observed)", e.FirstOffset, to.LeaderEpoch)
	}
	if len(details) > 0 {
		s += " (" + strings.Join(details, ", ") + ")"
	}
	return []string{s}
}

func electionWords(kind string) string {
	switch kind {
	case "clean":
		return "clean election"
	case "elr":
		return "elected from the ELR"
	case "last-known-elr":
		return "elected as last known leader"
	case "unclean":
		return "unclean election"
	}
	return ""
}

func valueSpan(v []string) string {
	switch len(v) {
	case 0:
		return "nothing"
	case 1:
		return v[0]
	case 2:
		return v[0] + ", " + v[1]
	}
	return v[0] + " … " + v[len(v)-1]
}

func timeSpan(a, b float64) string {
	if a == b {
		return fmt.Sprintf("%.1f s", a)
	}
	return fmt.Sprintf("%.1f-%.1f s", a, b)
}
