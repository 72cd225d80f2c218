package checker

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/kchaos/kchaos/checker/model"

	"github.com/kchaos/kchaos/histories"
)

// Transactions (docs/HISTORY.md "Transactions"): how txn ops are decoded,
// validated and kept. What the checks make of them is in txncheck.go, the
// dependency cycles in txncycle.go.
//
// A txn's sends are kept like plain sends (one fixed-size record each,
// values numbered once), and each poll micro-op of a completion becomes a
// read of its own (txnState.txnPolls) whose records join c.recs: they are
// observations like any other (offset-reuse, duplicates), read at
// read_committed. They are not followed as a consumer's poll order: the
// position of a transactional consumer depends on the offsets its txns
// committed, which the history does not record.

// txnOp is one txn op. Like sendOp it holds no pointers.
type txnOp struct {
	proc       int32
	typ        uint8 // opOpen, opOK, opFail or opInfo
	abort      bool  // its intent was abort
	told       bool  // its completion listed what was attempted
	id         int32 // its transactional id, in txnState.txnIDs.list
	index      int64 // the history index of its invoke
	call, ret  int64 // ret is -1 while open, and for a txn open at the end
	endInv     int64 // end_invoked, -1 if not recorded
	start, end int32 // its sends, in txnState.txnSends
}

// txnSend is one send micro-operation.
type txnSend struct {
	txn, val, tp int32
	off          int64 // -1 unless acked inside the txn
	done         bool  // listed in the completion: attempted
}

// txnState is the part of the Checker that holds transactions.
type txnState struct {
	txns       []txnOp
	txnSends   []txnSend
	txnIDs     names
	txnErr     map[int32]string  // txn -> its completion's error
	txnSendsOf map[int32][]int32 // value -> its txn sends after the first
	txnPolls   []model.Read      // the poll micro-ops of completions
	txnPollOf  []int32           // txnPolls[i] -> its txn
}

// isolation reads a read invoke's isolation: true for read_committed.
func isolation(what, iso string) (bool, error) {
	switch iso {
	case "", histories.ReadUncommitted:
		return false, nil
	case histories.ReadCommitted:
		return true, nil
	}
	return false, fmt.Errorf("%s: field \"isolation\": %q, want %q or %q", what, iso, histories.ReadCommitted, histories.ReadUncommitted)
}

// pollInvoke reads the isolation of a poll invoke (the only field of it
// the checks use).
func (c *Checker) pollInvoke(pd *pending, e *histories.Event) error {
	if len(e.Value) == 0 {
		return nil
	}
	var req struct {
		Isolation string `json:"isolation"`
		// A group member's poll (group.go).
		Group      *string `json:"group"`
		MemberID   *string `json:"member_id"`
		Generation *int32  `json:"generation"`
	}
	if err := json.Unmarshal(e.Value, &req); err != nil {
		return fmt.Errorf("poll invoke value: %w", histories.FieldError(err))
	}
	rc, err := isolation("poll invoke value", req.Isolation)
	pd.rc = rc
	if err != nil {
		return err
	}
	return c.groupPollInvoke(pd, e, req.Group, req.MemberID, req.Generation)
}

// txnID numbers a transactional id.
func (c *Checker) txnID(s string) int32 { return c.txnIDs.ID(s) }

func (c *Checker) invokeTxn(pd *pending, e *histories.Event) error {
	const what = "txn invoke value"
	if len(e.Value) == 0 {
		return errors.New(`txn invoke: missing field "value"`)
	}
	v, err := histories.DecodeTxnValue(what, e.Value, true)
	if err != nil {
		return err
	}
	pd.txn = int32(len(c.txns))
	t := txnOp{proc: int32(e.Process), abort: *v.Intent == histories.TxnAbort, id: c.txnID(*v.TransactionalID),
		index: e.Index, call: e.Time, ret: -1, endInv: -1, start: int32(len(c.txnSends))}
	for i, op := range v.MicroOps() {
		switch *op.F {
		case histories.TxnSend:
			where := fmt.Sprintf("%s: op %d (send)", what, i)
			if err := c.checkPlace(where, []byte(*op.Topic), *op.Partition); err != nil {
				return err
			}
			tp := c.tp([]byte(*op.Topic), *op.Partition)
			val := c.value([]byte(*op.Value))
			c.addTxnSendOf(val, int32(len(c.txnSends)))
			c.txnSends = append(c.txnSends, txnSend{txn: pd.txn, val: val, tp: tp, off: -1})
			c.MarkTxnTP(tp)
		case histories.TxnPoll:
			where := fmt.Sprintf("%s: op %d (poll)", what, i)
			if op.Partitions == nil {
				return fmt.Errorf("%s: missing field \"partitions\"", where)
			}
			for _, part := range *op.Partitions {
				if err := c.checkPlace(where, []byte(*op.Topic), part); err != nil {
					return err
				}
				c.MarkTxnTP(c.tp([]byte(*op.Topic), part))
			}
		}
	}
	t.end = int32(len(c.txnSends))
	c.txns = append(c.txns, t)
	return nil
}

// addTxnSendOf records that txn send s invoked value val (see addSendOf).
func (c *Checker) addTxnSendOf(val, s int32) {
	vi := &c.Vals[val]
	if vi.Txn < 0 {
		vi.Txn = s
		return
	}
	if c.txnSendsOf == nil {
		c.txnSendsOf = map[int32][]int32{}
	}
	c.txnSendsOf[val] = append(c.txnSendsOf[val], s)
}

func (c *Checker) completeTxn(pd *pending, e *histories.Event) error {
	ti := pd.txn
	t := &c.txns[ti]
	t.ret = e.Time
	switch e.Type {
	case histories.OK:
		t.typ = model.OpOK
	case histories.Fail:
		t.typ = model.OpFail
	default:
		t.typ = model.OpInfo
	}
	if e.Error != "" {
		if c.txnErr == nil {
			c.txnErr = map[int32]string{}
		}
		c.txnErr[ti] = e.Error
	}
	what := fmt.Sprintf("txn %s value", e.Type)
	if len(e.Value) == 0 {
		if e.Type == histories.OK {
			return errors.New(`txn ok: missing field "value"`)
		}
		return nil
	}
	v, err := histories.DecodeTxnValue(what, e.Value, e.Type == histories.OK)
	if err != nil {
		return err
	}
	if v.TransactionalID != nil && *v.TransactionalID != c.txnIDs.List[t.id] {
		return fmt.Errorf("%s: field \"transactional_id\": %q, but its invoke named %q", what, *v.TransactionalID, c.txnIDs.List[t.id])
	}
	if v.Intent != nil && (*v.Intent == histories.TxnAbort) != t.abort {
		return fmt.Errorf("%s: field \"intent\": %q, but its invoke intended otherwise", what, *v.Intent)
	}
	if e.Type == histories.OK && t.abort {
		return fmt.Errorf("%s: field \"intent\": %q, but the txn completed ok (ok means committed)", what, histories.TxnAbort)
	}
	if v.EndInvoked != nil {
		if *v.EndInvoked < t.call || *v.EndInvoked > e.Time {
			return fmt.Errorf("%s: field \"end_invoked\": %d, outside its op (invoked %d, completed %d)", what, *v.EndInvoked, t.call, e.Time)
		}
		t.endInv = *v.EndInvoked
	}
	t.told = v.Ops != nil
	for i, op := range v.MicroOps() {
		switch *op.F {
		case histories.TxnSend:
			where := fmt.Sprintf("%s: op %d (send)", what, i)
			s, err := c.txnSendOf(t, where, &op)
			if err != nil {
				return err
			}
			ts := &c.txnSends[s]
			ts.done = true
			if op.Offset != nil {
				// Aborted records occupy offsets too: any outcome's offset
				// is an observation of the log.
				ts.off = *op.Offset
				c.saw(ts.tp, ts.off, ts.val)
			}
		case histories.TxnPoll:
			topic, _ := json.Marshal(*op.Topic)
			recs := op.Records
			if len(recs) == 0 {
				recs = []byte("[]")
			}
			body := append(append(append(append([]byte(`{"topic":`), topic...), `,"records":`...), recs...), '}')
			rd := readCtx{what: fmt.Sprintf("%s: op %d (poll)", what, i), needTopic: true, polled: true, rc: true, proc: t.proc, at: e.Time}
			start, end, _, err := c.recordsOf(&rd, body)
			if err != nil {
				return err
			}
			for j := start; j < end; j++ {
				c.TPs[c.Recs[j].TP].Polled++
			}
			c.txnPolls = append(c.txnPolls, model.Read{Proc: t.proc, Call: t.call, Ret: e.Time, Start: start, End: end, RC: true})
			c.txnPollOf = append(c.txnPollOf, ti)
		}
	}
	return nil
}

// txnSendOf finds the send of t's invoke that a completion's send op
// names (same topic, partition and value, not yet matched).
func (c *Checker) txnSendOf(t *txnOp, where string, op *histories.TxnMicro) (int32, error) {
	for s := t.start; s < t.end; s++ {
		ts := &c.txnSends[s]
		tpi := c.TPs[ts.tp]
		if !ts.done && tpi.Topic == *op.Topic && tpi.Partition == *op.Partition && c.Vals[ts.val].Str == *op.Value {
			return s, nil
		}
	}
	return -1, fmt.Errorf("%s: field \"value\": %q to %s-%d, but its invoke lists no such send", where, *op.Value, *op.Topic, *op.Partition)
}
