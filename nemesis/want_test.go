package nemesis

import (
	"fmt"
	"gopkg.in/yaml.v3"
	"testing"

	"github.com/kchaos/kchaos/nemesis/nemesisfake"
)

// wantErr fails t unless err is nil when want is empty, or an error
// containing want otherwise: the check of every table of valid and
// refused inputs (nemesis/nemesisfake, which the rooms' tests use too).
var wantErr = nemesisfake.WantErr

// wantResolved fails t unless Resolve returned the nodes want (as fmt
// prints them) or, with wantErr set, an error containing wantErr.
func wantResolved(t *testing.T, got []int32, err error, want, wantErrText string) {
	t.Helper()
	if wantErrText != "" {
		wantErr(t, err, wantErrText)
		return
	}
	if err != nil || fmt.Sprint(got) != want {
		t.Fatalf("got %v %v, want %s", got, err, want)
	}
}

// stepOf is the step a scenario's YAML writes: how the seam's tests name
// a step of a room's kind (nemesis/network's partition and netem), whose
// parameter types they cannot see.
func stepOf(t *testing.T, doc string) Step {
	t.Helper()
	var st Step
	if err := yaml.Unmarshal([]byte(doc), &st); err != nil {
		t.Fatalf("step %s: %v", doc, err)
	}
	return st
}

// paramOf is the value of a step's parameter key as YAML writes it (a
// room's parameters: shape "racks", netem {loss: 10%}), or nil.
func paramOf(st Step, key string) any {
	var m map[string]any
	if b, err := yaml.Marshal(st.Params); err == nil {
		_ = yaml.Unmarshal(b, &m)
	}
	return m[key]
}

// nodes0 is the target of the one node id.
func nodes0(id int32) *Target { return &Target{Role: RoleNodes, Nodes: []int32{id}} }
