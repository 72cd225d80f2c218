package checker

import "github.com/kchaos/kchaos/checker/groupcheck"

// consumerGroups is the consumer-group domain, package groupcheck: what a
// group's commits and assignments promise its members. The decoding of
// subscribe, commit, rebalance and group polls (what must be followed as
// the history streams) is in group.go and the group*.go files it names.
var consumerGroups = port(groupcheck.Analyzer,
	func(x *Anomalies) *groupcheck.GroupAnomalies { return &x.GroupAnomalies },
	glue[*groupcheck.Found]{stats: func(st *Stats, f *groupcheck.Found) { st.Groups = f.Stats }})

// Anomaly names of consumer groups (package groupcheck owns them).
const (
	LostByCommit              = groupcheck.LostByCommit
	CommitBackwards           = groupcheck.CommitBackwards
	commitLost                = groupcheck.CommitLost
	commitUnexplained         = groupcheck.CommitUnexplained
	Redelivery                = groupcheck.Redelivery
	DeliveryOutsideAssignment = groupcheck.DeliveryOutsideAssignment
)
