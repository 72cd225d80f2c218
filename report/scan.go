package report

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"

	"github.com/kchaos/kchaos/histories"
)

// maxBins bounds the number of time bins. The history is streamed once and
// its length is not known in advance, so bins start narrow and pairs are
// merged (width doubled) whenever the count would pass maxBins: memory and
// page size stay bounded whatever the history's length, and a bin is never
// narrower than a pixel-ish fraction of the plot.
const maxBins = 400

// tp is a topic-partition.
type tp struct {
	Topic     string
	Partition int32
}

func (t tp) String() string {
	if t.Topic == "" {
		return fmt.Sprintf("partition %d", t.Partition)
	}
	return fmt.Sprintf("%s-%d", t.Topic, t.Partition)
}

// state is one observed partition state; the timeline keeps only changes.
type state struct {
	Time   int64
	Leader int32
	Epoch  int32
	ISR    []int32
	ELR    []int32
	LKELR  []int32
}

func (s state) same(o state) bool {
	return s.Leader == o.Leader && s.Epoch == o.Epoch && slices.Equal(s.ISR, o.ISR) &&
		slices.Equal(s.ELR, o.ELR) && slices.Equal(s.LKELR, o.LKELR)
}

// span is the offset range of some acked sends in one bin.
type span struct {
	Min, Max int64
	N        int
}

func (s *span) add(o int64) {
	if s.N == 0 || o < s.Min {
		s.Min = o
	}
	if s.N == 0 || o > s.Max {
		s.Max = o
	}
	s.N++
}

func (s *span) merge(o span) {
	if o.N == 0 {
		return
	}
	if s.N == 0 {
		*s = o
		return
	}
	s.Min, s.Max, s.N = min(s.Min, o.Min), max(s.Max, o.Max), s.N+o.N
}

// offBin is one partition's acked sends in one bin, by how they ended up.
type offBin struct{ Acked, Lost, Reused span }

// bin aggregates send completions in one time slice.
type bin struct {
	OK, Fail, Info int
	LatSum, LatMax int64 // of ok sends, ns
	LatN           int
	Parts          []offBin // by partition index
}

func (b *bin) merge(o *bin) {
	b.OK, b.Fail, b.Info = b.OK+o.OK, b.Fail+o.Fail, b.Info+o.Info
	b.LatSum, b.LatMax, b.LatN = b.LatSum+o.LatSum, max(b.LatMax, o.LatMax), b.LatN+o.LatN
	for len(b.Parts) < len(o.Parts) {
		b.Parts = append(b.Parts, offBin{})
	}
	for i := range o.Parts {
		b.Parts[i].Acked.merge(o.Parts[i].Acked)
		b.Parts[i].Lost.merge(o.Parts[i].Lost)
		b.Parts[i].Reused.merge(o.Parts[i].Reused)
	}
}

// part is what the timeline knows of one partition.
type part struct {
	TP                  tp
	States              []state
	MaxOffset           int64
	Acked, Lost, Reused int
	// EpochStart is, from the final read, the first offset of each leader
	// epoch: an epoch that starts inside the acked range is the trace an
	// unclean election leaves (the divergence offset).
	EpochStart map[int32]int64
}

// nemOp is one nemesis op: its invoke and completion.
type nemOp struct {
	F          string
	Value      histories.NemesisValue
	Start, End int64
	Type       histories.Type // of the completion; "" if none was recorded
}

// timeline is the streamed summary of a history: everything the charts
// and tables need, in memory bounded by maxBins and by the number of
// partition state changes and nemesis ops.
type timeline struct {
	End, Events int64
	Torn        bool
	Width       int64 // bin width, ns
	Bins        []bin
	Parts       []*part // in first-seen order: the index into bin.Parts
	partIdx     map[tp]int
	Nemesis     []nemOp
	Errors      map[string]map[string]int         // code -> f -> count
	Ops         map[string]map[histories.Type]int // f -> completion type -> count
	// The share group's and the KRaft quorum's lanes (sharescan.go,
	// quorumscan.go), filled by build's visit; nil without their events.
	shares *shareScan
	quorum *quorumScan
}

// marks says which acked sends the checker found lost or whose offset was
// reused. Lost sends are known by value when the checker names it, else by
// offset: then the first ack at that offset is the lost one and later acks
// there are the reuse.
type marks struct {
	lostVal map[string]bool
	lostOff map[tp]map[int64]bool
	reused  map[tp]map[int64]bool
}

func marksFrom(res *results, topic string) marks {
	m := marks{lostVal: map[string]bool{}, lostOff: map[tp]map[int64]bool{}, reused: map[tp]map[int64]bool{}}
	if res == nil {
		return m
	}
	put := func(mm map[tp]map[int64]bool, l anomalyLoc) {
		t := tp{Topic: l.Topic, Partition: l.Partition}
		if t.Topic == "" {
			t.Topic = topic
		}
		if mm[t] == nil {
			mm[t] = map[int64]bool{}
		}
		mm[t][l.Offset] = true
	}
	for _, l := range res.Lost {
		if l.Value != "" {
			m.lostVal[l.Value] = true
		} else {
			put(m.lostOff, l)
		}
	}
	for _, l := range res.Reused {
		put(m.reused, l)
	}
	return m
}

// scanHistory streams history.jsonl once. A torn last line is tolerated
// (and reported); any other malformed line is an error, but the timeline
// read so far is still returned so that the report can show it. visit,
// when not nil, sees every event of the pass (MeasureRun's callers measure
// more without reading the file again).
func scanHistory(path string, mk marks, visit func(histories.Event)) (*timeline, error) {
	tl := &timeline{Width: 1e6, partIdx: map[tp]int{},
		Errors: map[string]map[string]int{}, Ops: map[string]map[histories.Type]int{}}
	f, err := os.Open(path)
	if err != nil {
		return tl, err
	}
	defer f.Close()
	rd := histories.NewReader(f)
	sendStart := map[int]int64{}
	seenLostOff := map[tp]map[int64]bool{}
	var pending *nemOp
	for {
		e, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			tl.finish(pending)
			return tl, err
		}
		if visit != nil {
			visit(e)
		}
		tl.Events++
		tl.End = max(tl.End, e.Time)
		switch {
		case e.Process == histories.NemesisProcess:
			if histories.IsBookkeeping(e.F) {
				// The schedule's own records (mode, seed, plan; its
				// untils), not faults.
				continue
			}
			if e.Type == histories.Invoke {
				if pending != nil {
					tl.Nemesis = append(tl.Nemesis, *pending)
				}
				pending = &nemOp{F: e.F, Start: e.Time, End: e.Time}
				_ = e.Decode(&pending.Value)
				continue
			}
			if pending == nil || pending.F != e.F {
				pending = &nemOp{F: e.F, Start: e.Time}
			}
			pending.End, pending.Type = e.Time, e.Type
			var v histories.NemesisValue
			if e.Decode(&v) == nil {
				mergeNemesis(&pending.Value, v)
			}
			tl.Nemesis = append(tl.Nemesis, *pending)
			pending = nil
		case e.Process == histories.ObserverProcess && e.F == histories.FObserve:
			var v histories.ObserveValue
			if e.Decode(&v) != nil {
				continue
			}
			p := tl.part(tp{v.Topic, v.Partition})
			s := state{Time: e.Time, Leader: v.Leader, Epoch: v.LeaderEpoch, ISR: sorted(v.ISR), ELR: sorted(v.ELR), LKELR: sorted(v.LastKnownELR)}
			if n := len(p.States); n == 0 || !p.States[n-1].same(s) {
				p.States = append(p.States, s)
			}
		case e.Process >= 0:
			if e.Type == histories.Invoke {
				if e.F == histories.FSend {
					sendStart[e.Process] = e.Time
				}
				continue
			}
			if tl.Ops[e.F] == nil {
				tl.Ops[e.F] = map[histories.Type]int{}
			}
			tl.Ops[e.F][e.Type]++
			if e.Error != "" && e.Type != histories.OK {
				if tl.Errors[e.Error] == nil {
					tl.Errors[e.Error] = map[string]int{}
				}
				tl.Errors[e.Error][e.F]++
			}
			if e.F == histories.FFinalRead && e.Type == histories.OK {
				tl.finalRead(&e)
			}
			if e.F != histories.FSend {
				continue
			}
			b := tl.binAt(e.Time)
			start, had := sendStart[e.Process]
			delete(sendStart, e.Process)
			switch e.Type {
			case histories.Fail:
				b.Fail++
				continue
			case histories.Info:
				b.Info++
				continue
			}
			b.OK++
			if had {
				lat := e.Time - start
				b.LatSum, b.LatN, b.LatMax = b.LatSum+lat, b.LatN+1, max(b.LatMax, lat)
			}
			var v histories.SendValue
			if e.Decode(&v) != nil || v.Offset == nil {
				continue // acks=0: no offset, nothing to place
			}
			t, off := tp{v.Topic, v.Partition}, *v.Offset
			p := tl.part(t)
			i := tl.partIdx[t]
			for len(b.Parts) <= i {
				b.Parts = append(b.Parts, offBin{})
			}
			p.MaxOffset = max(p.MaxOffset, off)
			lost := mk.lostVal[v.Value]
			if !lost && mk.lostOff[t][off] && !seenLostOff[t][off] {
				lost = true
				if seenLostOff[t] == nil {
					seenLostOff[t] = map[int64]bool{}
				}
				seenLostOff[t][off] = true
			}
			switch {
			case lost:
				b.Parts[i].Lost.add(off)
				p.Lost++
			case mk.reused[t][off]:
				b.Parts[i].Reused.add(off)
				p.Reused++
			default:
				b.Parts[i].Acked.add(off)
				p.Acked++
			}
		}
	}
	tl.Torn = rd.Truncated()
	tl.finish(pending)
	return tl, nil
}

// finalRead records where each leader epoch starts in the final log.
func (tl *timeline) finalRead(e *histories.Event) {
	var rr histories.ReadResult
	if e.Decode(&rr) != nil {
		return
	}
	for _, r := range rr.Records {
		p := tl.part(tp{rr.Topic, r.Partition})
		if p.EpochStart == nil {
			p.EpochStart = map[int32]int64{}
		}
		if o, ok := p.EpochStart[r.LeaderEpoch]; !ok || r.Offset < o {
			p.EpochStart[r.LeaderEpoch] = r.Offset
		}
		p.MaxOffset = max(p.MaxOffset, r.Offset)
	}
}

// epochs lists (epoch, first offset) in offset order.
func (p *part) epochs() [][2]int64 {
	var out [][2]int64
	for e, o := range p.EpochStart {
		out = append(out, [2]int64{int64(e), o})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][1] < out[j][1] || out[i][1] == out[j][1] && out[i][0] < out[j][0] })
	return out
}

// finish keeps a nemesis op whose completion was never recorded.
func (tl *timeline) finish(pending *nemOp) {
	if pending != nil {
		tl.Nemesis = append(tl.Nemesis, *pending)
	}
}

// sortedParts returns the partitions by topic, then number.
func (tl *timeline) sortedParts() []*part {
	out := slices.Clone(tl.Parts)
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].TP, out[j].TP
		if a.Topic != b.Topic {
			return a.Topic < b.Topic
		}
		return a.Partition < b.Partition
	})
	return out
}

func (tl *timeline) part(t tp) *part {
	if i, ok := tl.partIdx[t]; ok {
		return tl.Parts[i]
	}
	tl.partIdx[t] = len(tl.Parts)
	p := &part{TP: t, MaxOffset: -1}
	tl.Parts = append(tl.Parts, p)
	return p
}

// binAt returns the bin holding time t, merging pairs of bins until t fits.
func (tl *timeline) binAt(t int64) *bin {
	i := int(t / tl.Width)
	for i >= maxBins {
		n := (len(tl.Bins) + 1) / 2
		merged := make([]bin, n)
		for j := range tl.Bins {
			merged[j/2].merge(&tl.Bins[j])
		}
		tl.Bins = merged
		tl.Width *= 2
		i = int(t / tl.Width)
	}
	for len(tl.Bins) <= i {
		tl.Bins = append(tl.Bins, bin{})
	}
	return &tl.Bins[i]
}

// offline returns, per partition, the spans the observer saw no leader:
// the report's fallback when results.json gives no unavailability.
func (tl *timeline) offline() map[tp][]interval {
	out := map[tp][]interval{}
	for _, p := range tl.Parts {
		var cur *interval
		for _, s := range p.States {
			switch {
			case s.Leader < 0 && cur == nil:
				cur = &interval{Start: s.Time, Cause: "no leader observed"}
			case s.Leader >= 0 && cur != nil:
				cur.End = s.Time
				out[p.TP] = append(out[p.TP], *cur)
				cur = nil
			}
		}
		if cur != nil {
			cur.End = tl.End
			cur.Cause += " (until the end of the history)"
			out[p.TP] = append(out[p.TP], *cur)
		}
	}
	return out
}

// mergeNemesis fills what the invoke did not know (the nodes a role
// resolved to, details learned while injecting) from the completion.
func mergeNemesis(dst *histories.NemesisValue, src histories.NemesisValue) {
	if dst.Fault == "" {
		dst.Fault = src.Fault
	}
	if len(dst.Nodes) == 0 {
		dst.Nodes = src.Nodes
	}
	for k, v := range src.Details {
		if dst.Details == nil {
			dst.Details = map[string]any{}
		}
		dst.Details[k] = v
	}
}

func sorted(s []int32) []int32 {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
