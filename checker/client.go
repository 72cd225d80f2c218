package checker

import (
	"cmp"
	"errors"
	"fmt"
	"github.com/kchaos/kchaos/checker/model"
	"maps"
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
	rc                bool  // the poll was read_committed
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
		c.Clients++
		pd := &pending{f: e.F, call: e.Time, send: -1, txn: -1, at: invokeAt{e.Index, c.line}}
		switch e.F {
		case histories.FSend:
			if len(e.Value) == 0 {
				return errors.New(`send invoke: missing field "value"`)
			}
			var v histories.SendFields
			if err := histories.DecodeSendValue(e.Value, &v); err != nil {
				return fmt.Errorf("send invoke value: %w", err)
			}
			if err := histories.MissingField(v.Has, histories.FieldTopic|histories.FieldPartition|histories.FieldValue); err != nil {
				return fmt.Errorf("send invoke value: %w", err)
			}
			if err := c.checkPlace("send invoke value", v.Topic, v.Partition); err != nil {
				return err
			}
			tp := c.tp(v.Topic, v.Partition)
			val := c.value(v.Value)
			pd.send = int32(len(c.Sends))
			c.Sends = append(c.Sends, model.Send{Val: val, TP: tp, Proc: int32(p), Call: e.Time, Off: -1})
			c.addSendOf(val, pd.send)
		case histories.FFinalRead:
			var req histories.ReadRequest
			if err := e.Decode(&req); err != nil {
				return fmt.Errorf("final-read invoke value: %w", histories.FieldError(err))
			}
			if req.Topic == "" {
				return errors.New(`final-read invoke value: missing field "topic"`)
			}
			rc, err := isolation("final-read invoke value", req.Isolation)
			if err != nil {
				return err
			}
			pd.rc = rc
			for _, part := range req.Partitions {
				if err := c.checkPlace("final-read invoke value", []byte(req.Topic), part); err != nil {
					return err
				}
				pd.tps = append(pd.tps, c.tp([]byte(req.Topic), part))
			}
		case histories.FPoll:
			if err := c.pollInvoke(pd, e); err != nil {
				return err
			}
		case histories.FTxn:
			if err := c.invokeTxn(pd, e); err != nil {
				return err
			}
		case histories.FSubscribe:
			if err := c.invokeSubscribe(pd, e); err != nil {
				return err
			}
		case histories.FCommit:
			if err := c.invokeCommit(pd, e); err != nil {
				return err
			}
		case histories.FRebalance:
			if err := c.invokeRebalance(pd, e); err != nil {
				return err
			}
		case histories.FAssign:
		case histories.FShareSubscribe, histories.FSharePoll, histories.FShareAck, histories.FShareOffsets: // domain_share.go
		default:
			c.ignored[e.F]++
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
		if c.members[int32(p)] != nil {
			c.goneAt[int32(p)] = e.Time
		}
	}
	switch e.F {
	case histories.FSend:
		return c.completeSend(pd, e)
	case histories.FTxn:
		return c.completeTxn(pd, e)
	case histories.FPoll:
		if e.Type == histories.OK {
			if err := c.completePoll(pd, e); err != nil {
				return err
			}
			if pd.gp != nil {
				c.groupPolled(pd, e)
			}
		}
	case histories.FSubscribe:
		return c.completeSubscribe(pd, e)
	case histories.FCommit:
		return c.completeCommit(pd, e)
	case histories.FRebalance:
		return c.completeRebalance(pd, e)
	case histories.FFinalRead:
		if e.Type == histories.OK {
			return c.completeFinal(pd, e)
		}
		c.failed = append(c.failed, finalTry{proc: p, typ: e.Type, at: e.Time, err: e.Error, tps: pd.tps})
		if len(e.Value) > 0 {
			return c.completePartial(pd, e)
		}
	case histories.FAssign:
		// Only an assign that happened moved the consumer: a failed one
		// leaves the position it expects where it was.
		if e.Type == histories.OK {
			return c.assign(p, e)
		}
	}
	return nil
}

// checkPlace rejects a topic-partition that cannot exist: a negative
// partition, or one the run (Options.Topic, Options.Partitions) never had.
func (c *Checker) checkPlace(what string, topic []byte, p int32) error {
	if p < 0 {
		return fmt.Errorf("%s: field \"partition\": %d is negative", what, p)
	}
	if c.opts.Topic != "" && string(topic) != c.opts.Topic {
		return fmt.Errorf("%s: field \"topic\": %q, but the run's topic is %q", what, topic, c.opts.Topic)
	}
	if c.opts.Partitions > 0 && int(p) >= c.opts.Partitions {
		return fmt.Errorf("%s: field \"partition\": %d, but the run had partitions 0-%d", what, p, c.opts.Partitions-1)
	}
	return nil
}

// addSendOf records that send s invoked value val (values the format
// says are unique may still be re-sent: each read is attributed to the
// send that explains it, see explainer).
func (c *Checker) addSendOf(val, s int32) {
	vi := &c.Vals[val]
	if vi.Send < 0 {
		vi.Send = s
		return
	}
	c.SendsOf[val] = append(c.SendsOf[val], s)
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
	s := &c.Sends[pd.send]
	s.Ret = e.Time
	if e.Error != "" {
		c.SendErr[pd.send] = e.Error
	}
	tpi := c.TPs[s.TP]
	switch e.Type {
	case histories.OK:
		if len(e.Value) == 0 {
			return errors.New(`send ok: missing field "value"`)
		}
		var v histories.SendFields
		if err := histories.DecodeSendValue(e.Value, &v); err != nil {
			return fmt.Errorf("send ok value: %w", err)
		}
		if err := histories.MissingField(v.Has, histories.FieldTopic|histories.FieldPartition|histories.FieldValue); err != nil {
			return fmt.Errorf("send ok value: %w", err)
		}
		if err := c.sameSend(s, &v); err != nil {
			return err
		}
		if !v.HasOffset {
			s.Typ = model.OpOKNoOffset
			return nil
		}
		if v.Offset < 0 {
			return fmt.Errorf("send ok value: field \"offset\": %d is negative", v.Offset)
		}
		s.Typ, s.Off = model.OpOK, v.Offset
		c.saw(s.TP, s.Off, s.Val)
		key := procTP{s.Proc, s.TP}
		if prev, ok := c.sendAt[key]; ok && c.Sends[prev].Off > s.Off {
			c.nmSend = append(c.nmSend, nmSend{prev: prev, next: pd.send})
		}
		c.sendAt[key] = pd.send
		tpi.Avail.OK(s.Ret)
	case histories.Fail:
		if err := c.sameCompletion(s, e); err != nil {
			return err
		}
		s.Typ = model.OpFail
		if indeterminate(e.Error) {
			s.Typ = model.OpInfo
			c.reclas++
		}
		tpi.Avail.Failed(s.Call, s.Ret, e.Type, e.Error)
	case histories.Info:
		if err := c.sameCompletion(s, e); err != nil {
			return err
		}
		s.Typ = model.OpInfo
		tpi.Avail.Failed(s.Call, s.Ret, e.Type, e.Error)
	}
	return nil
}

// sameSend rejects a completion that names another topic, partition or
// value than its invoke.
func (c *Checker) sameSend(s *model.Send, v *histories.SendFields) error {
	t := c.TPs[s.TP]
	switch {
	case v.Has&histories.FieldTopic != 0 && string(v.Topic) != t.Topic:
		return fmt.Errorf("send %s value: field \"topic\": %q, but its invoke named %q", "completion", v.Topic, t.Topic)
	case v.Has&histories.FieldPartition != 0 && v.Partition != t.Partition:
		return fmt.Errorf("send completion value: field \"partition\": %d, but its invoke named %d", v.Partition, t.Partition)
	case v.Has&histories.FieldValue != 0 && string(v.Value) != c.Vals[s.Val].Str:
		return fmt.Errorf("send completion value: field \"value\": %q, but its invoke named %q", v.Value, c.Vals[s.Val].Str)
	}
	return nil
}

// sameCompletion checks the value of a fail or info send, which may be
// absent but must not contradict the invoke.
func (c *Checker) sameCompletion(s *model.Send, e *histories.Event) error {
	if len(e.Value) == 0 {
		return nil
	}
	var v histories.SendFields
	if err := histories.DecodeSendValue(e.Value, &v); err != nil {
		return fmt.Errorf("send %s value: %w", e.Type, err)
	}
	return c.sameSend(s, &v)
}

// readRecords decodes a read's records into c.recs, sorted by partition and
// offset, and returns their range.
func (c *Checker) readRecords(e *histories.Event, polled, rc bool) (int32, int32, *histories.ReadFields, error) {
	rd := readCtx{what: fmt.Sprintf("%s %s value", e.F, e.Type), needTopic: e.Type == histories.OK,
		polled: polled, order: polled, rc: rc, proc: int32(e.Process), at: e.Time}
	return c.recordsOf(&rd, e.Value)
}

// readCtx says how recordsOf takes a read: what names it in errors,
// needTopic requires the topic even without records, polled marks the
// values as polled, order follows the consumer's poll order (a txn's
// polls are polled but not followed, see txn.go) and rc says the read was
// read_committed.
type readCtx struct {
	what                         string
	needTopic, polled, order, rc bool
	proc                         int32
	at                           int64
}

// recordsOf is readRecords on a raw read result.
func (c *Checker) recordsOf(rd *readCtx, raw []byte) (int32, int32, *histories.ReadFields, error) {
	v, what, polled := &c.scratch, rd.what, rd.polled
	if err := histories.DecodeReadValue(raw, v); err != nil {
		return 0, 0, nil, fmt.Errorf("%s: %w", what, err)
	}
	if !v.HasTopic && (rd.needTopic || len(v.Records) > 0 || len(v.Ends) > 0 || len(v.Starts) > 0) {
		return 0, 0, nil, fmt.Errorf(`%s: missing field "topic"`, what)
	}
	if err := c.checkBounds(what, v); err != nil {
		return 0, 0, nil, err
	}
	start := int32(len(c.Recs))
	for i, r := range v.Records {
		if err := histories.MissingField(r.Has, histories.FieldPartition|histories.FieldOffset|histories.FieldValue|histories.FieldEpoch); err != nil {
			return 0, 0, nil, fmt.Errorf("%s: record %d: %w", what, i, err)
		}
		if r.Offset < 0 {
			return 0, 0, nil, fmt.Errorf("%s: record %d: field \"offset\": %d is negative", what, i, r.Offset)
		}
		if err := c.checkPlace(fmt.Sprintf("%s: record %d", what, i), v.Topic, r.Partition); err != nil {
			return 0, 0, nil, err
		}
		if end, ok := v.Ends[r.Partition]; ok && r.Offset >= end {
			return 0, 0, nil, fmt.Errorf("%s: record %d at offset %d of partition %d, at or past the end the read reports (field \"end_offsets\": %d)", what, i, r.Offset, r.Partition, end)
		}
		if st, ok := v.Starts[r.Partition]; ok && r.Offset < st {
			return 0, 0, nil, fmt.Errorf("%s: record %d at offset %d of partition %d, below the log start the read reports (field \"start_offsets\": %d)", what, i, r.Offset, r.Partition, st)
		}
		tp := c.tp(v.Topic, r.Partition)
		val := c.value(r.Value)
		c.Recs = append(c.Recs, rec{TP: tp, Val: val, Off: r.Offset, Epoch: r.Epoch})
		if rd.rc {
			c.MarkTxnTP(tp)
		}
		c.saw(tp, r.Offset, val)
		vi := &c.Vals[val]
		vi.Read = true
		vi.Polled = vi.Polled || polled
	}
	if rd.order {
		c.pollOrder(rd.proc, c.Recs[start:], rd.at, rd.rc)
	}
	if got := c.Recs[start:]; !slices.IsSortedFunc(got, recCmp) {
		slices.SortStableFunc(got, recCmp)
	}
	return start, int32(len(c.Recs)), v, nil
}

// checkBounds rejects impossible end and start offsets and partitions.
func (c *Checker) checkBounds(what string, v *histories.ReadFields) error {
	for _, m := range []struct {
		name string
		m    map[int32]int64
	}{{"end_offsets", v.Ends}, {"start_offsets", v.Starts}, {"high_watermarks", v.HWs}, {"last_stable_offsets", v.LSOs}} {
		for _, p := range sortedKeys(m.m) {
			if m.m[p] < 0 {
				return fmt.Errorf("%s: field %q: partition %d at %d, negative", what, m.name, p, m.m[p])
			}
			if err := c.checkPlace(fmt.Sprintf("%s: field %q", what, m.name), v.Topic, p); err != nil {
				return err
			}
		}
	}
	for _, p := range sortedKeys(v.HWs) {
		if lso, ok := v.LSOs[p]; ok && lso > v.HWs[p] {
			return fmt.Errorf("%s: field \"last_stable_offsets\": partition %d at %d, above its high watermark %d", what, p, lso, v.HWs[p])
		}
	}
	for _, p := range slices.Sorted(maps.Keys(v.Open)) {
		txns := v.Open[p]
		if err := c.checkPlace(fmt.Sprintf("%s: field \"open_txns\"", what), v.Topic, p); err != nil {
			return err
		}
		for i, t := range txns {
			if t.FirstOffset < 0 || t.ProducerID < 0 || t.OpenMS < 0 {
				return fmt.Errorf("%s: field \"open_txns\": partition %d, entry %d: negative first_offset, producer_id or open_ms", what, p, i)
			}
		}
	}
	return nil
}

// sortedKeys returns a partition map's keys in order: iterating a map
// directly would number partitions in Go's random map order.
func sortedKeys(m map[int32]int64) []int32 {
	out := make([]int32, 0, len(m))
	for p := range m {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// pollOrder follows one consumer through the records of a poll, in the
// order the poll returned them: each record must come right after the
// previous one it read on that partition (since its last assign). Going
// back is nonmonotonic-poll; skipping ahead is a poll-skip candidate,
// reported if the final read shows the skipped offsets exist.
func (c *Checker) pollOrder(proc int32, recs []rec, at int64, rc bool) {
	var key procTP
	var seq *pollSeq
	for _, r := range recs {
		if seq == nil || key.tp != r.TP {
			key = procTP{proc, r.TP}
			seq = c.seqs[key]
			if seq == nil {
				seq = &pollSeq{last: r.Off, val: r.Val}
				c.seqs[key] = seq
				continue
			}
		}
		g := pollGap{proc: proc, tp: r.TP, prevLast: seq.last, first: r.Off, prevVal: seq.val, firstVal: r.Val, at: at, rc: rc}
		switch {
		case r.Off <= seq.last:
			c.back = append(c.back, g)
		case r.Off > seq.last+1:
			c.gaps = append(c.gaps, g)
		}
		seq.last, seq.val = r.Off, r.Val
	}
}

func recCmp(a, b rec) int {
	return cmp.Or(cmp.Compare(a.TP, b.TP), cmp.Compare(a.Off, b.Off))
}

func (c *Checker) completePoll(pd *pending, e *histories.Event) error {
	start, end, _, err := c.readRecords(e, true, pd.rc)
	if err != nil {
		return err
	}
	proc := int32(e.Process)
	c.Polls = append(c.Polls, model.Read{Proc: proc, Call: pd.call, Ret: e.Time, Start: start, End: end, RC: pd.rc})
	for i := start; i < end; i++ {
		c.TPs[c.Recs[i].TP].Polled++
	}
	return nil
}

// completePartial keeps the records of a final read that ended info or
// fail: they are evidence of what the log held (offset-reuse, aborted-read,
// unexpected, and porcupine's reads), though they cannot prove a loss.
func (c *Checker) completePartial(pd *pending, e *histories.Event) error {
	start, end, _, err := c.readRecords(e, false, pd.rc)
	if err != nil {
		return err
	}
	c.Partials = append(c.Partials, model.Read{Proc: int32(e.Process), Call: pd.call, Ret: e.Time, Start: start, End: end, RC: pd.rc})
	return nil
}

func (c *Checker) completeFinal(pd *pending, e *histories.Event) error {
	start, end, v, err := c.readRecords(e, false, pd.rc)
	if err != nil {
		return err
	}
	op := model.Read{Proc: int32(e.Process), Call: pd.call, Ret: e.Time, Start: start, End: end, RC: pd.rc}
	idx := int32(len(c.Finals))
	covered := append([]int32(nil), pd.tps...)
	topic := v.Topic
	if len(v.Ends) > 0 {
		op.Ends = map[int32]int64{}
		for _, p := range sortedKeys(v.Ends) {
			tp := c.tp(topic, p)
			op.Ends[tp] = v.Ends[p]
			covered = append(covered, tp)
		}
	}
	if len(v.Starts) > 0 {
		op.Starts = map[int32]int64{}
		for _, p := range sortedKeys(v.Starts) {
			op.Starts[c.tp(topic, p)] = v.Starts[p]
		}
	}
	if len(v.HWs) > 0 || len(v.LSOs) > 0 || len(v.Open) > 0 {
		op.TxnEnds = &model.FinalTxnEnds{HWs: map[int32]int64{}, LSOs: map[int32]int64{}, Open: map[int32][]histories.OpenTxn{}}
		for _, p := range sortedKeys(v.HWs) {
			op.TxnEnds.HWs[c.tp(topic, p)] = v.HWs[p]
		}
		for _, p := range sortedKeys(v.LSOs) {
			op.TxnEnds.LSOs[c.tp(topic, p)] = v.LSOs[p]
		}
		for _, p := range slices.Sorted(maps.Keys(v.Open)) {
			op.TxnEnds.Open[c.tp(topic, p)] = v.Open[p]
		}
	}
	for i := start; i < end; i++ {
		covered = append(covered, c.Recs[i].TP)
	}
	for _, tp := range covered {
		if op.RC {
			c.MarkTxnTP(tp)
		}
		// A partition is judged by its completed final read invoked last:
		// the one that could have seen the most acks.
		if f := c.TPs[tp].Final; f < 0 || f == idx || c.Finals[f].Call <= op.Call {
			c.TPs[tp].Final = idx
		}
		// Every completed final read is evidence (finals.go), whatever
		// the order in which they ran.
		if fs := c.TPs[tp].Finals; len(fs) == 0 || fs[len(fs)-1] != idx {
			c.TPs[tp].Finals = append(fs, idx)
		}
	}
	c.Finals = append(c.Finals, op)
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
	keys := make([]string, 0, len(a.Offsets))
	for k := range a.Offsets {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		part, err := histories.ParsePartitionKey(k)
		if err != nil {
			return errors.New(`assign value: field "offsets": bad partition key ` + k)
		}
		parts = append(parts, part)
	}
	for _, part := range parts {
		if err := c.checkPlace("assign value", []byte(a.Topic), part); err != nil {
			return err
		}
	}
	for _, part := range parts {
		delete(c.seqs, procTP{proc, c.tp([]byte(a.Topic), part)})
	}
	return nil
}
