package explore

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/harness"
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/internal/owned"
	"github.com/kchaos/kchaos/report"
)

// Bisect runs a reproduction on several Kafka versions (or settings) N
// times each: a matrix plan (harness.NewMatrixPlan, the one batch
// engine) whose rows also record each run's classes, and a table of how
// often each version reproduced the finding's class.
type Bisect struct {
	Plan *harness.Plan
	// Class is the class a run must show to count (the finding.json
	// beside the repro); "" counts any finding.
	Class   string
	Repro   string
	classes map[string][]string // by run folder
	// unexercised are the run folders whose checks held vacuously (Kafka
	// acknowledged nothing) and found nothing: no draw either way.
	unexercised map[string]bool
}

// NewBisect plans a bisect of the repro file: on every Kafka version of
// kafkas (a list as matrix takes it; "" is every release kchaos knows,
// or, with varies, the repro's own version), under every combination of
// varies, runs times each. A repro that is not a scenario, a bad list or
// a bad variation is a *scenario.BadInputError, before any cluster.
func NewBisect(repro, kafkas string, runs int, varies []string, load func(sets []string) (*scenario.Scenario, error)) (*Bisect, error) {
	b := &Bisect{Repro: repro, classes: map[string][]string{}, unexercised: map[string]bool{}}
	bad := func(err error) error {
		var be *scenario.BadInputError
		if errors.As(err, &be) {
			return err
		}
		return &scenario.BadInputError{Err: err}
	}
	if _, err := load(nil); err != nil {
		return nil, bad(fmt.Errorf("%s is not a runnable scenario: %w", repro, err))
	}
	// Only a repro file has a finding beside it (a built-in name has none).
	beside := ""
	if st, err := os.Stat(repro); err == nil && st.Mode().IsRegular() {
		beside = filepath.Join(filepath.Dir(repro), findingFile)
	}
	switch data, err := os.ReadFile(beside); {
	case beside == "":
	case err == nil:
		var f FindingRecord
		if err := json.Unmarshal(data, &f); err != nil {
			return nil, bad(fmt.Errorf("%s beside the repro: not a finding record (%v)", findingFile, err))
		}
		if f.Class == "" {
			return nil, bad(fmt.Errorf("%s beside the repro: not a finding record: class missing (a finding record names the class of anomaly explore found)", findingFile))
		}
		b.Class = f.Class
	case !errors.Is(err, fs.ErrNotExist):
		return nil, bad(err)
	}
	if kafkas == "" && len(varies) == 0 {
		kafkas = strings.Join(cluster.Releases, ",")
	}
	plan, err := harness.NewMatrixPlan(varies, kafkas, runs, load)
	if err != nil {
		return nil, bad(err)
	}
	plan.Prefix = "bisect-"
	judge := plan.Judge
	plan.Judge = func(c harness.Cell, row *report.Row, ran harness.Ran) {
		judge(c, row, ran)
		if ran.Result != nil && ran.Result.Result != nil {
			cs := classes(ran.Result.Result, ran.Metrics, c.Scenario)
			if len(cs) == 0 && len(ran.Result.Result.Unexercised) > 0 {
				b.unexercised[row.RunDir] = true
				return
			}
			b.classes[row.RunDir] = cs
		}
	}
	b.Plan = plan
	return b, nil
}

// BisectRow is one version (or setting) of a bisect.
type BisectRow struct {
	Settings   string `json:"settings"`
	Kafka      string `json:"kafka"`
	Runs       int    `json:"runs"`
	Reproduced int    `json:"reproduced"`
	NotRun     int    `json:"not_run"`
	// Unexercised counts the runs whose checks held vacuously (Kafka
	// acknowledged nothing of them) and that showed nothing: no draw,
	// like a run not made.
	Unexercised int            `json:"unexercised,omitempty"`
	Anomalies   map[string]int `json:"anomalies"`
}

// Table groups the batch's rows by their settings without the run
// number, in the plan's order.
func (b *Bisect) Table(rows []report.Row) []BisectRow {
	var out []BisectRow
	index := map[string]int{}
	for _, r := range rows {
		s := maps.Clone(r.Settings)
		delete(s, "run")
		key := settingsText(s)
		i, ok := index[key]
		if !ok {
			i = len(out)
			index[key] = i
			out = append(out, BisectRow{Settings: key, Kafka: r.Kafka, Anomalies: map[string]int{}})
		}
		br := &out[i]
		br.Runs++
		if b.unexercised[r.RunDir] {
			br.Unexercised++
			continue
		}
		classes, ran := b.classes[r.RunDir]
		if !ran {
			br.NotRun++
			continue
		}
		if b.Class == "" && len(classes) > 0 || b.Class != "" && shows(classes, b.Class) {
			br.Reproduced++
		}
		for _, c := range classes {
			br.Anomalies[c]++
		}
	}
	return out
}

// affected are the first and last rows (in the plan's order: versions
// oldest first) that reproduced at least once; "" when none did.
func affected(rows []BisectRow) (first, last string) {
	for _, r := range rows {
		if r.Reproduced > 0 {
			if first == "" {
				first = r.Settings
			}
			last = r.Settings
		}
	}
	return first, last
}

// Markdown is bisect.md.
func (b *Bisect) Markdown(rows []BisectRow) string {
	var s strings.Builder
	what := "any finding"
	if b.Class != "" {
		what = b.Class
	}
	fmt.Fprintf(&s, "# kchaos bisect %s\n\nReproduced means the run showed %s.\n\n", b.Repro, what)
	s.WriteString("| settings | reproduced | anomalies (runs showing each) |\n|---|---|---|\n")
	for _, r := range rows {
		var an []string
		for _, k := range slices.Sorted(maps.Keys(r.Anomalies)) {
			an = append(an, fmt.Sprintf("%s %d", k, r.Anomalies[k]))
		}
		rate := fmt.Sprintf("%d/%d", r.Reproduced, r.Runs-r.NotRun-r.Unexercised)
		var apart []string
		if r.NotRun > 0 {
			apart = append(apart, fmt.Sprintf("%d not run", r.NotRun))
		}
		if r.Unexercised > 0 {
			apart = append(apart, fmt.Sprintf("%d in which Kafka acknowledged nothing", r.Unexercised))
		}
		if len(apart) > 0 {
			rate += " (" + strings.Join(apart, ", ") + ")"
		}
		fmt.Fprintf(&s, "| %s | %s | %s |\n", r.Settings, rate, orDash(strings.Join(an, ", ")))
	}
	if first, last := affected(rows); first != "" {
		fmt.Fprintf(&s, "\nFirst affected: %s. Last affected: %s.\n", first, last)
	} else {
		s.WriteString("\nNo row reproduced it.\n")
	}
	return s.String()
}

// Write writes bisect.md and bisect.json into dir.
func (b *Bisect) Write(dir string, rows []BisectRow) error {
	if err := writeJSON(filepath.Join(dir, "bisect.json"), struct {
		Repro string      `json:"repro"`
		Class string      `json:"class"`
		Rows  []BisectRow `json:"rows"`
	}{b.Repro, b.Class, rows}); err != nil {
		return err
	}
	return owned.Write(filepath.Join(dir, "bisect.md"), []byte(b.Markdown(rows)))
}
