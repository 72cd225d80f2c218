package model

import "math"

// Transactions is what a history holds of transactions (docs/HISTORY.md
// "Transactions"): each txn op, its sends kept like plain sends (one
// fixed-size record each), and each poll micro-op of a completion as a
// read of its own whose records join History.Recs.
type Transactions struct {
	Txns       []Txn
	TxnSends   []TxnSend
	TxnIDs     Names             // transactional ids, numbered in order first seen
	TxnErr     map[int32]string  // txn -> its completion's error
	TxnSendsOf map[int32][]int32 // value -> its txn sends after the first
	TxnPolls   []Read            // the poll micro-ops of completions
	TxnPollOf  []int32           // TxnPolls[i] -> its txn
}

// Txn is one txn op. Like Send it holds no pointers.
type Txn struct {
	Proc       int32
	Typ        uint8 // OpOpen, OpOK, OpFail or OpInfo
	Abort      bool  // its intent was abort
	Told       bool  // its completion listed what was attempted
	ID         int32 // its transactional id, in TxnIDs.List
	Index      int64 // the history index of its invoke
	Call, Ret  int64 // Ret is -1 while open, and for a txn open at the end
	EndInv     int64 // end_invoked, -1 if not recorded
	Start, End int32 // its sends, in TxnSends
}

// TxnSend is one send micro-operation.
type TxnSend struct {
	Txn, Val, TP int32
	Off          int64 // -1 unless acked inside the txn
	Done         bool  // listed in the completion: attempted
}

// txnRank is ExplainRank for the txn sends of a value: 4 acked at that
// offset of tp (whatever the outcome: aborted records occupy offsets), 3
// sent to tp by a txn that may have committed, 2 sent to tp by a failed
// txn, 1 sent elsewhere, 0 none.
func (c *History) txnRank(val, tp int32, off int64) (int32, int) {
	return bestRanked(c.Vals[val].Txn, c.TxnSendsOf[val], func(i int32) int {
		s := &c.TxnSends[i]
		switch {
		case s.TP == tp && s.Off == off:
			return 4
		case s.TP == tp && c.Txns[s.Txn].Typ != OpFail:
			return 3
		case s.TP == tp:
			return 2
		}
		return 1
	})
}

// Writer returns who best explains value val at offset off of tp: a plain
// send (plain >= 0) or a txn send (txn >= 0), neither if no send invoked
// it. A txn send wins only when it explains the record strictly better,
// so that histories without txns are judged exactly as before.
func (c *History) Writer(val, tp int32, off int64) (plain, txn int32) {
	if c.Vals[val].Txn < 0 {
		return c.Explainer(val, tp, off), -1
	}
	p, pr := c.explainRank(val, tp, off)
	t, tr := c.txnRank(val, tp, off)
	if tr > pr {
		return -1, t
	}
	return p, -1
}

// CommittedVisible reports whether a read_committed reader should see the
// record val at off of tp: a plain send's value, a committed txn's, or a
// value no send explains (unexpected: it is reported as such).
func (c *History) CommittedVisible(val, tp int32, off int64) bool {
	_, ts := c.Writer(val, tp, off)
	return ts < 0 || c.Txns[c.TxnSends[ts].Txn].Typ == OpOK
}

// WriteInvoked is when the write of val at off of tp was invoked: its
// send's invoke, or its txn's, when that send went to tp; math.MaxInt64
// when no send is known (a latest group's reset, package groupcheck).
func (c *History) WriteInvoked(val, tp int32, off int64) int64 {
	if s, ts := c.Writer(val, tp, off); s >= 0 && c.Sends[s].TP == tp {
		return c.Sends[s].Call
	} else if ts >= 0 && c.TxnSends[ts].TP == tp {
		return c.Txns[c.TxnSends[ts].Txn].Call
	}
	return math.MaxInt64
}
