package checker

import (
	"path/filepath"
	"testing"
)

// TestReadBackRecorded: a real g1 run (histories/testdata/real-g1,
// Kafka 4.4.0) read the group coordinator's committed offsets back after
// the final read, and the checker judged them: the read-back ended ok,
// every partition the group committed was held against its last
// acknowledged commit, and a valid run lost none.
func TestReadBackRecorded(t *testing.T) {
	res := checkCase(t, testdataCase{name: "real-g1", path: filepath.Join(testdataDir, "real-g1"),
		expected: filepath.Join(testdataDir, "real-g1", "expected.json"), folder: true})
	st := res.Stats.Groups
	if st == nil || len(st.ReadBack) != 1 {
		t.Fatalf("group stats %+v: want one read-back", st)
	}
	rb := st.ReadBack[0]
	if !rb.Judged || rb.Outcome != "ok" || rb.CommitLost != 0 || len(rb.Offsets) == 0 {
		t.Errorf("read-back %+v: want ok, judged, offsets, no commit-lost", rb)
	}
	if n := res.Counts[commitLost]; n != 0 {
		t.Errorf("commit-lost %d on a valid run: %v", n, res.Anomalies.CommitLost)
	}
	if res.Valid != Valid {
		t.Errorf("valid %v: %q", res.Valid, res.Reasons)
	}
}
