package checker

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/histories"
)

// pollSeq is where one consumer's last poll of a partition ended.
type pollSeq struct {
	last int64
	val  int32
}

// pollGap is a poll that did not begin right after the previous one.
type pollGap struct {
	proc, tp          int32
	prevLast, first   int64
	prevVal, firstVal int32
	at                int64 // the poll's completion
}

type nmSend struct {
	prev, next int32 // sends
}

func (c *Checker) addClient(e *histories.Event) error {
	p := e.Process
	if e.Type == histories.Invoke {
		if c.gone[p] {
			return fmt.Errorf("process %d invokes %s after an info: a process whose op ends in info never invokes again", p, e.F)
		}
		if o := c.open[p]; o != nil {
			return fmt.Errorf("process %d invokes %s while %s is open", p, e.F, o.f)
		}
		c.clients++
		pd := &pending{f: e.F, call: e.Time, send: -1}
		switch e.F {
		case histories.FSend:
			var v sendVal
			if err := decodeSend(e.Value, &v); err != nil {
				return fmt.Errorf("send value: %w", err)
			}
			tp := c.tp(v.topic, v.partition)
			val := c.value(v.value)
			pd.send = int32(len(c.sends))
			c.sends = append(c.sends, sendOp{val: val, tp: tp, proc: int32(p), call: e.Time, off: -1})
			if c.vals[val].send < 0 {
				c.vals[val].send = pd.send
			}
		case histories.FFinalRead:
			var req histories.ReadRequest
			if err := e.Decode(&req); err != nil {
				return fmt.Errorf("final-read value: %w", err)
			}
			for _, part := range req.Partitions {
				pd.tps = append(pd.tps, c.tp([]byte(req.Topic), part))
			}
		case histories.FAssign:
			if err := c.assign(p, e); err != nil {
				return err
			}
		}
		c.open[p] = pd
		return nil
	}
	pd := c.open[p]
	if pd == nil {
		return fmt.Errorf("process %d completes %s without an invoke", p, e.F)
	}
	if pd.f != e.F {
		return fmt.Errorf("process %d completes %s but invoked %s", p, e.F, pd.f)
	}
	delete(c.open, p)
	if e.Type == histories.Info {
		c.gone[p] = true
	}
	switch e.F {
	case histories.FSend:
		return c.completeSend(pd, e)
	case histories.FPoll:
		if e.Type == histories.OK {
			return c.completePoll(pd, e)
		}
	case histories.FFinalRead:
		if e.Type == histories.OK {
			return c.completeFinal(pd, e)
		}
		c.failed = append(c.failed, finalTry{proc: p, typ: e.Type, at: e.Time, err: e.Error, tps: pd.tps})
	case histories.FAssign:
		return c.assign(p, e)
	}
	return nil
}

// indeterminate names the send errors that the contract makes info ("a
// Kafka send that failed ... with NOT_ENOUGH_REPLICAS_AFTER_APPEND, or by
// timeout, is info, not fail"): the record may be in the log. A workload
// that records one as fail has the outcome wrong, so the checker takes it
// as info rather than report an aborted read that Kafka never promised
// against; Stats.Sends.ReclassifiedAsInfo counts them.
func indeterminate(err string) bool {
	switch strings.ToUpper(err) {
	case "NOT_ENOUGH_REPLICAS_AFTER_APPEND", "TIMEOUT", "REQUEST_TIMED_OUT":
		return true
	}
	return false
}

func (c *Checker) completeSend(pd *pending, e *histories.Event) error {
	s := &c.sends[pd.send]
	s.ret = e.Time
	if e.Error != "" {
		c.sendErr[pd.send] = e.Error
	}
	tpi := c.tps[s.tp]
	switch e.Type {
	case histories.OK:
		var v sendVal
		if err := decodeSend(e.Value, &v); err != nil {
			return fmt.Errorf("send value: %w", err)
		}
		if !v.hasOffset {
			s.typ = opOKNoOffset
			return nil
		}
		if v.offset < 0 {
			return fmt.Errorf("send acked at offset %d", v.offset)
		}
		s.typ, s.off = opOK, v.offset
		c.saw(s.tp, s.off, s.val)
		key := procTP{s.proc, s.tp}
		if prev, ok := c.sendAt[key]; ok && c.sends[prev].off > s.off {
			c.nmSend = append(c.nmSend, nmSend{prev: prev, next: pd.send})
		}
		c.sendAt[key] = pd.send
		tpi.avail.ok(s.ret)
	case histories.Fail:
		s.typ = opFail
		if indeterminate(e.Error) {
			s.typ = opInfo
			c.reclas++
		}
		tpi.avail.failed(s.call, s.ret, e.Type, e.Error)
	case histories.Info:
		s.typ = opInfo
		tpi.avail.failed(s.call, s.ret, e.Type, e.Error)
	}
	return nil
}

// readRecords decodes a read's records into c.recs, sorted by partition and
// offset, and returns their range.
func (c *Checker) readRecords(e *histories.Event, polled bool) (int32, int32, *readVal, error) {
	v := &c.scratch
	if err := decodeRead(e.Value, v); err != nil {
		return 0, 0, nil, fmt.Errorf("%s value: %w", e.F, err)
	}
	start := int32(len(c.recs))
	for _, r := range v.recs {
		if r.offset < 0 {
			return 0, 0, nil, fmt.Errorf("%s record at offset %d", e.F, r.offset)
		}
		tp := c.tp(v.topic, r.partition)
		val := c.value(r.value)
		c.recs = append(c.recs, rec{tp: tp, val: val, off: r.offset, epoch: r.epoch})
		c.saw(tp, r.offset, val)
		vi := &c.vals[val]
		vi.read = true
		vi.polled = vi.polled || polled
	}
	if got := c.recs[start:]; !slices.IsSortedFunc(got, recCmp) {
		slices.SortStableFunc(got, recCmp)
	}
	return start, int32(len(c.recs)), v, nil
}

func recCmp(a, b rec) int {
	return cmp.Or(cmp.Compare(a.tp, b.tp), cmp.Compare(a.off, b.off))
}

func (c *Checker) completePoll(pd *pending, e *histories.Event) error {
	start, end, _, err := c.readRecords(e, true)
	if err != nil {
		return err
	}
	proc := int32(e.Process)
	c.polls = append(c.polls, readOp{proc: proc, call: pd.call, ret: e.Time, start: start, end: end})
	for i := start; i < end; {
		j := i
		for j < end && c.recs[j].tp == c.recs[i].tp {
			j++
		}
		first, last := c.recs[i], c.recs[j-1]
		c.tps[first.tp].polled += int(j - i)
		key := procTP{proc, first.tp}
		if seq := c.seqs[key]; seq != nil {
			g := pollGap{proc: proc, tp: first.tp, prevLast: seq.last, first: first.off,
				prevVal: seq.val, firstVal: first.val, at: e.Time}
			switch {
			case first.off <= seq.last:
				c.back = append(c.back, g)
			case first.off > seq.last+1:
				c.gaps = append(c.gaps, g)
			}
			seq.last, seq.val = last.off, last.val
		} else {
			c.seqs[key] = &pollSeq{last: last.off, val: last.val}
		}
		i = j
	}
	return nil
}

func (c *Checker) completeFinal(pd *pending, e *histories.Event) error {
	start, end, v, err := c.readRecords(e, false)
	if err != nil {
		return err
	}
	op := readOp{proc: int32(e.Process), call: pd.call, ret: e.Time, start: start, end: end}
	idx := int32(len(c.finals))
	covered := append([]int32(nil), pd.tps...)
	topic := v.topic
	if len(v.ends) > 0 {
		op.ends = map[int32]int64{}
		for p, o := range v.ends {
			tp := c.tp(topic, p)
			op.ends[tp] = o
			covered = append(covered, tp)
		}
	}
	if len(v.starts) > 0 {
		op.starts = map[int32]int64{}
		for p, o := range v.starts {
			op.starts[c.tp(topic, p)] = o
		}
	}
	for i := start; i < end; i++ {
		covered = append(covered, c.recs[i].tp)
	}
	for _, tp := range covered {
		c.tps[tp].final = idx
	}
	c.finals = append(c.finals, op)
	return nil
}

// assign starts a new poll sequence for the partitions a consumer
// (re)positioned itself on (all of its partitions if none are named).
func (c *Checker) assign(p int, e *histories.Event) error {
	var a histories.AssignValue
	if err := e.Decode(&a); err != nil {
		return fmt.Errorf("assign value: %w", err)
	}
	proc := int32(p)
	if len(a.Partitions) == 0 && len(a.Offsets) == 0 {
		for k := range c.seqs {
			if k.proc == proc {
				delete(c.seqs, k)
			}
		}
		return nil
	}
	parts := append([]int32(nil), a.Partitions...)
	for k := range a.Offsets {
		part, err := histories.ParsePartitionKey(k)
		if err != nil {
			return errors.New("assign value: bad partition key " + k)
		}
		parts = append(parts, part)
	}
	for _, part := range parts {
		delete(c.seqs, procTP{proc, c.tp([]byte(a.Topic), part)})
	}
	return nil
}
