package report

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kchaos/kchaos/histories"
)

// File names in a run folder.
const (
	scenarioFile  = "scenario.yaml"
	HistoryFile   = "history.jsonl"
	ResultsFile   = "results.json"
	overridesFile = "overrides.json"
	ReportMD      = "report.md"
	ReportHTML    = "report.html"
	JUnitFile     = "junit.xml"
	screenshotPNG = "report.png"
)

// run is everything the report reads from a run folder except the history,
// which is streamed separately because it can be large.
type run struct {
	Dir      string
	Info     histories.RunInfo
	HaveInfo bool
	Res      *results // nil: no readable results.json
	ResErr   string   // why Res is nil
	Over     []override
	Settings []setting
	Visuals  []string // porcupine visualizations, relative to Dir
	Logs     []string // logs, relative to Dir
	Problems []string // files that could not be read, said in the report
}

// setting is one line of the configuration summary. Source says where the
// value came from, because a durability review must tell a value that was
// set from a default that was assumed.
type setting struct {
	Name, Value, Source string
}

// loadRun reads a run folder. Only an unreadable folder is an error: a
// missing or broken run.json, results.json or overrides.json is reported
// in Problems so that a crashed run still gets a report saying so.
func loadRun(dir string) (*run, error) {
	if st, err := os.Stat(dir); err != nil {
		return nil, err
	} else if !st.IsDir() {
		return nil, fmt.Errorf("%s: not a run folder", dir)
	}
	r := &run{Dir: dir}
	if info, err := histories.ReadRunInfo(filepath.Join(dir, histories.RunInfoFile)); err == nil {
		r.Info, r.HaveInfo = info, true
	} else {
		r.Problems = append(r.Problems, fmt.Sprintf("%s: %v", histories.RunInfoFile, err))
	}
	if res, err := readResults(filepath.Join(dir, ResultsFile)); err == nil {
		r.Res = res
	} else {
		r.ResErr = err.Error()
		r.Problems = append(r.Problems, fmt.Sprintf("%s: %v", ResultsFile, err))
	}
	if over, err := readOverrides(filepath.Join(dir, overridesFile)); err == nil {
		r.Over = over
	} else {
		r.Problems = append(r.Problems, err.Error())
	}
	// Settings come from run.json alone: scenario.yaml says what was asked
	// for, and its later live set-config steps would pass for starting
	// values. Live changes are added from the history (build).
	r.Settings = settings(r.Info, r.HaveInfo)
	r.Visuals, r.Logs = artifacts(dir)
	return r, nil
}

// verdict is the run's verdict, Unchecked without results.json.
func (r *run) verdict() RunVerdict {
	if r.Res == nil {
		return Unchecked
	}
	return r.Res.Valid
}

// name is "scenario" or, without run.json, the folder's parent's name
// (store/<scenario>/<timestamp>).
func (r *run) name() string {
	if r.Info.Scenario != "" {
		return r.Info.Scenario
	}
	return filepath.Base(filepath.Dir(filepath.Clean(r.Dir)))
}

// artifacts lists porcupine visualizations (any *.html in the folder or
// one level below, except the reports) and logs (everything under logs/).
func artifacts(dir string) (visuals, logs []string) {
	for _, pat := range []string{"*.html", "*/*.html"} {
		m, _ := filepath.Glob(filepath.Join(dir, pat))
		for _, p := range m {
			rel, _ := filepath.Rel(dir, p)
			if rel == ReportHTML || filepath.Base(rel) == "matrix.html" || strings.HasPrefix(rel, "logs"+string(filepath.Separator)) {
				continue
			}
			visuals = append(visuals, filepath.ToSlash(rel))
		}
	}
	_ = filepath.WalkDir(filepath.Join(dir, "logs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			logs = append(logs, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(visuals)
	sort.Strings(logs)
	return visuals, logs
}
