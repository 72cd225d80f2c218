package checker

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/kchaos/kchaos/histories"
)

// How a read's records are decoded into History.Recs, checked against the
// run's topic and partitions and the read's own bounds, and followed in
// each consumer's poll order (the v1 order rules; client.go completes the
// reads).

// readRecords decodes a read's records into c.recs, sorted by partition and
// offset, and returns their range.
func (c *checker) readRecords(e *histories.Event, polled, rc bool) (int32, int32, *histories.ReadFields, error) {
	rd := readCtx{what: c.readWhat(e.F, e.Type), needTopic: e.Type == histories.OK,
		polled: polled, order: polled, rc: rc, proc: int32(e.Process), at: e.Time}
	return c.recordsOf(&rd, e.Value)
}

// readName is the name errors give the value of a read of one f and type.
type readName struct {
	f    string
	typ  histories.Type
	what string
}

// readWhat is "F TYPE value", what errors call a read's value. A read
// has one of a few pairs, so each is spelled once and kept: fmt.Sprintf
// per read was a twelfth of decoding the reads of a 1M-op history.
func (c *checker) readWhat(f string, typ histories.Type) string {
	for _, n := range c.readNames {
		if n.f == f && n.typ == typ {
			return n.what
		}
	}
	what := fmt.Sprintf("%s %s value", f, typ)
	if len(c.readNames) < 16 {
		c.readNames = append(c.readNames, readName{f, typ, what})
	}
	return what
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
func (c *checker) recordsOf(rd *readCtx, raw []byte) (int32, int32, *histories.ReadFields, error) {
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
		if c.misplaced(v.Topic, r.Partition) {
			return 0, 0, nil, c.checkPlace(fmt.Sprintf("%s: record %d", what, i), v.Topic, r.Partition)
		}
		if end, ok := v.Ends[r.Partition]; ok && r.Offset >= end {
			return 0, 0, nil, fmt.Errorf("%s: record %d at offset %d of partition %d, at or past the end the read reports (field \"end_offsets\": %d)", what, i, r.Offset, r.Partition, end)
		}
		if st, ok := v.Starts[r.Partition]; ok && r.Offset < st {
			return 0, 0, nil, fmt.Errorf("%s: record %d at offset %d of partition %d, below the log start the read reports (field \"start_offsets\": %d)", what, i, r.Offset, r.Partition, st)
		}
		tp := c.tp(v.Topic, r.Partition)
		val := c.valueAt(tp, r.Offset, r.Value)
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
func (c *checker) checkBounds(what string, v *histories.ReadFields) error {
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
	for _, p := range sortedKeys(v.Open) {
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

// sortedKeys returns m's keys in order (iterating a map directly would
// number partitions in Go's random map order) in one allocation, where
// slices.Sorted(maps.Keys(m)) grows its slice: a check sorts the
// partitions of every read.
func sortedKeys[K cmp.Ordered, V any](m map[K]V) []K {
	keys := slices.AppendSeq(make([]K, 0, len(m)), maps.Keys(m))
	slices.Sort(keys)
	return keys
}

// pollOrder follows one consumer through the records of a poll, in the
// order the poll returned them: each record must come right after the
// previous one it read on that partition (since its last assign). Going
// back is nonmonotonic-poll; skipping ahead is a poll-skip candidate,
// reported if the final read shows the skipped offsets exist.
func (c *checker) pollOrder(proc int32, recs []rec, at int64, rc bool) {
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
		g := pollGap{Proc: proc, TP: r.TP, PrevLast: seq.last, First: r.Off, PrevVal: seq.val, FirstVal: r.Val, At: at, RC: rc}
		switch {
		case r.Off <= seq.last:
			c.PollBacks = append(c.PollBacks, g)
		case r.Off > seq.last+1:
			c.PollGaps = append(c.PollGaps, g)
		}
		seq.last, seq.val = r.Off, r.Val
	}
}

func recCmp(a, b rec) int {
	return cmp.Or(cmp.Compare(a.TP, b.TP), cmp.Compare(a.Off, b.Off))
}
