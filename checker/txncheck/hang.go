package txncheck

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kchaos/kchaos/checker/judge"
	"github.com/kchaos/kchaos/checker/model"
	"github.com/kchaos/kchaos/histories"
)

// A hanging transaction (docs/HISTORY.md, "Hanging transactions"): a
// partition's leader holds a transaction open that nobody will end, so
// its last stable offset stays at the transaction's first record and no
// read_committed reader ever passes it (KAFKA-20716: an unclean election
// can leave a replica with a transaction's records but not its marker).
// The committed records above it are in the log, not lost: they are held
// back. The check reads what the final reads recorded (high watermark,
// last stable offset, the open transactions DescribeProducers listed) and
// names, per partition, the transaction holding the last stable offset.

// TxnHanging is the anomaly's name.
const TxnHanging = "txn-hanging"

// HangingMargin is how much longer than its timeout a transaction must
// stay open after the final heal before it counts as hanging: the
// coordinator looks for timed-out transactions every 10 s by default
// (transaction.abort.timed.out.transaction.cleanup.interval.ms), and then
// writes the abort markers.
const HangingMargin = 15 * time.Second

// maxTxnTimeout is Kafka's default transaction.max.timeout.ms: no
// producer's transaction timeout can exceed it, so it bounds a timeout the
// history does not know.
const maxTxnTimeout = 15 * time.Minute

// TxnHangingEntry is one partition whose last stable offset a transaction
// holds back.
type TxnHangingEntry struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	// The open transaction as the partition's leader described it.
	ProducerID       int64  `json:"producer_id"`
	ProducerEpoch    int16  `json:"producer_epoch"`
	CoordinatorEpoch int32  `json:"coordinator_epoch"`
	FirstOffset      int64  `json:"first_offset"`
	TransactionalID  string `json:"transactional_id,omitempty"`
	// CoordinatorState is what the transactional id's coordinator said
	// (empty: no coordinator lists the producer id).
	CoordinatorState string `json:"coordinator_state,omitempty"`
	// FindHanging is what `kafka-transactions.sh find-hanging` decides
	// from the same answers (once the transaction is older than its
	// --max-transaction-timeout).
	FindHanging      bool  `json:"find_hanging"`
	LastStableOffset int64 `json:"last_stable_offset"`
	HighWatermark    int64 `json:"high_watermark"`
	// OpenS is how long it had been open, at least, when the final read
	// described it; OpenAfterHealS how much of that came after the final
	// heal (or the run's start).
	OpenS          float64 `json:"open_s"`
	OpenAfterHealS float64 `json:"open_after_heal_s"`
	TimeoutS       float64 `json:"timeout_s"`
	MarginS        float64 `json:"margin_s"`
	// Counted: it stayed open longer than its timeout plus the margin
	// after the final heal, so the coordinator will never end it. When
	// false, the verdict is unknown: it may still be aborted.
	Counted bool `json:"counted"`
	// Txn is the history's txn whose record is at first_offset, if known.
	Txn *TxnRef `json:"txn,omitempty"`
	// HeldBack are the committed values (plain sends acked, committed txns'
	// sends: a txn that ended ok, or one of unknown outcome a
	// read_committed read proved committed) at offsets from the last
	// stable offset up to the high watermark: a read_committed reader
	// cannot reach them.
	HeldBack HeldBack `json:"held_back"`
	// FinalRead is the final read that recorded it.
	FinalRead judge.FinalReadRef `json:"final_read"`
	Faults    []judge.FaultRef   `json:"faults,omitempty"`
	// Requests are the request faults' actions while it was open (a
	// Produce replayed after its producer's epoch moved on, an EndTxn
	// answer withheld), the last 5.
	Requests []judge.RequestRef `json:"requests,omitempty"`
	// Recovery is what an operator runs to end it (KIP-664's tool).
	Recovery string `json:"recovery"`
	Text     string `json:"text"`
}

// HeldBack counts the committed values a hanging transaction holds back.
type HeldBack struct {
	Count       int      `json:"count"`
	FirstOffset int64    `json:"first_offset,omitempty"`
	LastOffset  int64    `json:"last_offset,omitempty"`
	Values      []string `json:"values,omitempty"` // the first ten
	// InLog is how many of them a completed final read holds (at
	// read_uncommitted): they are in the log, not lost.
	InLog int `json:"in_log"`
}

// txnHanging finds, per partition, the transactions that held back the
// last stable offset in some completed final read (every completed final
// read is evidence: one that an operator aborted after a read saw it hang
// stays reported), each described by the read invoked last that saw it.
func (a *run) txnHanging() {
	c := a.c
	type key struct {
		pid   int64
		first int64
	}
	for tp := range c.TPs {
		seen := map[key]int32{}
		var order []key
		for _, f := range c.TPs[tp].Finals {
			ends := c.Finals[f].TxnEnds
			if ends == nil {
				continue
			}
			lso, okL := ends.LSOs[int32(tp)]
			hw, okH := ends.HWs[int32(tp)]
			if !okL || !okH || lso >= hw {
				continue
			}
			for _, o := range ends.Open[int32(tp)] {
				if o.FirstOffset != lso {
					continue
				}
				k := key{o.ProducerID, o.FirstOffset}
				if prev, ok := seen[k]; !ok {
					order = append(order, k)
					seen[k] = f
				} else if c.Finals[f].Call >= c.Finals[prev].Call {
					seen[k] = f
				}
			}
		}
		slices.SortFunc(order, func(x, y key) int { return cmp.Or(cmp.Compare(x.first, y.first), cmp.Compare(x.pid, y.pid)) })
		for _, k := range order {
			f := seen[k]
			ends := c.Finals[f].TxnEnds
			for i := range ends.Open[int32(tp)] {
				if o := &ends.Open[int32(tp)][i]; o.ProducerID == k.pid && o.FirstOffset == k.first {
					a.out.TxnHanging = append(a.out.TxnHanging,
						a.hangingEntry(int32(tp), f, o, ends.LSOs[int32(tp)], ends.HWs[int32(tp)]))
					break
				}
			}
		}
	}
}

func (a *run) hangingEntry(tp, f int32, o *histories.OpenTxn, lso, hw int64) TxnHangingEntry {
	c := a.c
	t := c.TPs[tp]
	op := &c.Finals[f]
	e := TxnHangingEntry{Topic: t.Topic, Partition: t.Partition, ProducerID: o.ProducerID, ProducerEpoch: o.ProducerEpoch,
		CoordinatorEpoch: o.CoordinatorEpoch, FirstOffset: o.FirstOffset, TransactionalID: o.TransactionalID,
		CoordinatorState: o.CoordinatorState, FindHanging: o.Hanging, LastStableOffset: lso, HighWatermark: hw,
		FinalRead: *judge.FinalRef(a.c, f, tp), MarginS: HangingMargin.Seconds()}
	// When it was described: on the history's clock if recorded (and
	// within the read), else the read's invoke (it was open no later).
	at := op.Call
	if o.DescribedAt >= op.Call && o.DescribedAt <= op.Ret {
		at = o.DescribedAt
	}
	since := at - o.OpenMS*int64(time.Millisecond)
	if ts := a.txnSendAt(tp, o.FirstOffset); ts >= 0 {
		txn := c.TxnSends[ts].Txn
		ref := a.txnRef(txn)
		e.Txn = &ref
		since = min(since, c.Txns[txn].Call)
	}
	since = max(since, 0)
	heal := a.finalHealBefore(at)
	e.OpenS = judge.Secs(at - since)
	e.OpenAfterHealS = judge.Secs(at - max(since, heal))
	timeout := a.in.TxnTimeout
	if timeout <= 0 && o.TimeoutMS > 0 {
		timeout = time.Duration(o.TimeoutMS) * time.Millisecond
	}
	if timeout <= 0 {
		timeout = maxTxnTimeout
	}
	e.TimeoutS = timeout.Seconds()
	e.Counted = time.Duration(at-max(since, heal)) > timeout+HangingMargin
	e.HeldBack = a.heldBack(tp, lso, hw)
	e.Faults = a.in.Places.FaultsBetween(since, at)
	e.Requests = a.in.Places.RequestsBetween(since, at)
	e.Recovery = fmt.Sprintf("kafka-transactions.sh --bootstrap-server BROKER abort --topic %s --partition %d "+
		"--producer-id %d --producer-epoch %d --coordinator-epoch %d", t.Topic, t.Partition, o.ProducerID, o.ProducerEpoch, o.CoordinatorEpoch)
	e.Text = hangingText(t.Name(), &e)
	return e
}

// txnSendAt is the txn send acked at off of tp, or one a completed final
// read holds there, or -1.
func (a *run) txnSendAt(tp int32, off int64) int32 {
	for i := range a.c.TxnSends {
		if s := &a.c.TxnSends[i]; s.TP == tp && s.Off == off {
			return int32(i)
		}
	}
	for _, f := range a.c.TPs[tp].Finals {
		if r, ok := judge.FinalAtOf(a.c, f, tp, off); ok {
			if _, ts := a.c.Writer(r.Val, tp, off); ts >= 0 {
				return ts
			}
		}
	}
	return -1
}

// finalHealBefore is the time of the last heal of every fault invoked at
// or before t (the final heal), or 0.
func (a *run) finalHealBefore(t int64) int64 {
	at := int64(0)
	for _, n := range a.c.Nem {
		if n.F == histories.FHeal && (n.V.Fault == "" || n.V.Fault == histories.HealAll) && n.Call <= t {
			at = max(at, n.Call)
		}
	}
	return at
}

// heldBack gathers the committed values at offsets [lso, hw) of tp.
func (a *run) heldBack(tp int32, lso, hw int64) HeldBack {
	c := a.c
	type held struct {
		off int64
		val int32
	}
	var hs []held
	for i := range c.Sends {
		if s := &c.Sends[i]; s.TP == tp && s.Typ == model.OpOK && s.Off >= lso && s.Off < hw {
			hs = append(hs, held{s.Off, s.Val})
		}
	}
	for i := range c.TxnSends {
		s := &c.TxnSends[i]
		if s.TP != tp {
			continue
		}
		// Committed: its txn ended ok, or a read_committed read proved it
		// (an info txn whose commit's answer was lost: the same evidence
		// txn-lost-write takes, judge.Finals.SeenTxn).
		off := s.Off
		if c.Txns[s.Txn].Typ != model.OpOK {
			seen, ok := a.in.Finals.SeenTxn[int32(i)]
			if !ok {
				continue
			}
			if off < 0 {
				off = seen.Off
			}
		}
		if off >= lso && off < hw {
			hs = append(hs, held{off, s.Val})
		}
	}
	slices.SortFunc(hs, func(x, y held) int { return int(x.off - y.off) })
	var h HeldBack
	for _, x := range hs {
		if h.Count == 0 {
			h.FirstOffset = x.off
		}
		h.Count++
		h.LastOffset = x.off
		if len(h.Values) < 10 {
			h.Values = append(h.Values, c.Vals[x.val].Str)
		}
		if a.in.Finals.InSome(x.val) {
			h.InLog++
		}
	}
	return h
}

// hangingText renders a txn-hanging entry as one sentence.
func hangingText(name string, e *TxnHangingEntry) string {
	who := fmt.Sprintf("producer %d epoch %d", e.ProducerID, e.ProducerEpoch)
	if e.TransactionalID != "" {
		who = fmt.Sprintf("%q (%s)", e.TransactionalID, who)
	}
	parts := []string{fmt.Sprintf("%s: a transaction of %s open since offset %d holds the last stable offset at %d (high watermark %d) for at least %.1f s, %.1f s of them after the final heal",
		name, who, e.FirstOffset, e.LastStableOffset, e.HighWatermark, e.OpenS, e.OpenAfterHealS)}
	if e.Txn != nil {
		parts = append(parts, fmt.Sprintf("its record is txn %q (index %d, p%d) that ended %s", e.Txn.TransactionalID, e.Txn.Index, e.Txn.Process, e.Txn.Type))
	}
	coord := "no coordinator lists the producer"
	if e.CoordinatorState != "" {
		coord = "its coordinator says " + e.CoordinatorState
	}
	parts = append(parts, coord)
	if e.HeldBack.Count > 0 {
		parts = append(parts, fmt.Sprintf("%d committed records (offsets %d-%d, %d of them in the log) are held back from read_committed readers",
			e.HeldBack.Count, e.HeldBack.FirstOffset, e.HeldBack.LastOffset, e.HeldBack.InLog))
	}
	if e.Counted {
		parts = append(parts, fmt.Sprintf("longer than its timeout %.0f s plus %.0f s: nothing will end it (KAFKA-20716); recover with %s",
			e.TimeoutS, e.MarginS, e.Recovery))
	} else {
		parts = append(parts, fmt.Sprintf("not yet longer than its timeout %.0f s plus %.0f s: the coordinator may still abort it", e.TimeoutS, e.MarginS))
	}
	if e.FindHanging {
		parts = append(parts, "kafka-transactions.sh find-hanging would list it")
	}
	if w := judge.RequestsWords("request actions while it was open: ", e.Requests); w != "" {
		parts = append(parts, w)
	}
	return strings.Join(parts, "; ")
}
