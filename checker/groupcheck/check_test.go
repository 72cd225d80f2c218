package groupcheck

import "testing"

func TestMentionsOffsetsTopic(t *testing.T) {
	for _, tc := range []struct {
		d    map[string]any
		want bool
	}{
		{map[string]any{"topic": "__consumer_offsets"}, true},
		{map[string]any{"target": map[string]any{"role": "group-coordinator-followers"}}, true},
		{map[string]any{"target": map[string]any{"role": "leader", "partition": 0}}, false},
		{nil, false},
	} {
		if got := mentionsOffsetsTopic(tc.d); got != tc.want {
			t.Errorf("%v: %v, want %v", tc.d, got, tc.want)
		}
	}
}
