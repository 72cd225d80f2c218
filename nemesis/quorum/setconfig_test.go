package quorum

import (
	"context"
	"testing"

	"github.com/kchaos/kchaos/nemesis"
)

// TestSetConfigTopic: set-config changes the scenario's topic unless the
// step names another (w3: __share_group_state), and records which.
func TestSetConfigTopic(t *testing.T) {
	v := "true"
	for _, tc := range []struct {
		name, topic, want string
	}{
		{"the scenario's", "", "t"},
		{"an internal topic", "__share_group_state", "__share_group_state"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, _, a := newFakeEnv()
			f := (&SetConfigParams{Config: map[string]*string{"unclean.leader.election.enable": &v}, Topic: tc.topic}).Build(nemesis.Step{})
			_, details, err := f.Inject(context.Background(), env)
			if err != nil || a.ConfigOf != tc.want || details["topic"] != tc.want {
				t.Fatalf("set %q (details %v, %v), want topic %q", a.ConfigOf, details, err, tc.want)
			}
		})
	}
}
