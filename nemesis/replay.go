package nemesis

import (
	"fmt"
	"maps"
	"slices"

	"gopkg.in/yaml.v3"
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
