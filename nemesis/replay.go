package nemesis

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/kchaos/kchaos/histories"
)

// StepFromOp is the scripted step that replays a fault as the history
// recorded it: its name, its invoke's details (the fault's spec, Specer,
// whose keys are the step's own) and the nodes its completion says it
// touched. A target chosen by role when the fault fired (leader,
// followers, ...) becomes those nodes (role nodes), so that the replay
// strikes where the original did; a link fault (one with a shape) keeps
// its target as written, because its nodes are every node its cut
// touched, not its targets. A spec key the step format does not have is
// an error naming it: a replay that silently dropped a parameter would
// reproduce another story.
//
// It lives here because the spec is this package's: the same keys a
// step's codec (stepcodec.go) reads.
func StepFromOp(fault string, spec map[string]any, nodes []int32) (Step, error) {
	k, ok := LookupKind(fault)
	if !ok {
		return Step{}, fmt.Errorf("fault %q is not a registered fault kind", fault)
	}
	keys := paramKeys(k.New())
	m := map[string]any{"fault": fault}
	for key, v := range spec {
		switch {
		case slices.Contains(keys, key) || key == "target":
			m[key] = v
		case key == "partition":
			// An election's spec names the partition its target holds.
			m["target"] = map[string]any{"partition": v}
		default:
			return Step{}, fmt.Errorf("fault %s: recorded parameter %q is not a step field (%v)", fault, key, slices.Sorted(maps.Keys(spec)))
		}
	}
	b, err := yaml.Marshal(m)
	if err != nil {
		return Step{}, fmt.Errorf("fault %s: %w", fault, err)
	}
	var st Step
	if err := yaml.Unmarshal(b, &st); err != nil {
		return Step{}, fmt.Errorf("fault %s: %w", fault, err)
	}
	if t := st.Target; t != nil && t.Role != "" && t.Role != RoleNodes && len(nodes) > 0 && !slices.Contains(keys, "shape") {
		st.Target = &Target{Role: RoleNodes, Nodes: slices.Clone(nodes)}
	}
	if err := (&Schedule{Steps: []Step{st}}).Validate(); err != nil {
		return Step{}, fmt.Errorf("fault %s as recorded: %w", fault, err)
	}
	return st, nil
}

// untilRecord is what an until op records of condition c (Struck
// resolved or not), its bound and whether it is optional: the inverse of
// StepFromUntil, kept beside it so that a condition field is recorded and
// replayed alike (TestUntilRoundTrip).
func untilRecord(c Condition, optional bool, limit time.Duration) histories.Until {
	return histories.Until{Condition: c.String(), Partition: c.Partition, Leader: c.Leader, ISR: c.ISR,
		Offline: c.Offline, HighWatermark: c.HighWatermark, OpenTxn: c.OpenTxn, Live: c.Live, Fenced: c.Fenced, ShareStart: c.ShareStart,
		QuorumLeader: c.QuorumLeader, Struck: c.Struck, StruckNodes: c.struck, Optional: optional, TimeoutMS: limit.Milliseconds()}
}

// StepFromUntil is the until step an until op recorded: its condition
// (Struck as the schedule wrote it, not the nodes the runner resolved it
// to), its bound and whether it was optional. A replay then waits for the
// effect the original waited for, not the time that effect took on that
// run: on a fresh cluster the same effect comes sooner or later (an ISR
// shrinks after replica.lag.time.max.ms from the fetch it last answered,
// a broker is fenced a session timeout after its last heartbeat).
// The step is checked with the schedule it belongs to (a struck
// condition needs the fault step before it).
func StepFromUntil(u histories.Until) Step {
	return Step{Until: &Condition{Partition: u.Partition, Leader: u.Leader, ISR: slices.Clone(u.ISR), Offline: u.Offline,
		HighWatermark: u.HighWatermark, OpenTxn: u.OpenTxn, Live: slices.Clone(u.Live), Fenced: slices.Clone(u.Fenced),
		ShareStart: u.ShareStart, QuorumLeader: u.QuorumLeader, Struck: u.Struck},
		Timeout: Duration(time.Duration(u.TimeoutMS) * time.Millisecond), Optional: u.Optional}
}
