// Package groupcheck is the checker's consumer-group analyzer: what a
// group's commits and assignments promise its members (docs/HISTORY.md,
// "Consumer groups: what the checker proves"). It declares lost-by-commit,
// commit-backwards, commit-lost, commit-unexplained, redelivery and
// delivery-outside-assignment, finds them in the group tables the checker
// decoded (model.Groups: the members' ops and the coordinator's state read
// back) and explains them.
//
// What must be followed as the history streams (what the group had
// committed when a member was assigned a partition, where it resumed, the
// commits that went back) is found by package checker while decoding and
// kept in model.Groups; everything else is judged here, at the end.
package groupcheck

import (
	"fmt"
	"strings"

	"github.com/kchaos/kchaos/checker/anomaly"
	"github.com/kchaos/kchaos/checker/domain"
	"github.com/kchaos/kchaos/checker/judge"
	"github.com/kchaos/kchaos/checker/model"
	"github.com/kchaos/kchaos/internal/tally"
)

// Analyzer is the consumer-group domain (domain.Analyzer).
var Analyzer = domain.New("consumer groups", analyze)

// GroupAnomalies is the domain's part of the Result's anomalies (package
// checker embeds it) and declares its kinds: each list's JSON name, unit
// and rule (read by domain.New), in HISTORY.md's order.
type GroupAnomalies struct {
	LostByCommit    []LostByCommitEntry    `json:"lost-by-commit,omitempty" unit:"per range" rule:"always"`
	CommitBackwards []CommitBackwardsEntry `json:"commit-backwards,omitempty" unit:"per case" rule:"always"`
	// An acknowledged commit the coordinator forgot is the promise
	// commit-backwards holds it to, seen from the coordinator's side.
	CommitLost []CommitLostEntry `json:"commit-lost,omitempty" unit:"per partition" rule:"always"`
	// An offset nobody asked for may be a client's own commit the
	// workload was not told of: information (readback.go says why).
	CommitUnexplained []CommitUnexplainedEntry `json:"commit-unexplained,omitempty" unit:"per partition" rule:"never"`
	// At-least-once allows a record to be processed twice, and a zombie's
	// reads are at worst that; exactly-once promises one owner per record.
	Redelivery                []RedeliveryEntry        `json:"redelivery,omitempty" unit:"per range" rule:"if exactly-once"`
	DeliveryOutsideAssignment []OutsideAssignmentEntry `json:"delivery-outside-assignment,omitempty" unit:"per poll and partition" rule:"if exactly-once"`
}

// Found is what the analyzer found beyond its entries.
type Found struct {
	domain.Base
	Stats        *GroupStats // nil without any group
	redeliveredN int
	notes        []string
}

// Notes: a group whose coordinator ran another protocol than its members
// asked for (protocolNotes).
func (f *Found) Notes() []string { return f.notes }

// Uncounted says why a redelivery or a delivery outside the assignment
// does not count: the group declares at-least-once delivery.
func (f *Found) Uncounted(k anomaly.Kind, n int) string {
	switch k.Name {
	case Redelivery:
		return fmt.Sprintf("redelivery: %d ranges (%d records) delivered again to the group, not counted: "+
			"the group declares at-least-once delivery", n, f.redelivered())
	case CommitUnexplained:
		return fmt.Sprintf("commit-unexplained: %d (the group coordinator holds a committed offset no commit of the history asked for), "+
			"not counted: a client may commit without telling the workload, which the history cannot tell from an offset made up", n)
	case DeliveryOutsideAssignment:
		return fmt.Sprintf("delivery-outside-assignment: %d (a member's poll delivered records of a partition its client did not hold), "+
			"not counted: the group declares at-least-once delivery", n)
	}
	return ""
}

// analyze finds the group anomalies of in's history and appends them to out.
func analyze(in *domain.Input, out *GroupAnomalies) *Found {
	a := &run{c: in.History, places: in.Places, facts: in.Facts, out: out}
	a.groupChecks()
	a.readBack() // readback.go
	a.explainGroups()
	st := a.groupStats()
	return &Found{Base: domain.Base{Expl: a.expl}, Stats: st, notes: a.protocolNotes(st)}
}

// Unexercised says the groups' checks held vacuously when a group
// workload ran and no member was delivered a record and no commit was
// acknowledged (a group that never got an assignment, a coordinator
// nobody reached): every promise of a group (what its commits and
// assignments guarantee) holds vacuously, as the checker's
// nothing-acknowledged rule says of sends.
func (f *Found) Unexercised() []string {
	st := f.Stats
	if st == nil || st.Processes == 0 || st.Delivered > 0 || st.Commits["ok"] > 0 {
		return nil
	}
	return []string{fmt.Sprintf("consumer groups: %s subscribed, none was delivered a record and no commit was acknowledged (%s); the groups' promises were never exercised",
		tally.N(st.Processes, "member process", "member processes"), commitsText(st.Commits))}
}

// commitsText is a commit count by outcome, "no commit" for none.
func commitsText(m map[string]int) string {
	var parts []string
	for _, k := range []string{"fail", "info", "open"} {
		if m[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
		}
	}
	if len(parts) == 0 {
		return "no commit"
	}
	return "commits " + strings.Join(parts, ", ")
}

// redelivered is the number of records delivered again.
func (f *Found) redelivered() int {
	if f.Stats == nil {
		return 0
	}
	return f.Stats.Redelivered
}

// run is one analysis of a history's groups.
type run struct {
	c      *model.History
	places *judge.Places
	facts  domain.Facts
	out    *GroupAnomalies
	expl   []judge.Explanation

	dels          map[groupTP][]delivery // deliveries per group and partition, in completion order
	delivered     []map[int32]bool       // group -> values its members delivered
	lostByCommitN int                    // records lost by commit
	redeliveredN  int                    // records delivered again
}

// groupTP is a partition of a group.
type groupTP struct {
	group, tp int32
}

// procTP is a member process's partition.
type procTP struct {
	proc int32
	tp   int32
}

// tpOf is the number of the topic-partition an entry names.
func (a *run) tpOf(topic string, p int32) int32 {
	for i, t := range a.c.TPs {
		if t.Topic == topic && t.Partition == p {
			return int32(i)
		}
	}
	return -1
}
