package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/report"
)

func TestPlanAuditAppliesUserSettings(t *testing.T) {
	weak := AuditOptions{BrokerConfig: map[string]string{"min.insync.replicas": "1", "unclean.leader.election.enable": "true",
		"listeners": "PLAINTEXT://:9092"}}
	strong := AuditOptions{BrokerConfig: map[string]string{"min.insync.replicas": "2"},
		TopicConfig: map[string]string{"unclean.leader.election.enable": "false"}}
	for _, tc := range []struct {
		name      string
		opts      AuditOptions
		settings  map[string]string
		facts     []string // settings named by a fact
		noFacts   []string
		overrides []string
	}{
		{"weak", weak, map[string]string{"min.insync": "1"},
			[]string{"min.insync.replicas", "unclean.leader.election.enable=true"}, nil, []string{"listeners"}},
		{"strong", strong, map[string]string{"min.insync": "2", "unclean": "false"},
			[]string{"unclean.leader.election.enable=false"}, []string{"min.insync.replicas"}, nil},
		{"strong with acks=1", AuditOptions{BrokerConfig: strong.BrokerConfig, Sets: []string{"workload.acks=1"}},
			map[string]string{"acks": "1"}, []string{"acks"}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stories, overridden, err := planAudit(tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(stories) != len(auditStories) {
				t.Fatalf("%d stories", len(stories))
			}
			for _, s := range stories {
				// The stories' own min.insync and unclean settings are gone:
				// the user's broker config decides.
				if _, ok := s.Topic.Configs["min.insync.replicas"]; ok && tc.opts.TopicConfig["min.insync.replicas"] == "" {
					t.Errorf("%s keeps the story's topic min.insync.replicas", s.Name)
				}
				for k, v := range tc.settings {
					if got := s.Settings()[k]; got != v {
						t.Errorf("%s: %s = %q, want %q", s.Name, k, got, v)
					}
				}
				if s.Cluster.ELR != "default" {
					t.Errorf("%s: elr %q, want the version's default", s.Name, s.Cluster.ELR)
				}
			}
			var named []string
			for _, f := range auditFacts(stories[0]) {
				named = append(named, f.Setting, f.Setting+"="+f.Value)
			}
			joined := strings.Join(named, " ")
			for _, w := range tc.facts {
				if !strings.Contains(" "+joined+" ", " "+w+" ") {
					t.Errorf("facts %v lack %s", named, w)
				}
			}
			for _, w := range tc.noFacts {
				if strings.Contains(" "+joined+" ", " "+w+" ") {
					t.Errorf("facts %v name %s", named, w)
				}
			}
			if strings.Join(overridden, ",") != strings.Join(tc.overrides, ",") {
				t.Errorf("overridden %v, want %v", overridden, tc.overrides)
			}
		})
	}
}

func TestPlanAuditBadSet(t *testing.T) {
	if _, _, err := planAudit(AuditOptions{Sets: []string{"workload.acks=2"}}); err == nil || !strings.Contains(err.Error(), "workload.acks") {
		t.Errorf("bad --set: %v", err)
	}
}

func TestWriteAudit(t *testing.T) {
	dir := t.TempDir()
	a := report.Audit{Kafka: "4.1.2", Overridden: []string{"listeners"},
		Facts: []report.AuditFact{{Setting: "min.insync.replicas", Value: "1", Meaning: "below 2", Stories: []string{"s7"}}}}
	rows := []report.Row{{ID: "s7", Description: "power loss", Measure: report.Measure{Verdict: report.Invalid, Acked: 900, Lost: 812, Reused: 800,
		Offline: map[string]float64{"orders-0": 4.2}}}}
	rows[0].Status = auditStatus(rows[0]) // as judgeAudit sets it
	if err := report.AuditBatch(a, rows).Write(dir); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "audit.md"))
	for _, w := range []string{"| s7 | power loss | FAIL (checker: invalid) | 900 | 812 | 800 | 4.2 |", "- `min.insync.replicas` = 1: below 2 (s7)", "`listeners`"} {
		if !strings.Contains(string(md), w) {
			t.Errorf("audit.md lacks %q:\n%s", w, md)
		}
	}
	html, _ := os.ReadFile(filepath.Join(dir, "audit.html"))
	if !strings.Contains(string(html), "<code>listeners</code>") {
		t.Errorf("audit.html lacks the overridden key")
	}
}

// TestAuditPageNotRun (issue 28, item 4): a story that never ran has no
// figure on the page (a 0 would read as "nothing lost"), says "not run:"
// and why, and the page says which stories it has nothing on.
func TestAuditPageNotRun(t *testing.T) {
	dir := t.TempDir()
	a := report.Audit{Kafka: "4.0.0"}
	rows := []report.Row{
		{ID: "s1", Description: "cut off", Measure: report.Measure{Verdict: report.Valid, Acked: 500, Offline: map[string]float64{"orders-0": 3}}},
		{ID: "s7", Description: "power loss", NotRun: true, Reason: report.NotRun + "cluster: image kchaos/kafka:4.0.0 is not built"}}
	for i := range rows {
		rows[i].Status = auditStatus(rows[i]) // as judgeAudit and the batch set it
	}
	if err := report.AuditBatch(a, rows).Write(dir); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "audit.md"))
	html, _ := os.ReadFile(filepath.Join(dir, "audit.html"))
	for _, w := range []string{"| s7 | power loss | not run: cluster: image kchaos/kafka:4.0.0 is not built | — | — | — | — |",
		"**Incomplete: s7 did not run**", "| s1 | cut off | pass | 500 | 0 | 0 | 3.0 |"} {
		if !strings.Contains(string(md), w) {
			t.Errorf("audit.md lacks %q:\n%s", w, md)
		}
	}
	if strings.Contains(string(md), "| s7 | power loss | not run: cluster: image kchaos/kafka:4.0.0 is not built | 0") {
		t.Errorf("audit.md gives a figure for a story that never ran:\n%s", md)
	}
	for _, w := range []string{"not run: cluster: image", "Incomplete: s7 did not run"} {
		if !strings.Contains(string(html), w) {
			t.Errorf("audit.html lacks %q", w)
		}
	}
}

func TestAuditStoriesDescribed(t *testing.T) {
	for _, name := range auditStories {
		if auditStory[name] == "" {
			t.Errorf("audit story %s has no description", name)
		}
	}
}

func TestAuditExitCode(t *testing.T) {
	valid := report.Row{ID: "s1", Measure: report.Measure{Verdict: report.Valid}}
	row := func(id string, v report.RunVerdict, lost, reused int, reason string, notRun bool) report.Row {
		return report.Row{ID: id, Reason: reason, NotRun: notRun, Measure: report.Measure{Verdict: v, Lost: lost, Reused: reused}}
	}
	for _, tc := range []struct {
		name        string
		rows        []report.Row
		interrupted bool
		want        int
	}{
		{"every story valid", []report.Row{valid, valid}, false, 0},
		{"a story lost acked records", []report.Row{valid, row("s7", report.Invalid, 3, 0, "", false)}, false, 1},
		{"reused offsets", []report.Row{row("s9", report.Invalid, 0, 1, "", false)}, false, 1},
		{"a story could not run", []report.Row{valid, row("s2", report.Unchecked, 0, 0, "cluster start", false)}, false, 2},
		{"a verdict unknown", []report.Row{row("s2", report.Unknown, 0, 0, "", false)}, false, 2},
		{"loss beats an error before it", []report.Row{row("s2", "", 0, 0, "x", false), row("s7", "", 1, 0, "", false)}, false, 1},
		{"interrupted with nothing wrong", []report.Row{valid}, true, 2},
		{"interrupted after a loss", []report.Row{row("s7", "", 1, 0, "", false)}, true, 1},
		{"a story did not run", []report.Row{valid, row("s7", report.Unchecked, 0, 0, "image missing", true)}, false, 2},
	} {
		for i := range tc.rows {
			tc.rows[i].Status = auditStatus(tc.rows[i])
		}
		if got := ExitCode(report.AuditPage, tc.rows, tc.interrupted, false); got != tc.want {
			t.Errorf("%s: exit %d, want %d", tc.name, got, tc.want)
		}
	}
}
