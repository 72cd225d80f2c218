package report

import (
	"fmt"
	"slices"
	"sort"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/histories/pass"
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

// nemOp is one nemesis op: its invoke and completion (the pass's
// Timeline pairs them).
type nemOp = pass.FaultSpan

// timeline is the summary of a history: everything the charts and tables
// need, in memory bounded by maxBins and by the number of partition state
// changes and nemesis ops. Scan assembles it from one pass (scanpass.go).
type timeline struct {
	End, Events int64
	Torn        bool
	Width       int64 // bin width, ns
	Bins        []bin
	Parts       []*part // in first-seen order: the index into bin.Parts
	partIdx     map[tp]int
	Nemesis     []nemOp
	Requests    []pass.Request                    // the request faults' actions (requests.go)
	Errors      map[string]map[string]int         // code -> f -> count
	Ops         map[string]map[histories.Type]int // f -> completion type -> count
	// The share group's and the KRaft quorum's lanes (sharescan.go,
	// quorum.go), from the same pass; nil without their events.
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

// finalRead records where each leader epoch starts in the final log. A
// final read is the largest value of a history: it is decoded by the
// format's fast path, encoding/json only when that refuses it.
func (tl *timeline) finalRead(e *histories.Event, rf *histories.ReadFields) {
	if err := histories.DecodeReadValue(e.Value, rf); err != nil {
		var rr histories.ReadResult
		if e.Decode(&rr) != nil {
			return
		}
		rf.Topic, rf.Records = []byte(rr.Topic), rf.Records[:0]
		for _, r := range rr.Records {
			rf.Records = append(rf.Records, histories.RecordFields{Partition: r.Partition, Offset: r.Offset, Epoch: r.LeaderEpoch})
		}
	}
	for _, r := range rf.Records {
		p := tl.part(tp{string(rf.Topic), r.Partition})
		if p.EpochStart == nil {
			p.EpochStart = map[int32]int64{}
		}
		if o, ok := p.EpochStart[r.Epoch]; !ok || r.Offset < o {
			p.EpochStart[r.Epoch] = r.Offset
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

func sorted(s []int32) []int32 {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
