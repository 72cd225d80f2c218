package report

import (
	"os"
	"path/filepath"

	"github.com/kchaos/kchaos/checker"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/histories/pass"
)

// Scan is what the report takes from one pass over a history (package
// histories/pass): the client ops' counts and errors, the send bins, the
// partitions' states and epochs, the group and share lanes. The faults
// and the quorum samples it reads from the pass's Timeline. A run or
// `kchaos check` attaches a Scan to the checker's pass (NewScan, then
// checker.Options.Pass) and writes the report from it (WriteScan), so
// the history is decoded once; Write, for a folder alone, makes its own
// pass.
//
// Which acked sends were lost or had their offset reused is known only
// from the results, after the pass: the pass keeps each acked send's
// time, partition, offset and value compactly (32 bytes and the value's
// own) and the marks are applied to them when the report is built.
type Scan struct {
	p         *pass.Pass
	tl        *timeline
	sendStart map[int]int64
	acks      [][]ack // in chunks of ackChunk: never copied as they grow
	vals      []byte  // the acks' values back to back (ack.end)
	placed    bool    // the acks are in the bins (place)
	ss        *shareScan
	gs        *groupScan
	sf        histories.SendFields
	rf        histories.ReadFields
}

// ack is one ok send with an offset: where its mark will go.
type ack struct {
	t, off int64
	part   int32 // index into timeline.Parts
	end    int   // its value is vals[previous ack's end:end]
}

const ackChunk = 1 << 14

// NewScan returns a Scan attached to p.
func NewScan(p *pass.Pass) *Scan {
	s := &Scan{p: p, sendStart: map[int]int64{}, ss: newShareScan(), gs: newGroupScan(),
		tl: &timeline{Width: 1e6, partIdx: map[tp]int{}, Errors: map[string]map[string]int{}, Ops: map[string]map[histories.Type]int{}}}
	p.Attach(s)
	return s
}

// scanRun reads a run folder's history once: the report's path when no
// checker read it.
func scanRun(dir string) *Scan {
	p := pass.New()
	s := NewScan(p)
	p.ReadFile(filepath.Join(dir, HistoryFile))
	return s
}

// Add takes one event of the pass (pass.Sink).
func (s *Scan) Add(e *histories.Event) {
	s.ss.add(e)
	s.gs.add(e)
	tl := s.tl
	switch {
	case e.Process == histories.ObserverProcess && e.F == histories.FObserve:
		o := s.p.Timeline.LastObserved() // decoded by the Timeline just now
		if o == nil {
			return
		}
		v := &o.Value
		p := tl.part(tp{v.Topic, v.Partition})
		st := state{Time: e.Time, Leader: v.Leader, Epoch: v.LeaderEpoch, ISR: sorted(v.ISR), ELR: sorted(v.ELR), LKELR: sorted(v.LastKnownELR)}
		if n := len(p.States); n == 0 || !p.States[n-1].same(st) {
			p.States = append(p.States, st)
		}
	case e.Process >= 0:
		if e.Type == histories.Invoke {
			if e.F == histories.FSend {
				s.sendStart[e.Process] = e.Time
			}
			return
		}
		byType := tl.Ops[e.F]
		if byType == nil {
			byType = map[histories.Type]int{}
			tl.Ops[e.F] = byType
		}
		byType[e.Type]++
		if e.Error != "" && e.Type != histories.OK {
			if tl.Errors[e.Error] == nil {
				tl.Errors[e.Error] = map[string]int{}
			}
			tl.Errors[e.Error][e.F]++
		}
		if e.F == histories.FFinalRead && e.Type == histories.OK {
			tl.finalRead(e, &s.rf)
		}
		if e.F == histories.FSend {
			s.send(e)
		}
	}
}

// send bins a send's completion; an acked one with an offset is kept for
// its mark (place).
func (s *Scan) send(e *histories.Event) {
	tl := s.tl
	b := tl.binAt(e.Time)
	start, had := s.sendStart[e.Process]
	delete(s.sendStart, e.Process)
	switch e.Type {
	case histories.Fail:
		b.Fail++
		return
	case histories.Info:
		b.Info++
		return
	}
	b.OK++
	if had {
		lat := e.Time - start
		b.LatSum, b.LatN, b.LatMax = b.LatSum+lat, b.LatN+1, max(b.LatMax, lat)
	}
	v := &s.sf
	if histories.DecodeSendValue(e.Value, v) != nil || !v.HasOffset {
		return // acks=0: no offset, nothing to place
	}
	t := tp{string(v.Topic), v.Partition}
	p := tl.part(t)
	i := tl.partIdx[t]
	p.MaxOffset = max(p.MaxOffset, v.Offset)
	s.vals = append(s.vals, v.Value...)
	if n := len(s.acks); n == 0 || len(s.acks[n-1]) == ackChunk {
		s.acks = append(s.acks, make([]ack, 0, ackChunk))
	}
	last := &s.acks[len(s.acks)-1]
	*last = append(*last, ack{t: e.Time, off: v.Offset, part: int32(i), end: len(s.vals)})
}

// place puts the kept acks into the bins as the marks say, once: the
// first ack at an offset lost without a value named is the lost one,
// later ones there are the reuse.
func (s *Scan) place(mk marks) {
	s.placed = true
	tl := s.tl
	seenLostOff := map[tp]map[int64]bool{}
	var from int
	for _, chunk := range s.acks {
		for _, a := range chunk {
			val := s.vals[from:a.end]
			from = a.end
			b := tl.binAt(a.t)
			i := int(a.part)
			for len(b.Parts) <= i {
				b.Parts = append(b.Parts, offBin{})
			}
			p := tl.Parts[i]
			t, off := p.TP, a.off
			lost := mk.lostVal[string(val)]
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
	s.acks, s.vals = nil, nil
}

// timeline is the Scan's summary of the history, the acks placed by mk
// and the share lanes finished (they read the placed bins).
func (s *Scan) timeline(mk marks) *timeline {
	tl := s.summary()
	if !s.placed {
		s.place(mk)
		s.ss.finish(tl)
	}
	return tl
}

// summary is the Scan's summary with the pass's faults, quorum samples,
// end and damage in it, the acks not placed: what MeasureScan reads.
func (s *Scan) summary() *timeline {
	tl := s.tl
	if tl.quorum != nil {
		return tl
	}
	ptl := &s.p.Timeline
	tl.Events, tl.End, tl.Torn = ptl.Events, ptl.End, ptl.Torn
	tl.Nemesis, tl.Requests = ptl.Faults(), ptl.Requests()
	qs := &quorumScan{}
	for i := range ptl.Quorum {
		qs.add(ptl.Quorum[i].Time, ptl.Quorum[i].Value)
	}
	tl.shares, tl.quorum = s.ss, qs
	return tl
}

// histErr is why the history could not be read to its end, nil if it was.
func (s *Scan) histErr() error { return s.p.Timeline.Err }

// Check is checker.CheckPath with a Scan attached to the check's pass:
// `kchaos check` writes a run folder's report from the Scan (WriteScan),
// so the history is decoded once for results.json and the report. A
// history not named history.jsonl gets no report, and no Scan (nil).
func Check(path string, opts checker.Options) (*checker.Result, string, *Scan, error) {
	var s *Scan
	if st, err := os.Stat(path); err == nil && (st.IsDir() || filepath.Base(path) == HistoryFile) {
		p := pass.New()
		s = NewScan(p)
		opts.Pass = p
	}
	res, out, err := checker.CheckPath(path, opts)
	return res, out, s, err
}
