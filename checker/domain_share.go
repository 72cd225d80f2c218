package checker

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/checker/anomaly"
	"github.com/kchaos/kchaos/checker/judge"
	"github.com/kchaos/kchaos/checker/share"
	"github.com/kchaos/kchaos/histories"
)

// shareGroups is the share-group domain (KIP-932): package share finds
// its anomalies; this file only feeds it the share ops, the nemesis ops
// and the final read of the group's topic, and declares the kinds.
type shareGroups struct{ domainBase }

var shareKinds = []declared{
	{anomaly.Kind{Name: share.Lost, Unit: "per record", Rule: anomaly.Always}, func(x *Anomalies) int { return len(x.ShareLost) }},
	{anomaly.Kind{Name: share.DoubleAcquire, Unit: "per pair of deliveries", Rule: anomaly.Always}, func(x *Anomalies) int { return len(x.ShareDoubleAcquire) }},
	{anomaly.Kind{Name: share.RedeliveredAfterAccept, Unit: "per pair of deliveries", Rule: anomaly.Always}, func(x *Anomalies) int { return len(x.ShareRedeliveredAfterAccept) }},
	{anomaly.Kind{Name: share.DeliveryCount, Unit: "per delivery", Rule: anomaly.Always}, func(x *Anomalies) int { return len(x.ShareDeliveryCount) }},
	// A share group promises at-least-once: a redelivery is how it keeps
	// that promise, information with its cause.
	{anomaly.Kind{Name: share.Redelivery, Unit: "per redelivery", Rule: anomaly.Never}, func(x *Anomalies) int { return len(x.ShareRedelivery) }},
	{anomaly.Kind{Name: share.Unknown, Unit: "per record", Rule: anomaly.Unjudged}, func(x *Anomalies) int { return len(x.ShareUnknown) }},
}

// shareState is the Checker's share ops and what package share found.
type shareState struct {
	ops   *share.Builder // nil without share ops
	found *share.Shares
}

// addShare gives a share op to the share domain (after addClient held it
// to the operation model).
func (c *Checker) addShare(e *histories.Event) error {
	if !share.IsOp(e.F) {
		return nil
	}
	if c.shares.ops == nil {
		c.shares.ops = share.NewBuilder()
	}
	return c.shares.ops.Add(e)
}

func (shareGroups) analyze(a *analysis) {
	b := a.c.shares.ops
	if b == nil || !b.Used() {
		return
	}
	for _, n := range a.c.Nem {
		if !histories.IsBookkeeping(n.F) {
			b.Nemesis(n.F, n.V.Nodes, n.Call, n.Ret)
		}
	}
	b.Finish()
	f := b.Check(shareLog(a, b.Topic()))
	a.c.shares.found = f
	x := &a.r.Anomalies
	x.ShareLost, x.ShareDoubleAcquire, x.ShareRedeliveredAfterAccept = f.Lost, f.DoubleAcquire, f.RedeliveredAfterAccept
	x.ShareDeliveryCount, x.ShareRedelivery, x.ShareUnknown = f.DeliveryCount, f.Redelivery, f.Unknown
}

// shareLog is what the completed final reads hold of topic, nil if none.
func shareLog(a *analysis, topic string) *share.Log {
	h := &a.c.History
	var log *share.Log
	for tp, t := range h.TPs {
		if t.Topic != topic || t.Final < 0 {
			continue
		}
		if log == nil {
			log = &share.Log{Records: map[int32][]share.LogRecord{}, Ends: map[int32]int64{}}
		}
		for _, r := range judge.FinalRecs(h, int32(tp)) {
			log.Records[t.Partition] = append(log.Records[t.Partition], share.LogRecord{Offset: r.Off, Value: h.Vals[r.Val].Str})
		}
		if end, ok := h.Finals[t.Final].Ends[int32(tp)]; ok {
			log.Ends[t.Partition] = end
		}
	}
	return log
}

func (shareGroups) uncounted(a *analysis, k anomaly.Kind, n int) string {
	switch k.Name {
	case share.Redelivery:
		causes := a.c.shares.found.Stats.Causes
		var by []string
		for _, c := range slices.Sorted(maps.Keys(causes)) {
			by = append(by, fmt.Sprintf("%s %d", c, causes[c]))
		}
		return fmt.Sprintf("%s: %d records delivered again (by cause: %s), not counted: a share group promises at-least-once delivery",
			k.Name, n, strings.Join(by, ", "))
	case share.Unknown:
		return fmt.Sprintf("%s: %d records whose fate rests on an ack of unknown outcome, or still in flight when the drain ended", k.Name, n)
	}
	return ""
}

func (shareGroups) unknowns(a *analysis) []string {
	if s := a.c.shares.found; s != nil && s.Unjudged != "" {
		return []string{"share group: " + s.Unjudged}
	}
	return nil
}
