package linearize

import "testing"

// TestWhy: an illegal partition says which offsets have no linearization
// (consecutive windows as one span) and its first real-time violation; a
// partition that is not illegal says nothing.
func TestWhy(t *testing.T) {
	rt := &RealTimeViolation{Text: "t-0 offset 3: p1's send of a was invoked after offset 4 was acked, yet took the lower offset"}
	cases := []struct {
		name string
		p    *LinPartition
		want string
	}{
		{"ok", &LinPartition{Result: "ok", Windows: 3}, ""},
		{"unknown", &LinPartition{Result: "unknown", Windows: 3}, ""},
		{"nil", nil, ""},
		{"whole partition", &LinPartition{Result: "illegal", Windows: 1, Illegal: []Window{{0, 99, 50}}},
			"offsets 0-99 have no linearization"},
		{"consecutive windows merge", &LinPartition{Result: "illegal", Windows: 12,
			Illegal: []Window{{2048, 4095, 1}, {4096, 6143, 1}, {6144, 8191, 1}}, RealTime: rt},
			"offsets 2048-8191 have no linearization (3 of 12 windows); " + rt.Text},
		{"apart", &LinPartition{Result: "illegal", Windows: 5, Illegal: []Window{{0, 9, 1}, {20, 29, 1}}},
			"offsets 0-9, 20-29 have no linearization (2 of 5 windows)"},
		{"no window named", &LinPartition{Result: "illegal", Windows: 1}, "no linearization"},
	}
	for _, c := range cases {
		if got := c.p.Why(); got != c.want {
			t.Errorf("%s: Why() = %q, want %q", c.name, got, c.want)
		}
	}
}
