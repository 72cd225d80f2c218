package checker

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/kchaos/kchaos/checker/model"

	"github.com/kchaos/kchaos/histories"
)

// Transactions (docs/HISTORY.md "Transactions"): how txn ops are decoded,
// validated and kept (model.Transactions). What the checks make of them is
// package txncheck.
//
// A txn's sends are kept like plain sends (one fixed-size record each,
// values numbered once), and each poll micro-op of a completion becomes a
// read of its own (History.TxnPolls) whose records join History.Recs: they are
// observations like any other (offset-reuse, duplicates), read at
// read_committed. They are not followed as a consumer's poll order: the
// position of a transactional consumer depends on the offsets its txns
// committed, which the history does not record.

// The txn tables, under the names the decoding uses (package model owns
// them: History.Transactions).
type (
	txnOp   = model.Txn
	txnSend = model.TxnSend
)

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
func (c *checker) pollInvoke(pd *pending, e *histories.Event) error {
	if len(e.Value) == 0 {
		return nil
	}
	var req histories.PollRequest // a group member's poll: group.go
	if err := histories.DecodePollRequest(e.Value, &req); err != nil {
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
func (c *checker) txnID(s string) int32 { return c.TxnIDs.ID(s) }

func (c *checker) invokeTxn(pd *pending, e *histories.Event) error {
	const what = "txn invoke value"
	if len(e.Value) == 0 {
		return errors.New(`txn invoke: missing field "value"`)
	}
	v, err := histories.DecodeTxnValue(what, e.Value, true)
	if err != nil {
		return err
	}
	pd.txn = int32(len(c.Txns))
	t := txnOp{Proc: int32(e.Process), Abort: *v.Intent == histories.TxnAbort, ID: c.txnID(*v.TransactionalID),
		Index: e.Index, Call: e.Time, Ret: -1, EndInv: -1, Start: int32(len(c.TxnSends))}
	for i, op := range v.MicroOps() {
		switch *op.F {
		case histories.TxnSend:
			where := fmt.Sprintf("%s: op %d (send)", what, i)
			if err := c.checkPlace(where, []byte(*op.Topic), *op.Partition); err != nil {
				return err
			}
			tp := c.tp([]byte(*op.Topic), *op.Partition)
			val := c.value([]byte(*op.Value))
			c.addTxnSendOf(val, int32(len(c.TxnSends)))
			c.TxnSends = append(c.TxnSends, txnSend{Txn: pd.txn, Val: val, TP: tp, Off: -1})
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
	t.End = int32(len(c.TxnSends))
	c.Txns = append(c.Txns, t)
	return nil
}

// addTxnSendOf records that txn send s invoked value val (see addSendOf).
func (c *checker) addTxnSendOf(val, s int32) { addWriter(&c.Vals[val].Txn, &c.TxnSendsOf, val, s) }

func (c *checker) completeTxn(pd *pending, e *histories.Event) error {
	ti := pd.txn
	t := &c.Txns[ti]
	t.Ret = e.Time
	t.Typ = completedAs(e.Type)
	if e.Error != "" {
		if c.TxnErr == nil {
			c.TxnErr = map[int32]string{}
		}
		c.TxnErr[ti] = e.Error
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
	if v.TransactionalID != nil && *v.TransactionalID != c.TxnIDs.List[t.ID] {
		return fmt.Errorf("%s: field \"transactional_id\": %q, but its invoke named %q", what, *v.TransactionalID, c.TxnIDs.List[t.ID])
	}
	if v.Intent != nil && (*v.Intent == histories.TxnAbort) != t.Abort {
		return fmt.Errorf("%s: field \"intent\": %q, but its invoke intended otherwise", what, *v.Intent)
	}
	if e.Type == histories.OK && t.Abort {
		return fmt.Errorf("%s: field \"intent\": %q, but the txn completed ok (ok means committed)", what, histories.TxnAbort)
	}
	if v.EndInvoked != nil {
		if *v.EndInvoked < t.Call || *v.EndInvoked > e.Time {
			return fmt.Errorf("%s: field \"end_invoked\": %d, outside its op (invoked %d, completed %d)", what, *v.EndInvoked, t.Call, e.Time)
		}
		t.EndInv = *v.EndInvoked
	}
	t.Told = v.Ops != nil
	m := txnMatch{c: c, t: t}
	for i, op := range v.MicroOps() {
		switch *op.F {
		case histories.TxnSend:
			where := fmt.Sprintf("%s: op %d (send)", what, i)
			s, err := m.of(where, &op)
			if err != nil {
				return err
			}
			ts := &c.TxnSends[s]
			ts.Done = true
			if op.Offset != nil {
				// Aborted records occupy offsets too: any outcome's offset
				// is an observation of the log.
				ts.Off = *op.Offset
				c.saw(ts.TP, ts.Off, ts.Val)
			}
		case histories.TxnPoll:
			topic, _ := json.Marshal(*op.Topic)
			recs := op.Records
			if len(recs) == 0 {
				recs = []byte("[]")
			}
			body := append(append(append(append([]byte(`{"topic":`), topic...), `,"records":`...), recs...), '}')
			rd := readCtx{what: fmt.Sprintf("%s: op %d (poll)", what, i), needTopic: true, polled: true, rc: true, proc: t.Proc, at: e.Time}
			start, end, _, err := c.recordsOf(&rd, body)
			if err != nil {
				return err
			}
			for j := start; j < end; j++ {
				c.TPs[c.Recs[j].TP].Polled++
			}
			c.TxnPolls = append(c.TxnPolls, model.Read{Proc: t.Proc, Call: t.Call, Ret: e.Time, Start: start, End: end, RC: true})
			c.TxnPollOf = append(c.TxnPollOf, ti)
		}
	}
	return nil
}

// txnMatch finds the send of t's invoke that each send op of its
// completion names (same topic, partition and value, the first not yet
// matched).
type txnMatch struct {
	c   *checker
	t   *txnOp
	idx map[txnKey][]int32 // unmatched sends by what they name, in send order
}

type txnKey struct {
	topic     string
	partition int32
	value     string
}

// of matches one send op. A txn of a few sends is searched; a larger one
// is indexed once, so that a txn of tens of thousands of sends does not
// cost their square.
func (m *txnMatch) of(where string, op *histories.TxnMicro) (int32, error) {
	c, t := m.c, m.t
	key := txnKey{*op.Topic, *op.Partition, *op.Value}
	if t.End-t.Start <= 16 {
		for s := t.Start; s < t.End; s++ {
			ts := &c.TxnSends[s]
			tpi := c.TPs[ts.TP]
			if !ts.Done && tpi.Topic == key.topic && tpi.Partition == key.partition && c.Vals[ts.Val].Str == key.value {
				return s, nil
			}
		}
	} else {
		if m.idx == nil {
			m.idx = map[txnKey][]int32{}
			for s := t.Start; s < t.End; s++ {
				ts := &c.TxnSends[s]
				k := txnKey{c.TPs[ts.TP].Topic, c.TPs[ts.TP].Partition, c.Vals[ts.Val].Str}
				m.idx[k] = append(m.idx[k], s)
			}
		}
		if q := m.idx[key]; len(q) > 0 {
			m.idx[key] = q[1:]
			return q[0], nil
		}
	}
	return -1, fmt.Errorf("%s: field \"value\": %q to %s-%d, but its invoke lists no such send", where, *op.Value, *op.Topic, *op.Partition)
}
