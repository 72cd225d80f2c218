package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAuditRowOutcome: a row's outcome cell is its status (the rule the
// exit code follows) and what the history shows, on both pages: a strong
// config's soft branch reads as a pass with its reason, a loss as FAIL.
func TestAuditRowOutcome(t *testing.T) {
	elr := "when broker 0 lost power, ELR elected broker 1 within a second; the amnesiac leader (broker 0) never led again; nothing lost"
	unclean := "when broker 0 was killed, broker 1 was elected uncleanly (in neither the ISR nor the ELR) within a second; 5055 acked records lost"
	for _, tc := range []struct {
		name     string
		row      AuditRow
		status   string
		md, html string
	}{
		{"pass with its reason", AuditRow{Story: "s7", Verdict: string(Valid), Account: elr}, StatusPass,
			"| pass: " + elr + " |", `<b class="ok">pass</b>: ` + elr},
		{"a loss", AuditRow{Story: "s1", Verdict: string(Invalid), Lost: 5055, Reused: 5055, Account: unclean}, StatusFail,
			"| FAIL: " + unclean + " (checker: invalid) |", `<b class="lost">FAIL</b>: ` + unclean + " (checker: invalid)"},
		{"a schedule that did not play out", AuditRow{Story: "s9", Verdict: string(Valid), Account: "nothing lost",
			Error: "the schedule did not play out: step 3"}, StatusNotJudged,
			"| not judged: nothing lost (the schedule did not play out: step 3) |", `<div class="err">the schedule did not play out: step 3</div>`},
		{"an unknown verdict", AuditRow{Story: "s10", Verdict: string(Unknown)}, StatusNotJudged,
			"| not judged (checker: unknown) |", `<b class="lost">not judged</b> (checker: unknown)`},
		{"never ran", AuditRow{Story: "s10", NotRun: "image missing"}, StatusNotRun, "| not run: image missing |", "not run: image missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.row.Status(); got != tc.status {
				t.Errorf("status %q, want %q", got, tc.status)
			}
			dir := t.TempDir()
			if err := WriteAudit(dir, Audit{Kafka: "4.4.0", Rows: []AuditRow{tc.row}}); err != nil {
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
// statuses, as the exit code does.
func TestAuditSummary(t *testing.T) {
	pass := AuditRow{Story: "s1", Verdict: string(Valid)}
	for _, tc := range []struct {
		name string
		rows []AuditRow
		want string
	}{
		{"every story passed", []AuditRow{pass, {Story: "s7", Verdict: string(Valid)}},
			"Pass: every story ran, and none lost an acked record or reused an offset."},
		{"a loss", []AuditRow{pass, {Story: "s7", Verdict: string(Invalid), Lost: 3}, {Story: "s9", Reused: 1}},
			"FAIL: s7, s9 lost acked records or reused offsets."},
		{"one not judged, one not run", []AuditRow{pass, {Story: "s7", Error: "x"}, {Story: "s9", NotRun: "y"}},
			"Not every story could be judged (s7, s9); the others lost nothing."},
		{"nothing yet", nil, "No story has run yet."},
	} {
		if got := (Audit{Rows: tc.rows}).Summary(); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
