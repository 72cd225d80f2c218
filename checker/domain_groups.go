package checker

import "github.com/kchaos/kchaos/checker/groupcheck"

// consumerGroups is the consumer-group domain, package groupcheck: what a
// group's commits and assignments promise its members. The decoding of
// subscribe, commit, rebalance and group polls (what must be followed as
// the history streams) is in group.go and the group*.go files it names.
var consumerGroups = port(groupcheck.Analyzer{},
	func(x *Anomalies) *groupcheck.GroupAnomalies { return &x.GroupAnomalies },
	glue[*groupcheck.Found]{stats: func(st *Stats, f *groupcheck.Found) { st.Groups = f.Stats }})

// Anomaly names of consumer groups (package groupcheck owns them).
const (
	LostByCommit              = groupcheck.LostByCommit
	CommitBackwards           = groupcheck.CommitBackwards
	Redelivery                = groupcheck.Redelivery
	DeliveryOutsideAssignment = groupcheck.DeliveryOutsideAssignment
)

// Kinds of commit-backwards, and causes of a redelivery.
const (
	ResumedBelowCommit   = groupcheck.ResumedBelowCommit
	CommittedLower       = groupcheck.CommittedLower
	CauseCommitBackwards = groupcheck.CauseCommitBackwards
	CauseRestart         = groupcheck.CauseRestart
	CauseRebalance       = groupcheck.CauseRebalance
	CauseSameGeneration  = groupcheck.CauseSameGeneration
)

// The group entries and stats, under the names results.json's readers
// know (package groupcheck owns them).
type (
	CommitRef              = groupcheck.CommitRef
	DeliveryRef            = groupcheck.DeliveryRef
	LostByCommitEntry      = groupcheck.LostByCommitEntry
	CommitBackwardsEntry   = groupcheck.CommitBackwardsEntry
	RedeliveryEntry        = groupcheck.RedeliveryEntry
	RebalanceRef           = groupcheck.RebalanceRef
	OutsideAssignmentEntry = groupcheck.OutsideAssignmentEntry
	GroupStats             = groupcheck.GroupStats
)
