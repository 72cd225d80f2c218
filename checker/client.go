package checker

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kchaos/kchaos/checker/model"
	"github.com/kchaos/kchaos/histories"
)

// pollSeq is where one consumer's last poll of a partition ended.
type pollSeq struct {
	last int64
	val  int32
}

// The order tables, under the names the decoding uses (package model
// owns them: History.Log).
type (
	pollGap = model.PollGap
	nmSend  = model.NonmonotonicSend
)

func (c *checker) addClient(e *histories.Event) error {
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
		var err error
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
			err = c.pollInvoke(pd, e)
		case histories.FTxn:
			err = c.invokeTxn(pd, e)
		case histories.FSubscribe:
			err = c.invokeSubscribe(pd, e)
		case histories.FCommit:
			err = c.invokeCommit(pd, e)
		case histories.FRebalance:
			err = c.invokeRebalance(pd, e)
		case histories.FGroupFinal: // groupfinal.go
			err = c.invokeGroupFinal(pd, e)
		case histories.FAssign:
		case histories.FShareSubscribe, histories.FSharePoll, histories.FShareAck, histories.FShareOffsets: // domain_share.go
		default:
			c.ignored[e.F]++
		}
		if err != nil {
			return err
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
		if c.Members[int32(p)] != nil {
			c.GoneAt[int32(p)] = e.Time
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
	case histories.FGroupFinal:
		return c.completeGroupFinal(pd, e)
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
func (c *checker) checkPlace(what string, topic []byte, p int32) error {
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

// misplaced reports whether checkPlace refuses topic and p: a caller
// that builds checkPlace's words per record asks it first, so that a
// read of a million records formats no words for the records in place.
func (c *checker) misplaced(topic []byte, p int32) bool {
	return c.checkPlace("", topic, p) != nil // words only for a misplaced one
}

// addSendOf records that send s invoked value val (values the format
// says are unique may still be re-sent: each read is attributed to the
// send that explains it, see explainer).
func (c *checker) addSendOf(val, s int32) { addWriter(&c.Vals[val].Send, &c.SendsOf, val, s) }

// addWriter records that s wrote val: as its first writer, or after it
// in more (made on first use).
func addWriter(first *int32, more *map[int32][]int32, val, s int32) {
	if *first < 0 {
		*first = s
		return
	}
	if *more == nil {
		*more = map[int32][]int32{}
	}
	(*more)[val] = append((*more)[val], s)
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

// completedAs is the model's type of an op that completed as typ: a
// completion neither ok nor fail is info.
func completedAs(typ histories.Type) uint8 {
	switch typ {
	case histories.OK:
		return model.OpOK
	case histories.Fail:
		return model.OpFail
	}
	return model.OpInfo
}

func (c *checker) completeSend(pd *pending, e *histories.Event) error {
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
			c.NonmonotonicSends = append(c.NonmonotonicSends, nmSend{Prev: prev, Next: pd.send})
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
func (c *checker) sameSend(s *model.Send, v *histories.SendFields) error {
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
func (c *checker) sameCompletion(s *model.Send, e *histories.Event) error {
	if len(e.Value) == 0 {
		return nil
	}
	var v histories.SendFields
	if err := histories.DecodeSendValue(e.Value, &v); err != nil {
		return fmt.Errorf("send %s value: %w", e.Type, err)
	}
	return c.sameSend(s, &v)
}

func (c *checker) completePoll(pd *pending, e *histories.Event) error {
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
func (c *checker) completePartial(pd *pending, e *histories.Event) error {
	start, end, _, err := c.readRecords(e, false, pd.rc)
	if err != nil {
		return err
	}
	c.Partials = append(c.Partials, model.Read{Proc: int32(e.Process), Call: pd.call, Ret: e.Time, Start: start, End: end, RC: pd.rc})
	return nil
}

func (c *checker) completeFinal(pd *pending, e *histories.Event) error {
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
		for _, p := range sortedKeys(v.Open) {
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
func (c *checker) assign(p int, e *histories.Event) error {
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
	keys := sortedKeys(a.Offsets)
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
