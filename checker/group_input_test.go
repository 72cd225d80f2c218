package checker

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/histories"
)

// TestGroupBadInputNamesItsLine: a field judged when its op completes (a
// subscribe's "continues" counts once the subscribe is ok) is bad input
// naming the line that carries it, the invoke's, not the completion's.
func TestGroupBadInputNamesItsLine(t *testing.T) {
	// contInv is a subscribe invoke of process proc as member m continuing
	// process from; its ok comes later, after other processes' events.
	contInv := func(proc int, at int64, m string, from int) string {
		return ev(at, proc, "invoke", "subscribe", fmt.Sprintf(`{"group":"g","member":%q,"topic":"t","protocol":"classic","continues":%d}`, m, from))
	}
	contOK := func(proc int, at int64, m string) string {
		return ev(at, proc, "ok", "subscribe", fmt.Sprintf(`{"group":"g","member":%q,"topic":"t","protocol":"classic"}`, m))
	}
	between := send(0, 205, 206, 0, "v0", "ok", 0)
	retire := gcommit(10, 150, 160, 1, "info", "0:0") // lines 3-4: p10 retired
	for _, tc := range []struct {
		name  string
		lines []string
		line  int // 1-based, the invoke that carries "continues"
		want  string
	}{
		{"continues a process of another member", cat(sub(10, 100, "m0"), retire, one(contInv(11, 200, "m1", 10)), between, one(contOK(11, 210, "m1"))),
			5, `field "continues": process 10 is not member "m1"`},
		{"continues no process", cat(sub(10, 100, "m0"), retire, one(contInv(11, 200, "m0", 7)), between, one(contOK(11, 210, "m0"))),
			5, `field "continues": process 7 is not member "m0"`},
		{"continues itself", cat(sub(10, 100, "m0"), retire, one(contInv(11, 200, "m0", 11)), between, one(contOK(11, 210, "m0"))),
			5, `field "continues": process 11 is not member "m0"`},
		{"continues a process already continued", cat(sub(10, 100, "m0"), retire, subCont(11, 170, "m0", 10),
			one(contInv(12, 200, "m0", 10)), between, one(contOK(12, 210, "m0"))),
			7, `field "continues": process 10 was already continued by process 11`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := lines2hist(tc.lines...)
			_, err := checkReader(strings.NewReader(h), Options{})
			var le *histories.LineError
			if !errors.As(err, &le) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want a line error containing %q", err, tc.want)
			}
			if le.Line != tc.line {
				t.Errorf("error names line %d, want %d (the line with \"continues\"): %v\n%s", le.Line, tc.line, err, h)
			}
			evs, _, rerr := histories.ReadAll(strings.NewReader(h))
			if rerr != nil {
				t.Fatal(rerr)
			}
			_, err = checkEvents(evs, Options{})
			if want := fmt.Sprintf("event %d: ", tc.line-1); err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("Check: error %v, want it to begin %q (the invoke's index)", err, want)
			}
		})
	}
}
