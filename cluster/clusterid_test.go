package cluster

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// urlSafe22 is what kafka-storage's -t accepts as a Kafka Uuid string.
var urlSafe22 = regexp.MustCompile(`^[A-Za-z0-9_-]{22}$`)

// TestClusterIDAlwaysAccepted derives the cluster id of many run ids, of
// the shape NewRunID makes and of arbitrary ones, and checks each against
// the argument rules: 22 characters of URL-safe base64, no leading '-'.
// With one id in 64 beginning with '-' before the fix, 20,000 run ids hit
// that case about 300 times.
func TestClusterIDAlwaysAccepted(t *testing.T) {
	redrawn := 0
	for i := 0; i < 20000; i++ {
		runID := fmt.Sprintf("20261201T%06d-%06x", i%240000, i*7919)
		if i%2 == 1 {
			runID = fmt.Sprint("run-", i)
		}
		id := ClusterID(runID)
		if !urlSafe22.MatchString(id) || strings.HasPrefix(id, "-") {
			t.Fatalf("run %q: cluster id %q would be refused", runID, id)
		}
		if err := validClusterID(id); err != nil {
			t.Fatalf("run %q: %v", runID, err)
		}
		if ClusterID(runID) != id {
			t.Fatalf("run %q: cluster id not reproducible", runID)
		}
		if first := drawClusterID(runID, 0); strings.HasPrefix(first, "-") {
			redrawn++
			if first == id {
				t.Fatalf("run %q: leading '-' id %q not redrawn", runID, first)
			}
		}
	}
	if redrawn == 0 {
		t.Fatal("no run id needed a second draw: the test does not reach the leading '-' case")
	}
}

func TestValidClusterID(t *testing.T) {
	for _, tc := range []struct {
		id, want string
	}{
		{"0ijLaXgajK94kStwTkqUdw", ""},
		{"-ijLaXgajK94kStwTkqUdw", "begins with '-'"},
		{"0ijLaXgajK94kStwTkqUd", "21 characters"},
		{"0ijLaXgajK94kStwTkqUd+", "not 16 bytes"},
		{"AAAAAAAAAAAAAAAAAAAAAA", "reserved"},
	} {
		err := validClusterID(tc.id)
		if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("ValidClusterID(%q) = %v, want %q", tc.id, err, tc.want)
		}
	}
}
