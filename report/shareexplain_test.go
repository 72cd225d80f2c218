package report

import (
	"strings"
	"testing"

	"github.com/kchaos/kchaos/checker/share"
)

// TestShareExplanationNamesLeaderMove: an entry judged across a leader
// move the observer saw says so, beside its faults and requests.
func TestShareExplanationNamesLeaderMove(t *testing.T) {
	move := "partition 0's leader went from broker 2 (epoch 2, seen at 24.288s) to broker 0 (epoch 3, seen at 51.722s)"
	for _, tc := range []struct {
		name  string
		entry share.RecordEntry
		want  string
	}{
		{"moved", share.RecordEntry{Reason: "r", LeaderMoved: move}, "; no fault around it; " + move},
		{"stayed", share.RecordEntry{Reason: "r", Faults: []string{"kill [1] at 3.000s"}}, "; faults around it: kill [1] at 3.000s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := &results{}
			res.Anoms.ShareUnknown = []share.RecordEntry{tc.entry}
			ex := shareExplanations(res, "orders")
			if len(ex) != 1 || !strings.HasSuffix(ex[0].Text, tc.want) {
				t.Fatalf("explanations %+v, want one ending %q", ex, tc.want)
			}
		})
	}
}
