package checker

import (
	"fmt"

	"github.com/kchaos/kchaos/checker/anomaly"
)

// consumerGroups is the consumer-group domain: what a group's commits and
// assignments promise its members (group.go, groupcheck.go and the
// group*.go files they name).
type consumerGroups struct{ domainBase }

var groupKinds = []declared{
	{anomaly.Kind{Name: LostByCommit, Unit: "per range", Rule: anomaly.Always}, func(x *Anomalies) int { return len(x.LostByCommit) }},
	{anomaly.Kind{Name: CommitBackwards, Unit: "per case", Rule: anomaly.Always}, func(x *Anomalies) int { return len(x.CommitBackwards) }},
	// At-least-once allows a record to be processed twice, and a zombie's
	// reads are at worst that; exactly-once promises one owner per record.
	{anomaly.Kind{Name: Redelivery, Unit: "per range", Rule: anomaly.IfExactlyOnce}, func(x *Anomalies) int { return len(x.Redelivery) }},
	{anomaly.Kind{Name: DeliveryOutsideAssignment, Unit: "per poll and partition", Rule: anomaly.IfExactlyOnce}, func(x *Anomalies) int { return len(x.DeliveryOutsideAssignment) }},
}

func (consumerGroups) analyze(a *analysis) { a.groupChecks() }
func (consumerGroups) explain(a *analysis) { a.explainGroups() }

func (consumerGroups) uncounted(a *analysis, k anomaly.Kind, n int) string {
	switch k.Name {
	case Redelivery:
		return fmt.Sprintf("redelivery: %d ranges (%d records) delivered again to the group, not counted: "+
			"the group declares at-least-once delivery", n, a.redeliveredN)
	case DeliveryOutsideAssignment:
		return fmt.Sprintf("delivery-outside-assignment: %d (a member's poll delivered records of a partition its client did not hold), "+
			"not counted: the group declares at-least-once delivery", n)
	}
	return ""
}
