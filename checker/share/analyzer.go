package share

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/checker/anomaly"
	"github.com/kchaos/kchaos/checker/domain"
	"github.com/kchaos/kchaos/checker/judge"
	"github.com/kchaos/kchaos/checker/model"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/internal/tally"
)

// Analyzer is the share-group domain (domain.Analyzer): it judges the
// share ops package checker fed a Builder while the history streamed
// (domain.Input.Decoded), with the nemesis ops and the final read of the
// group's topic.
var Analyzer = domain.New("share groups", analyze)

// ShareAnomalies is the domain's part of the Result's anomalies (package
// checker embeds it) and declares its kinds: each list's JSON name, unit
// and rule (read by domain.New), in HISTORY.md's order.
type ShareAnomalies struct {
	ShareLost                   []RecordEntry `json:"share-lost,omitempty" unit:"per record" rule:"always"`
	ShareDoubleAcquire          []PairEntry   `json:"share-double-acquire,omitempty" unit:"per pair of deliveries" rule:"always"`
	ShareRedeliveredAfterAccept []PairEntry   `json:"share-redelivered-after-accept,omitempty" unit:"per pair of deliveries" rule:"always"`
	ShareDeliveryCount          []CountEntry  `json:"share-delivery-count,omitempty" unit:"per delivery" rule:"always"`
	// A share group promises at-least-once: a redelivery is how it keeps
	// that promise, information with its cause.
	ShareRedelivery []RedeliveryEntry `json:"share-redelivery,omitempty" unit:"per redelivery" rule:"never"`
	ShareUnknown    []RecordEntry     `json:"share-unknown,omitempty" unit:"per record" rule:"unknown"`
}

// Found is what the analyzer found beyond its entries.
type Found struct {
	domain.Base
	shares *shares // nil without share ops
	topic  string  // the group's topic
}

// analyze judges the share ops in in.Decoded (a *Builder, nil without
// any) and puts the anomalies in out.
func analyze(in *domain.Input, out *ShareAnomalies) *Found {
	b, _ := in.Decoded.(*Builder)
	if b == nil || !b.used() {
		return &Found{}
	}
	for i, n := range in.History.Nem {
		if !histories.IsBookkeeping(n.F) {
			b.nemesis(n.F, n.V.Nodes, n.Call, n.Ret)
			b.faults[len(b.faults)-1].held = heldUntil(in.History.Nem, i)
		}
	}
	for _, t := range in.History.TPs {
		if t.Topic == b.Topic() {
			b.observe(t.Partition, t.Obs)
		}
	}
	for _, r := range in.History.Requests {
		b.request(r.At, r.A)
	}
	b.finish()
	s := b.check(finalLog(in.History, b.Topic()))
	*out = s.ShareAnomalies
	return &Found{shares: s, topic: b.Topic()}
}

// finalLog is what the completed final reads hold of topic, nil if none.
func finalLog(h *model.History, topic string) *readLog {
	var log *readLog
	for tp, t := range h.TPs {
		if t.Topic != topic || t.Final < 0 {
			continue
		}
		if log == nil {
			log = &readLog{Records: map[int32][]logRecord{}, Ends: map[int32]int64{}}
		}
		for _, r := range judge.FinalRecs(h, int32(tp)) {
			log.Records[t.Partition] = append(log.Records[t.Partition], logRecord{Offset: r.Off, Value: h.Vals[r.Val].Str})
		}
		if end, ok := h.Finals[t.Final].Ends[int32(tp)]; ok {
			log.Ends[t.Partition] = end
		}
	}
	return log
}

// Stats is what the share ops did, for results.json's stats.shares; nil
// without share ops, so that a history without them keeps its
// results.json as it was.
func (f *Found) Stats() *Stats {
	if f.shares == nil {
		return nil
	}
	st := f.shares.Stats
	return &st
}

// Invalid names the first entry of a counted kind, as the metadata
// domain does, so that the summary a run prints says what the verdict
// rests on (the record, its partition and offset, and why); the report
// words every entry with its deliveries and faults (report/shareexplain.go).
func (f *Found) Invalid(k anomaly.Kind, n int) string {
	first := ""
	if x := f.shares; x != nil {
		rec := func(p int32, o int64, v, why string) string {
			return fmt.Sprintf("%s-%d offset %d (value %q): %s", f.topic, p, o, v, why)
		}
		switch {
		case k.Name == Lost && len(x.ShareLost) > 0:
			e := x.ShareLost[0]
			first = rec(e.Partition, e.Offset, e.Value, e.Reason)
		case k.Name == DoubleAcquire && len(x.ShareDoubleAcquire) > 0:
			e := x.ShareDoubleAcquire[0]
			first = rec(e.Partition, e.Offset, e.Value, e.Reason)
		case k.Name == RedeliveredAfterAccept && len(x.ShareRedeliveredAfterAccept) > 0:
			e := x.ShareRedeliveredAfterAccept[0]
			first = rec(e.Partition, e.Offset, e.Value, e.Reason)
		case k.Name == DeliveryCount && len(x.ShareDeliveryCount) > 0:
			e := x.ShareDeliveryCount[0]
			first = rec(e.Partition, e.Offset, e.Value, e.Reason)
		}
	}
	if first == "" {
		return domain.Invalid(k, n)
	}
	return fmt.Sprintf("%s (first: %s)", domain.Invalid(k, n), first)
}

// Uncounted gives a redelivery's causes, and why records are unknown.
func (f *Found) Uncounted(k anomaly.Kind, n int) string {
	switch k.Name {
	case Redelivery:
		causes := f.shares.Stats.Causes
		var by []string
		for _, c := range slices.Sorted(maps.Keys(causes)) {
			by = append(by, fmt.Sprintf("%s %d", c, causes[c]))
		}
		out := fmt.Sprintf("%s: %s delivered again (by cause: %s), not counted: a share group promises at-least-once delivery",
			k.Name, tally.N(n, "record", "records"), strings.Join(by, ", "))
		if a := f.shares.Stats.AcksOfFinal; a > 0 {
			out += fmt.Sprintf("; %d acks of records another member's confirmed accept or reject had made final were answered with no error "+
				"(Kafka does so for acks below the share-partition start offset, without applying them): no evidence of who held them", a)
		}
		return out
	case Unknown:
		return fmt.Sprintf("%s: %s whose fate rests on an ack of unknown outcome, or still in flight or not delivered yet when the drain ended", k.Name, tally.N(n, "record", "records"))
	}
	return ""
}

// Unknowns says why the records could not be judged at all.
func (f *Found) Unknowns() []string {
	if f.shares != nil && f.shares.Unjudged != "" {
		return []string{"share group: " + f.shares.Unjudged}
	}
	return nil
}

// Unexercised says the share group's checks held vacuously: its members
// ran and no record was ever delivered to one (a group the brokers never
// served, a feature level off), so no promise of the group (one owner at
// a time, an accepted record never handed out again) was put to the test.
func (f *Found) Unexercised() []string {
	if f.shares != nil && f.shares.Stats.Deliveries == 0 {
		return []string{"share group: no record was delivered to a member; the group's promises were never exercised"}
	}
	return nil
}

// heldUntil is when nemesis op i stopped acting on the cluster: a lasting
// fault (a cut, a pause, a kill) holds until the completion of the first
// later ok op that ends it (histories.Ends: its heal, a resume), or to the
// end of the history (-1) if none does; any other op, its completion. A
// leader may move long after a lasting fault's op completed: a broker cut
// off from the controller is fenced a session timeout later, and until
// the cut heals it may still answer metadata as it last knew it
// (w2 in the recommended campaign, 2026-12-06: the observer, asking the
// cut-off broker, saw partition 0's leader move only after the heal).
func heldUntil(nem []model.NemOp, i int) int64 {
	n := nem[i]
	if histories.KindOf(n.F) != histories.Lasting {
		return n.Ret
	}
	for _, m := range nem[i+1:] {
		if m.Typ == histories.OK && histories.Ends(m.F, m.V.Fault, m.V.Nodes, n.F, n.V.Nodes) {
			return m.Ret
		}
	}
	return -1
}
