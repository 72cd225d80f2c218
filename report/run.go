package report

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kchaos/kchaos/histories"
	yaml "gopkg.in/yaml.v3"
)

// File names in a run folder.
const (
	ScenarioFile  = "scenario.yaml"
	HistoryFile   = "history.jsonl"
	ResultsFile   = "results.json"
	OverridesFile = "overrides.json"
	ReportMD      = "report.md"
	ReportHTML    = "report.html"
	JUnitFile     = "junit.xml"
	ScreenshotPNG = "report.png"
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
	if over, err := readOverrides(filepath.Join(dir, OverridesFile)); err == nil {
		r.Over = over
	} else {
		r.Problems = append(r.Problems, err.Error())
	}
	var scen map[string]any
	if b, err := os.ReadFile(filepath.Join(dir, ScenarioFile)); err == nil {
		if err := yaml.Unmarshal(b, &scen); err != nil {
			r.Problems = append(r.Problems, fmt.Sprintf("%s: %v", ScenarioFile, err))
		}
	}
	r.Settings = settings(r.Info, r.HaveInfo, scen)
	r.Visuals, r.Logs = artifacts(dir)
	return r, nil
}

// verdict is the run's verdict, Unchecked without results.json.
func (r *run) verdict() Verdict {
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

// settings builds the configuration summary. Topic configs win over
// broker configs as in Kafka; broker-level values are found by key
// anywhere in scenario.yaml because run.json does not record them.
func settings(info histories.RunInfo, haveInfo bool, scen map[string]any) []setting {
	var out []setting
	add := func(name, value, source string) { out = append(out, setting{name, value, source}) }
	if !haveInfo {
		// Without run.json the producer's settings, ELR and the topic's
		// configs are unknown: say so rather than show defaults.
		add("run.json", "missing: acks, ELR, Kafka version and topic configs unknown", "")
		for _, k := range []string{"min.insync.replicas", "unclean.leader.election.enable"} {
			if v, ok := findKey(scen, k); ok {
				add(k, v, "scenario.yaml")
			} else {
				add(k, "unknown", "")
			}
		}
		return out
	}
	if info.KafkaVersion != "" {
		add("Kafka version", info.KafkaVersion, "run.json")
	}
	elr := "off"
	if info.ELR {
		elr = "on"
	}
	add("Eligible Leader Replicas (ELR)", elr, "run.json")
	acks := info.Producer.Acks
	if acks == "" {
		acks = "not recorded"
	}
	add("acks", acks, "producer")
	add("idempotent producer", fmt.Sprint(info.Producer.Idempotent), "producer")
	add("producer retries", fmt.Sprint(info.Producer.Retries), "producer")
	if info.Producer.Driver != "" {
		add("driver", info.Producer.Driver, "producer")
	}
	for _, k := range []struct{ key, def string }{
		{"min.insync.replicas", "1"},
		{"unclean.leader.election.enable", "false"},
	} {
		if v, ok := info.TopicConfigs[k.key]; ok {
			add(k.key, v, "topic config")
		} else if v, ok := findKey(scen, k.key); ok {
			add(k.key, v, "scenario.yaml")
		} else {
			add(k.key, k.def, "Kafka default (not set)")
		}
	}
	if info.Topic != "" {
		add("topic", fmt.Sprintf("%s: %d partition(s), replication factor %d", info.Topic, info.Partitions, info.Replication), "run.json")
	}
	if len(info.Brokers) > 0 {
		var bs []string
		for _, b := range info.Brokers {
			s := fmt.Sprint(b.ID)
			if b.Rack != "" {
				s += " (rack " + b.Rack + ")"
			}
			bs = append(bs, s)
		}
		add("brokers", strings.Join(bs, ", "), "run.json")
	}
	keys := make([]string, 0, len(info.TopicConfigs))
	for k := range info.TopicConfigs {
		if k != "min.insync.replicas" && k != "unclean.leader.election.enable" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		add(k, info.TopicConfigs[k], "topic config")
	}
	if info.Seed != 0 {
		add("seed", fmt.Sprint(info.Seed), "run.json")
	}
	return out
}

// findKey searches a decoded YAML tree depth-first, map keys in sorted
// order so that the answer does not depend on map iteration.
func findKey(n any, key string) (string, bool) {
	switch t := n.(type) {
	case map[string]any:
		if v, ok := t[key]; ok && v != nil {
			if _, nested := v.(map[string]any); !nested {
				return fmt.Sprint(v), true
			}
		}
		ks := make([]string, 0, len(t))
		for k := range t {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		for _, k := range ks {
			if v, ok := findKey(t[k], key); ok {
				return v, true
			}
		}
	case []any:
		for _, e := range t {
			if v, ok := findKey(e, key); ok {
				return v, true
			}
		}
	}
	return "", false
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
