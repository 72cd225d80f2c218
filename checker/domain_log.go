package checker

import (
	"fmt"

	"github.com/kchaos/kchaos/checker/anomaly"
)

// logOrder is the plain log and order domain: what the contract (v1)
// promises of acked sends, of each offset and value, and of each
// producer's and consumer's order (analysis.go, order.go, explain.go).
type logOrder struct{ domainBase }

var logKinds = []declared{
	{anomaly.Kind{Name: LostWrite, Unit: "per send", Rule: anomaly.Always}, func(x *Anomalies) int { return len(x.LostWrite) }},
	{anomaly.Kind{Name: OffsetReuse, Unit: "per offset", Rule: anomaly.Always}, func(x *Anomalies) int { return len(x.OffsetReuse) }},
	{anomaly.Kind{Name: Duplicate, Unit: "per value", Rule: anomaly.IfIdempotent}, func(x *Anomalies) int { return len(x.Duplicate) }},
	{anomaly.Kind{Name: AbortedRead, Unit: "per value", Rule: anomaly.Always}, func(x *Anomalies) int { return len(x.AbortedRead) }},
	{anomaly.Kind{Name: Unexpected, Unit: "per value", Rule: anomaly.Always}, func(x *Anomalies) int { return len(x.Unexpected) }},
	{anomaly.Kind{Name: NonmonotonicSend, Unit: "occurrence", Rule: anomaly.IfIdempotent}, func(x *Anomalies) int { return len(x.NonmonotonicSend) }},
	{anomaly.Kind{Name: PollSkip, Unit: "occurrence", Rule: anomaly.Always}, func(x *Anomalies) int { return len(x.PollSkip) }},
	{anomaly.Kind{Name: NonmonotonicPoll, Unit: "occurrence", Rule: anomaly.Always}, func(x *Anomalies) int { return len(x.NonmonotonicPoll) }},
	{anomaly.Kind{Name: Unseen, Unit: "per send", Rule: anomaly.Unjudged}, func(x *Anomalies) int { return len(x.Unseen) }},
}

func (logOrder) analyze(a *analysis) {
	a.lostAndUnseen()
	a.reuse()
	a.values() // also finds txn-duplicate: one pass over the values read
	a.sendOrder()
	a.pollOrder()
}

func (logOrder) explain(a *analysis) { a.explain() }

func (logOrder) uncounted(_ *analysis, k anomaly.Kind, n int) string {
	switch k.Rule {
	case anomaly.IfIdempotent:
		return fmt.Sprintf("%s: %d, not counted: the producer was not idempotent", k.Name, n)
	case anomaly.Unjudged:
		return fmt.Sprintf("unseen: %d acked sends no completed final read could judge "+
			"(on a partition without one and never polled, or acked (or their txn committed) at or after the invoke of the final read that judges the partition, and not in it)", n)
	}
	return ""
}
