//go:build integration

package harness

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/internal/testenv"
	"github.com/kchaos/kchaos/report"
)

// TestAuditStoriesThatCannotStart (issue 28, item 4), on the real Docker
// backend: an audit on a known Kafka release whose image is not built
// (4.0.0; no container starts, the image check comes first) has every
// story "not run" with no figure, exits 2, and its page says which.
// Run under the cluster lock:
//
//	flock /tmp/kchaos-cluster.lock go test -count=1 -p 1 -run TestAuditStoriesThatCannotStart ./harness/
func TestAuditStoriesThatCannotStart(t *testing.T) {
	testenv.Docker(t)
	store := t.TempDir()
	plan, err := AuditPlan(AuditOptions{Kafka: "4.0.0", BrokerConfig: map[string]string{"min.insync.replicas": "2"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := RunBatch(context.Background(), plan, BatchOptions{Options: Options{Store: store, NoScreenshot: true}})
	if err != nil {
		t.Fatal(err)
	}
	dir, rows := res.Dir, res.Rows
	if len(rows) != len(auditStories) {
		t.Fatalf("%d rows, want %d", len(rows), len(auditStories))
	}
	for _, r := range rows {
		if !r.NotRun || !strings.Contains(r.Reason, "not built") || r.Acked != 0 || r.Lost != 0 || r.LongestOffline() != 0 {
			t.Errorf("%s: %+v, want not run (image not built) and no figures", r.ID, r)
		}
	}
	if code := res.ExitCode(); code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "audit.md"))
	if !strings.Contains(string(md), "**Incomplete: s1, s7, s9, s10 did not run**") || !strings.Contains(string(md), report.NotRun) {
		t.Errorf("audit.md does not say which stories did not run:\n%s", md)
	}
}
