package logorder

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/checker/domain"
	"github.com/kchaos/kchaos/checker/judge"
	"github.com/kchaos/kchaos/checker/model"
	"github.com/kchaos/kchaos/internal/tally"
)

// The sentences of the value and order anomalies (duplicate, aborted-read,
// unexpected, nonmonotonic-send, poll-skip, nonmonotonic-poll) that count
// against the verdict: one explanation per kind and partition, after the
// lost-write and offset-reuse ranges, so that a verdict that rests on them
// names what it rests on as the loss does. Each names its first entries
// (values, offsets, processes, times), where the partition stood at the
// first (leader, leader epoch, ISR) and the fault before it; a send acked
// below its process's previous ack, and a poll that went back, say
// whether the earlier offset was reused or lost, which is the usual
// cause (an unclean election hands the offsets out again).

// logKinds are the kinds LogAnomalies declares, read once: whether one
// counts is its rule's, never written here again.
var logKinds = domain.KindsOf[LogAnomalies]()

// namedInText bounds the entries one sentence names; the explanation's
// Offsets and Values list up to judge.MaxListed, Count all of them.
const namedInText = 3

// counts says whether kind name counts against the verdict of this run.
func (a *run) counts(name string) bool {
	for _, k := range logKinds {
		if k.Name == name {
			return k.Counts(a.in.Options)
		}
	}
	return false
}

// explainOrder appends the value and order anomalies' explanations.
func (a *run) explainOrder() {
	valueHeads := []struct {
		kind    string
		entries []ValueEntry
		what    func(n int) string
	}{
		{Duplicate, a.out.Duplicate, func(n int) string { return tally.N(n, "value", "values") + " in the log more than once" }},
		{AbortedRead, a.out.AbortedRead, func(n int) string { return tally.N(n, "value", "values") + " of failed sends read" }},
		{Unexpected, a.out.Unexpected, func(n int) string { return tally.N(n, "value", "values") + " read that no send wrote" }},
	}
	for _, h := range valueHeads {
		if !a.counts(h.kind) {
			continue
		}
		for _, g := range byPartition(h.entries, func(e *ValueEntry) (string, int32) { return e.Topic, e.Partition }) {
			a.explainValues(h.kind, h.what(len(g)), g)
		}
	}
	if a.counts(NonmonotonicSend) {
		for _, g := range byPartition(a.out.NonmonotonicSend, func(e *NonmonotonicSendEntry) (string, int32) { return e.Topic, e.Partition }) {
			a.explainSendOrder(g)
		}
	}
	pollHeads := []struct {
		kind    string
		entries []PollEntry
		what    string
	}{
		{PollSkip, a.out.PollSkip, "skipped records the final read holds"},
		{NonmonotonicPoll, a.out.NonmonotonicPoll, "began at or before the same process's last offset read"},
	}
	for _, h := range pollHeads {
		if !a.counts(h.kind) {
			continue
		}
		for _, g := range byPartition(h.entries, func(e *PollEntry) (string, int32) { return e.Topic, e.Partition }) {
			a.explainPolls(h.kind, h.what, g)
		}
	}
}

// byPartition splits entries by topic and partition, in that order,
// keeping each partition's entries in the order found.
func byPartition[E any](entries []E, tp func(*E) (string, int32)) [][]E {
	groups := map[tpKey][]E{}
	for i := range entries {
		t, p := tp(&entries[i])
		groups[tpKey{t, p}] = append(groups[tpKey{t, p}], entries[i])
	}
	keys := slices.SortedFunc(maps.Keys(groups), func(x, y tpKey) int {
		return cmp.Or(cmp.Compare(x.topic, y.topic), cmp.Compare(x.partition, y.partition))
	})
	out := make([][]E, len(keys))
	for i, k := range keys {
		out[i] = groups[k]
	}
	return out
}

// newOrderExpl starts an explanation of kind on a partition (its offsets
// -1 until list places one).
func newOrderExpl(kind, topic string, partition int32, n int, w judge.Where) judge.Explanation {
	return judge.Explanation{Kind: kind, Topic: topic, Partition: partition, Count: n, FaultBefore: w.LastFault,
		FirstOffset: -1, LastOffset: -1}
}

// list adds one entry's offset and value, up to judge.MaxListed.
// An offset below 0 (a value no read placed) spans nothing.
func list(e *judge.Explanation, off int64, val string) {
	if off >= 0 && (e.FirstOffset < 0 || off < e.FirstOffset) {
		e.FirstOffset = off
	}
	if off >= 0 && off > e.LastOffset {
		e.LastOffset = off
	}
	if len(e.Offsets) < judge.MaxListed {
		e.Offsets = append(e.Offsets, off)
		e.Values = append(e.Values, val)
	}
}

// sentence joins a head, the entries named (and how many more), and the
// parts after them.
func sentence(head string, named []string, total int, after ...string) string {
	s := head + ": " + strings.Join(named, ", ")
	if more := total - len(named); more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	return strings.Join(append([]string{s}, after...), "; ")
}

// standWords says where the partition stood (judge.Where) and the fault
// before, e.g. "leader 1 at leader epoch 2, ISR [1] (observed at 24.8 s);
// after set-config at 20.1 s".
func standWords(w judge.Where, epochs []int32) []string {
	var out []string
	switch {
	case w.Leader != nil && w.LeaderEpoch != nil:
		s := fmt.Sprintf("leader %d at leader epoch %d", *w.Leader, *w.LeaderEpoch)
		if len(w.ISR) > 0 {
			s += ", ISR " + judge.Ints(w.ISR)
		}
		if w.ObservedS != nil {
			s += fmt.Sprintf(" (observed at %.1f s)", *w.ObservedS)
		}
		out = append(out, s)
	case len(epochs) == 0:
		out = append(out, "leader not observed")
	}
	if len(epochs) > 0 {
		out = append(out, "read at leader epochs "+judge.Ints(epochs))
	}
	if w.LastFault != nil {
		out = append(out, "after "+w.LastFault.String())
	}
	return out
}

func (a *run) explainValues(kind, what string, g []ValueEntry) {
	first := g[0]
	e := newOrderExpl(kind, first.Topic, first.Partition, len(g), first.Where)
	var named []string
	var epochs []int32
	for i := range g {
		v := &g[i]
		off := int64(-1)
		if len(v.Offsets) > 0 {
			off = v.Offsets[0]
		}
		list(&e, off, v.Value)
		for _, ep := range v.LeaderEpochs {
			if !slices.Contains(epochs, ep) {
				epochs = append(epochs, ep)
			}
		}
		if i < namedInText {
			s := v.Value + " at " + judge.OffsetList(v.Offsets)
			if v.Send != nil {
				s += " (" + refWords(v.Send) + ")"
			}
			if len(v.ReadBy) > 0 {
				s += ", read by " + strings.Join(v.ReadBy, ", ")
			}
			named = append(named, s)
		}
	}
	slices.Sort(epochs)
	name := model.TPName(first.Topic, first.Partition)
	e.Text = sentence(fmt.Sprintf("%s: %s (%s)", name, what, kind), named, len(g), standWords(first.Where, epochs)...)
	a.expl = append(a.expl, e)
}

func (a *run) explainSendOrder(g []NonmonotonicSendEntry) {
	first := g[0]
	e := newOrderExpl(NonmonotonicSend, first.Topic, first.Partition, len(g), first.Where)
	var named []string
	prev := make([]int64, 0, len(g))
	for i := range g {
		s := &g[i]
		if len(e.AckedS) < judge.MaxListed {
			e.AckedS = append(e.AckedS, s.AckedS) // beside list's Offsets and Values
		}
		list(&e, s.Offset, s.Value)
		prev = append(prev, s.PrevOffset)
		if i < namedInText {
			named = append(named, fmt.Sprintf("%s at offset %d (p%d, %.1f s) after %s at offset %d (%.1f s)",
				s.Value, s.Offset, s.Process, s.AckedS, s.PrevValue, s.PrevOffset, s.PrevAckedS))
		}
	}
	after := append(a.earlierWords(first.Topic, first.Partition, prev, "the earlier acks"), standWords(first.Where, nil)...)
	head := fmt.Sprintf("%s: %s acked below the same process's previous ack (nonmonotonic-send)",
		model.TPName(first.Topic, first.Partition), tally.N(len(g), "send", "sends"))
	e.Text = sentence(head, named, len(g), after...)
	a.expl = append(a.expl, e)
}

func (a *run) explainPolls(kind, what string, g []PollEntry) {
	first := g[0]
	e := newOrderExpl(kind, first.Topic, first.Partition, len(g), first.Where)
	var named []string
	prev := make([]int64, 0, len(g))
	for i := range g {
		p := &g[i]
		list(&e, p.Offset, p.Value)
		prev = append(prev, p.PrevOffset)
		if i < namedInText {
			s := fmt.Sprintf("p%d at %.1f s read offset %d (%s) after offset %d (%s)", p.Process, p.AtS, p.Offset, p.Value, p.PrevOffset, p.PrevValue)
			if p.Skipped > 0 {
				s += fmt.Sprintf(", skipping %s (%s)", tally.N(p.Skipped, "record", "records"), skippedWords(p))
			}
			named = append(named, s)
		}
	}
	var after []string
	if kind == NonmonotonicPoll {
		after = a.earlierWords(first.Topic, first.Partition, prev, "the records read before")
	}
	after = append(after, standWords(first.Where, nil)...)
	head := fmt.Sprintf("%s: %s %s (%s)", model.TPName(first.Topic, first.Partition), tally.N(len(g), "poll", "polls"), what, kind)
	e.Text = sentence(head, named, len(g), after...)
	a.expl = append(a.expl, e)
}

// earlierWords says how many of the earlier offsets (a send's previous
// ack, a poll's previous offset) were reused or lost on the partition, as
// the offset-reuse and lost-write entries found them: "the earlier acks:
// 32 of 32 lost (lost-write), 32 of 32 at offsets since reused
// (offset-reuse)".
func (a *run) earlierWords(topic string, partition int32, offs []int64, what string) []string {
	if a.earlier == nil {
		a.earlier = a.earlierIndex()
	}
	at := a.earlier[tpKey{topic, partition}]
	reused, lost := at.reused, at.lost
	nr, nl := 0, 0
	for _, o := range offs {
		if reused[o] {
			nr++
		}
		if lost[o] {
			nl++
		}
	}
	var parts []string
	if nl > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d lost (lost-write)", nl, len(offs)))
	}
	if nr > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d at offsets since reused (offset-reuse)", nr, len(offs)))
	}
	if len(parts) == 0 {
		return []string{what + ": none lost, no offset reused"}
	}
	return []string{what + ": " + strings.Join(parts, ", ")}
}

// tpKey names a partition by topic and number.
type tpKey struct {
	topic     string
	partition int32
}

// earlierSets are a partition's reused offsets and the offsets of its
// lost writes.
type earlierSets struct{ reused, lost map[int64]bool }

// earlierIndex indexes the offset-reuse and lost-write entries by
// partition, once a run: a history may lose many sends on many partitions.
func (a *run) earlierIndex() map[tpKey]earlierSets {
	idx := map[tpKey]earlierSets{}
	sets := func(k tpKey) earlierSets {
		s, ok := idx[k]
		if !ok {
			s = earlierSets{reused: map[int64]bool{}, lost: map[int64]bool{}}
			idx[k] = s
		}
		return s
	}
	for i := range a.out.OffsetReuse {
		r := &a.out.OffsetReuse[i]
		sets(tpKey{r.Topic, r.Partition}).reused[r.Offset] = true
	}
	for i := range a.out.LostWrite {
		l := &a.out.LostWrite[i]
		sets(tpKey{l.Topic, l.Partition}).lost[l.Offset] = true
	}
	return idx
}

// refWords says how a value's send ended.
func refWords(r *SendRef) string {
	switch {
	case r.Offset != nil:
		return fmt.Sprintf("acked at offset %d, p%d, %.1f s", *r.Offset, r.Process, r.DoneS)
	case r.Error != "":
		return fmt.Sprintf("%s %s, p%d", r.Type, r.Error, r.Process)
	}
	return fmt.Sprintf("%s, p%d", r.Type, r.Process)
}

func skippedWords(p *PollEntry) string {
	var s []string
	for i, o := range p.SkippedOffsets {
		if i == namedInText {
			s = append(s, "…")
			break
		}
		s = append(s, fmt.Sprintf("%d %s", o, p.SkippedValues[i]))
	}
	return strings.Join(s, ", ")
}
