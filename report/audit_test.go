package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAuditRowOutcome: a row's outcome cell is its status in a reviewer's
// words (the status the exit code follows) and what the history shows, on
// both pages: a strong config's soft branch reads as a pass with its
// reason, a loss as FAIL.
func TestAuditRowOutcome(t *testing.T) {
	elr := "when broker 0 lost power, ELR elected broker 1 within a second; the amnesiac leader (broker 0) never led again; nothing lost"
	unclean := "when broker 0 was killed, broker 1 was elected uncleanly (in neither the ISR nor the ELR) within a second; 5055 acked records lost"
	row := func(id, status string, v RunVerdict, account, reason string) Row {
		return Row{ID: id, Status: status, Account: account, Reason: reason, Measure: Measure{Verdict: v}}
	}
	for _, tc := range []struct {
		name     string
		row      Row
		md, html string
	}{
		{"pass with its reason", row("s7", AuditNothing, Valid, elr, ""),
			"| pass: " + elr + " |", `<b class="ok">pass</b>: ` + elr},
		{"a loss", row("s1", AuditLost, Invalid, unclean, ""),
			"| FAIL: " + unclean + " (checker: invalid) |", `<b class="lost">FAIL</b>: ` + unclean + " (checker: invalid)"},
		{"a schedule that did not play out", row("s9", AuditUnknown, Valid, "nothing lost", "the schedule did not play out: step 3"),
			"| not judged: nothing lost (the schedule did not play out: step 3) |", `<div class="err">the schedule did not play out: step 3</div>`},
		{"an unknown verdict", row("s10", AuditUnknown, Unknown, "", ""),
			"| not judged (checker: unknown) |", `<b class="lost">not judged</b> (checker: unknown)`},
		{"never ran", Row{ID: "s10", Status: AuditNotRun, NotRun: true, Reason: "not run: image missing"},
			"| not run: image missing |", "not run: image missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := AuditBatch(Audit{Kafka: "4.4.0"}, []Row{tc.row}).Write(dir); err != nil {
				t.Fatal(err)
			}
			md, _ := os.ReadFile(filepath.Join(dir, "audit.md"))
			html, _ := os.ReadFile(filepath.Join(dir, "audit.html"))
			if !strings.Contains(string(md), tc.md) {
				t.Errorf("audit.md lacks %q:\n%s", tc.md, md)
			}
			if !strings.Contains(string(html), tc.html) {
				t.Errorf("audit.html lacks %q:\n%s", tc.html, html)
			}
		})
	}
}

// TestAuditSummary: the page's one-line verdict follows the rows'
// statuses, as the exit code does, and heads the page.
func TestAuditSummary(t *testing.T) {
	pass := Row{ID: "s1", Status: AuditNothing}
	for _, tc := range []struct {
		name string
		rows []Row
		want string
	}{
		{"every story passed", []Row{pass, {ID: "s7", Status: AuditNothing}},
			"Pass: every story ran, and none lost an acked record or reused an offset."},
		{"a loss", []Row{pass, {ID: "s7", Status: AuditLost}, {ID: "s9", Status: AuditLost}},
			"FAIL: s7, s9 lost acked records or reused offsets."},
		{"one not judged, one not run", []Row{pass, {ID: "s7", Status: AuditUnknown}, {ID: "s9", Status: AuditNotRun, NotRun: true}},
			"Not every story could be judged (s7, s9); the others lost nothing."},
		{"nothing yet", nil, "No story has run yet."},
	} {
		if got := auditSummary(tc.rows); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
		dir := t.TempDir()
		if err := AuditBatch(Audit{Kafka: "4.4.0"}, tc.rows).Write(dir); err != nil {
			t.Fatal(err)
		}
		if md, _ := os.ReadFile(filepath.Join(dir, "audit.md")); !strings.Contains(string(md), tc.want) {
			t.Errorf("%s: audit.md lacks the summary:\n%s", tc.name, md)
		}
	}
}
