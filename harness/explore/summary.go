package explore

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/internal/owned"
	"github.com/kchaos/kchaos/nemesis"
)

// SummaryFile is an exploration folder's record (explore.json); merge
// reads it, and explore.md is its page.
const SummaryFile = "explore.json"

// Summary is an exploration: every run (seed, verdict, classes) and every
// finding.
type Summary struct {
	Scenario string            `json:"scenario"`
	Kafka    string            `json:"kafka"`
	Settings map[string]string `json:"settings"`
	Faults   []string          `json:"faults"`
	BaseSeed int64             `json:"base_seed"`
	// Shard is "I/N" ("" for a whole exploration); Runs the run bound it
	// shares (0: bounded by time).
	Shard         string    `json:"shard,omitempty"`
	Runs          int       `json:"runs,omitempty"`
	Started       time.Time `json:"started"`
	Seconds       float64   `json:"seconds"`
	ShrinkSeconds float64   `json:"shrink_seconds"`
	RunsPerHour   float64   `json:"runs_per_hour"`
	// IdleSeconds is the mean time from one run's end of workload to the
	// next run's start of workload (runs straight after a run; 0: none).
	IdleSeconds float64 `json:"idle_seconds,omitempty"`
	Interrupted bool    `json:"interrupted,omitempty"`
	// Stopped says why the exploration ended before its runs or time
	// (MaxFailedInARow runs in a row failed before their check).
	Stopped string `json:"stopped,omitempty"`
	// StopAfter is Config.StopAfter: the exploration ended at its
	// StopAfter-th finding if it holds that many (not a stop of Stopped's
	// kind: its exit is a finding's).
	StopAfter int `json:"stop_after,omitempty"`
	// Strategy is how the runs' schedules were drawn (StrategyRandom,
	// StrategyGuided); Transitions the distinct transitions the runs
	// covered (coverage.json beside explore.json: their sum).
	Strategy    string `json:"strategy,omitempty"`
	Transitions int    `json:"transitions"`
	// Unsampled is the distinct transitions coverage.json also records
	// from before a partition's first sample, not counted in Transitions
	// nor in any run's NewTransitions (states.Covered.Sampled). Nil in an
	// explore.json written before 2026-12-07, whose figures counted them
	// (countedUnsampled).
	Unsampled  *int            `json:"unsampled_transitions,omitempty"`
	RunRecords []RunRecord     `json:"run_records"`
	Findings   []FindingRecord `json:"findings"`
	// recounted says CompareDirs counted Transitions again from the
	// exploration's coverage.json (recount), and faults the distinct
	// transitions of its faults alone (Coverage.DistinctFaults) there;
	// dir is the folder it read the exploration from.
	recounted bool
	faults    int
	dir       string
}

// countedUnsampled says s was written before coverage left out the
// transitions from before a first sample: its Transitions and its runs'
// NewTransitions count them (CompareDirs recounts the first from
// coverage.json; the second cannot be).
func (s *Summary) countedUnsampled() bool { return s.Unsampled == nil }

// atStopAfter says the exploration holds the findings its --stop-after
// asked for: it ended there, however many runs it had left.
func (s *Summary) atStopAfter() bool { return s.StopAfter > 0 && len(s.Findings) >= s.StopAfter }

// RunRecord is one run of an exploration.
type RunRecord struct {
	Index   int      `json:"index"`
	Seed    int64    `json:"seed"`
	Verdict string   `json:"verdict"`
	Classes []string `json:"classes,omitempty"`
	Seconds float64  `json:"seconds"`
	// IdleSeconds is the time from the previous run's end of workload to
	// this run's start of workload (0 for the first run, and after a
	// finding, whose shrink came between).
	IdleSeconds float64 `json:"idle_seconds,omitempty"`
	Finding     string  `json:"finding,omitempty"`
	ScheduleErr string  `json:"schedule_error,omitempty"`
	Err         string  `json:"error,omitempty"`
	// ReusedFrom is the run folder (its name) of the run whose cluster
	// this run ran on ("": its own, fresh); ReuseRefused says why it did
	// not leave its cluster to the next run.
	ReusedFrom   string `json:"reused_from,omitempty"`
	ReuseRefused string `json:"reuse_refused,omitempty"`
	// NewTransitions is how many transitions the run covered that no run
	// before it had (its coverage.json); CoverageErr why its history
	// could not be abstracted.
	NewTransitions int    `json:"new_transitions"`
	CoverageErr    string `json:"coverage_error,omitempty"`
	// Guided are the guided strategy's choices behind the run's schedule.
	Guided []Choice `json:"guided,omitempty"`
}

// FindingRecord is one finding (finding.json, and a line of the
// exploration's page).
type FindingRecord struct {
	ID      string   `json:"id"`
	Class   string   `json:"class"`
	Classes []string `json:"classes"`
	Run     int      `json:"run"`
	Seed    int64    `json:"seed"`
	Reasons []string `json:"reasons,omitempty"`
	// Steps and ReproSteps count fault steps before and after the shrink.
	Steps         int     `json:"fault_steps"`
	ReproSteps    int     `json:"repro_fault_steps"`
	Rate          string  `json:"reproduced"`
	ShrinkRuns    int     `json:"shrink_runs"`
	ShrinkMinutes float64 `json:"shrink_minutes"`
	OutOfBudget   bool    `json:"shrink_out_of_budget,omitempty"`
	// ShrinkReused counts the shrink's runs that ran on a cluster a run
	// before them kept (candidates only: the final reruns run on fresh
	// clusters, as `kchaos run` runs the repro).
	ShrinkReused int `json:"shrink_runs_reused,omitempty"`
	// ReusedFrom is set when the finding's run ran on the cluster of an
	// earlier run (its folder's name): the repro's final reruns run on
	// fresh clusters, so its rate never depends on what that run left.
	ReusedFrom string `json:"reused_from,omitempty"`
	// Dir is the finding's folder, relative to the exploration's.
	Dir string `json:"dir"`
	Err string `json:"error,omitempty"`
}

// findingFile is a finding folder's record; bisect reads the class a
// repro must show from the one beside it.
const findingFile = "finding.json"

// Write writes explore.json and explore.md into dir.
func (s *Summary) Write(dir string) error {
	if err := writeJSON(filepath.Join(dir, SummaryFile), s); err != nil {
		return err
	}
	return owned.Write(filepath.Join(dir, "explore.md"), []byte(s.Markdown()))
}

// Markdown is explore.md.
func (s *Summary) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# kchaos explore %s\n\n", s.Scenario)
	fmt.Fprintf(&b, "Kafka %s, settings %s, base seed %d", s.Kafka, settingsText(s.Settings), s.BaseSeed)
	if s.Shard != "" {
		fmt.Fprintf(&b, ", shard %s", s.Shard)
	}
	fmt.Fprintf(&b, ".\nMix: %s.", strings.Join(s.Faults, ", "))
	if s.Strategy != "" {
		fmt.Fprintf(&b, " Strategy: %s; %d distinct transitions covered (coverage.json", s.Strategy, s.Transitions)
		if s.Unsampled != nil && *s.Unsampled > 0 {
			fmt.Fprintf(&b, ", which also records %d struck before the observer's first sample, not counted", *s.Unsampled)
		}
		b.WriteString(").")
	}
	b.WriteString("\n\n")
	fmt.Fprintf(&b, "%d runs", len(s.RunRecords))
	judged := s.judged()
	if judged < len(s.RunRecords) {
		// A run that failed before its check found nothing only because
		// it checked nothing: the findings below are of the judged ones.
		fmt.Fprintf(&b, " (%d judged; the others failed before their check)", judged)
	}
	fmt.Fprintf(&b, ", %d findings", len(s.Findings))
	if judged > 0 {
		fmt.Fprintf(&b, ", %.1f runs per hour", s.RunsPerHour)
	}
	fmt.Fprintf(&b, " (%.0f s exploring, %.0f s shrinking)", s.Seconds-s.ShrinkSeconds, s.ShrinkSeconds)
	if s.IdleSeconds > 0 {
		fmt.Fprintf(&b, ", %.1f s idle between one run's workload and the next's", s.IdleSeconds)
	}
	if s.Interrupted {
		b.WriteString(", interrupted")
	}
	if s.Stopped != "" {
		b.WriteString(", " + oneLine(s.Stopped))
	}
	if s.atStopAfter() {
		fmt.Fprintf(&b, ", ended at its finding %d (--stop-after %d)", s.StopAfter, s.StopAfter)
	}
	b.WriteString(".\n\n")
	writeFindings(&b, s.Findings, "")
	b.WriteString("## Runs\n\n| run | seed | verdict | anomalies | seconds | new transitions | note |\n|---|---|---|---|---|---|---|\n")
	for _, r := range s.RunRecords {
		note := r.Finding
		if r.ReusedFrom != "" {
			note = strings.TrimSpace(note + " cluster reused")
		}
		if r.Err != "" {
			note = "run failed: " + r.Err
		} else if r.ScheduleErr != "" {
			note = strings.TrimSpace(note + " schedule did not play out: " + r.ScheduleErr)
		}
		if len(r.Guided) > 0 {
			note = strings.TrimSpace(note + " " + cmp.Or(s.Strategy, StrategyGuided) + ": " + choicesText(r.Guided))
		}
		fmt.Fprintf(&b, "| %d | %d | %s | %s | %.0f | %d | %s |\n", r.Index, r.Seed, r.Verdict, orDash(strings.Join(r.Classes, ", ")), r.Seconds,
			r.NewTransitions, oneLine(note))
	}
	return b.String()
}

// writeFindings is the findings table; prefix is put before each folder
// (a merge's shard folder).
func writeFindings(b *strings.Builder, fs []FindingRecord, prefix string) {
	if len(fs) == 0 {
		b.WriteString("No findings.\n\n")
		return
	}
	b.WriteString("## Findings\n\n| finding | class | run | seed | fault steps | repro steps | reproduced | shrink | folder |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, f := range fs {
		shrink := fmt.Sprintf("%d runs, %.1f min", f.ShrinkRuns, f.ShrinkMinutes)
		if f.OutOfBudget {
			shrink += " (budget spent)"
		}
		if f.Err != "" {
			shrink = "failed: " + f.Err
		}
		fmt.Fprintf(b, "| %s | %s | %d | %d | %d | %d | %s | %s | %s |\n", f.ID, f.Class, f.Run, f.Seed, f.Steps, f.ReproSteps, f.Rate,
			oneLine(shrink), filepath.Join(prefix, f.Dir))
	}
	b.WriteString("\n")
}

// writeFinding writes finding.json and finding.md: the anomaly and the
// checker's words for it, the minimal steps in words, the rate, the
// settings and version, and the shrink's cost.
func writeFinding(dir string, s *scenario.Scenario, f FindingRecord, repro *scenario.Scenario, res *shrunk) error {
	if err := writeJSON(filepath.Join(dir, findingFile), f); err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Finding %s: %s\n\n", f.ID, f.Class)
	fmt.Fprintf(&b, "Scenario %s on Kafka %s, settings %s; run %d of the exploration, seed %d.\n\n", s.Name, s.Cluster.Kafka, settingsText(s.Settings()), f.Run, f.Seed)
	fmt.Fprintf(&b, "Anomalies: %s.\n\n", strings.Join(f.Classes, ", "))
	if f.ReusedFrom != "" {
		fmt.Fprintf(&b, "The run ran on a cluster reused from run %s (fresh topic and groups, same brokers); the repro's final reruns run on fresh clusters.\n\n", f.ReusedFrom)
	}
	for _, r := range f.Reasons {
		fmt.Fprintf(&b, "- %s\n", r)
	}
	if f.Err != "" {
		fmt.Fprintf(&b, "\nThe finding could not be reduced: %s. The run folder is original-run/.\n", f.Err)
		return owned.Write(filepath.Join(dir, "finding.md"), []byte(b.String()))
	}
	if repro != nil {
		fmt.Fprintf(&b, "\n## The reproduction (repro.yaml, `kchaos run repro.yaml`)\n\n")
		for i, st := range repro.Nemesis.Steps {
			fmt.Fprintf(&b, "%d. %s\n", i+1, stepWords(st))
		}
		fmt.Fprintf(&b, "\nWorkload: %d producer(s), acks %s, for at least %s.\n", repro.Workload.Producers, repro.Workload.Acks, repro.Workload.Duration)
	}
	if res != nil {
		fmt.Fprintf(&b, "\nReproduced %s (%s) on %d final reruns, each on a fresh cluster. Shrunk from %d fault steps to %d in %d runs (%d of them on a cluster the run before kept), %.1f minutes",
			f.Rate, f.Class, res.Confirmations, f.Steps, f.ReproSteps, res.Runs, f.ShrinkReused, res.Elapsed.Minutes())
		if res.OutOfBudget {
			b.WriteString(" (the budget ran out: the repro may not be minimal)")
		}
		b.WriteString(".\n\nThe original run is original-run/ (its report.md), its schedule as it fired original.yaml; the last reproducing rerun of repro.yaml is repro-run/ when one reproduced.\n")
		b.WriteString("\n## Shrink trail\n\n")
		for _, l := range res.Trail {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	} else {
		b.WriteString("\nNot shrunk: repro.yaml is not written; original.yaml is the schedule as it fired.\n")
	}
	return owned.Write(filepath.Join(dir, "finding.md"), []byte(b.String()))
}

// stepWords is a step in words: "kill node(s) [0]", "wait 4s".
func stepWords(st nemesis.Step) string {
	switch {
	case st.Wait > 0:
		return "wait " + st.Wait.String()
	case st.Until != nil:
		bound := "at most " + st.Timeout.String()
		if st.Timeout <= 0 {
			bound = "at most the default bound"
		}
		if st.Optional {
			bound += ", then on either way"
		}
		return "until " + st.Until.String() + " (" + bound + ")"
	case st.Heal != "":
		return "heal " + st.Heal
	}
	b, err := json.Marshal(st)
	if err != nil {
		return st.Fault
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	delete(m, "fault")
	var parts []string
	if t := st.Target; t != nil && t.Role == nemesis.RoleNodes {
		parts = append(parts, fmt.Sprintf("on node(s) %v", t.Nodes))
		delete(m, "target")
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v, _ := json.Marshal(m[k])
		parts = append(parts, k+" "+string(v))
	}
	return strings.TrimSpace(st.Fault + " " + strings.Join(parts, ", "))
}

var slugRE = regexp.MustCompile(`[^a-z0-9]+`)

// slug is a class as a folder name's part: "outcome lost-write == 0" ->
// "outcome-lost-write-0".
func slug(class string) string {
	s := strings.Trim(slugRE.ReplaceAllString(strings.ToLower(class), "-"), "-")
	if len(s) > 40 {
		s = strings.TrimRight(s[:40], "-")
	}
	if s == "" {
		return "finding"
	}
	return s
}

// settingsText writes settings as k=v, sorted; a setting without a value
// (group.protocol without a group) is left out, as it has none to say.
func settingsText(m map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if m[k] == "" {
			continue
		}
		parts = append(parts, k+"="+m[k])
	}
	return orDash(strings.Join(parts, ", "))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func oneLine(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "\n", " "), "|", "/") }

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return owned.Write(path, append(b, '\n'))
}

// meanIdle is the mean idle gap over the runs that measured one.
func meanIdle(rs []RunRecord) float64 {
	var sum float64
	n := 0
	for _, r := range rs {
		if r.IdleSeconds > 0 {
			sum += r.IdleSeconds
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}
