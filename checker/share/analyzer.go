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
)

// Analyzer is the share-group domain (domain.Analyzer), with its kinds in
// HISTORY.md's order: it judges the share ops package checker fed a
// Builder while the history streamed (domain.Input.Decoded), with the
// nemesis ops and the final read of the group's topic.
var Analyzer = domain.New("share groups", []anomaly.Kind{
	{Name: Lost, Unit: "per record", Rule: anomaly.Always},
	{Name: DoubleAcquire, Unit: "per pair of deliveries", Rule: anomaly.Always},
	{Name: RedeliveredAfterAccept, Unit: "per pair of deliveries", Rule: anomaly.Always},
	{Name: DeliveryCount, Unit: "per delivery", Rule: anomaly.Always},
	// A share group promises at-least-once: a redelivery is how it keeps
	// that promise, information with its cause.
	{Name: Redelivery, Unit: "per redelivery", Rule: anomaly.Never},
	{Name: Unknown, Unit: "per record", Rule: anomaly.Unjudged},
}, analyze)

// ShareAnomalies is the domain's part of the Result's anomalies (package
// checker embeds it: the JSON names are results.json's).
type ShareAnomalies struct {
	ShareLost                   []RecordEntry     `json:"share-lost,omitempty"`
	ShareDoubleAcquire          []PairEntry       `json:"share-double-acquire,omitempty"`
	ShareRedeliveredAfterAccept []PairEntry       `json:"share-redelivered-after-accept,omitempty"`
	ShareDeliveryCount          []CountEntry      `json:"share-delivery-count,omitempty"`
	ShareRedelivery             []RedeliveryEntry `json:"share-redelivery,omitempty"`
	ShareUnknown                []RecordEntry     `json:"share-unknown,omitempty"`
}

// Found is what the analyzer found beyond its entries.
type Found struct {
	domain.Base
	shares *Shares // nil without share ops
}

// analyze judges the share ops in in.Decoded (a *Builder, nil without
// any) and puts the anomalies in out.
func analyze(in *domain.Input, out *ShareAnomalies) *Found {
	b, _ := in.Decoded.(*Builder)
	if b == nil || !b.Used() {
		return &Found{}
	}
	for _, n := range in.History.Nem {
		if !histories.IsBookkeeping(n.F) {
			b.Nemesis(n.F, n.V.Nodes, n.Call, n.Ret)
		}
	}
	b.Finish()
	s := b.Check(finalLog(in.History, b.Topic()))
	*out = s.ShareAnomalies
	return &Found{shares: s}
}

// finalLog is what the completed final reads hold of topic, nil if none.
func finalLog(h *model.History, topic string) *Log {
	var log *Log
	for tp, t := range h.TPs {
		if t.Topic != topic || t.Final < 0 {
			continue
		}
		if log == nil {
			log = &Log{Records: map[int32][]LogRecord{}, Ends: map[int32]int64{}}
		}
		for _, r := range judge.FinalRecs(h, int32(tp)) {
			log.Records[t.Partition] = append(log.Records[t.Partition], LogRecord{Offset: r.Off, Value: h.Vals[r.Val].Str})
		}
		if end, ok := h.Finals[t.Final].Ends[int32(tp)]; ok {
			log.Ends[t.Partition] = end
		}
	}
	return log
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
		return fmt.Sprintf("%s: %d records delivered again (by cause: %s), not counted: a share group promises at-least-once delivery",
			k.Name, n, strings.Join(by, ", "))
	case Unknown:
		return fmt.Sprintf("%s: %d records whose fate rests on an ack of unknown outcome, or still in flight when the drain ended", k.Name, n)
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
