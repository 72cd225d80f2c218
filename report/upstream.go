package report

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

	"github.com/kchaos/kchaos/histories"
)

// A finding kchaos shows is worth something to Kafka only once it is in
// Kafka's JIRA, written so that a maintainer can check it without kchaos:
// what broke, on which releases, under which settings, the steps with
// Kafka's own tools, what was expected and what happened (naming the
// records, offsets and epochs), the brokers' own log lines, and the file
// that reproduces it. Upstream writes that text from a run folder alone
// (run.json, results.json, scenario.yaml, logs/), or from an explore
// finding's folder (its repro.yaml and the run beside it), so that it
// says what the run showed and nothing kchaos did not record.

// UpstreamOptions are Upstream's.
type UpstreamOptions struct {
	// Bisect is a bisect folder (its bisect.json) whose rows give the
	// affected releases; "" looks for bisect.json in the folder itself.
	Bisect string
	// MaxLogLines bounds the log lines quoted (0: 12).
	MaxLogLines int
}

// UpstreamFolderError is a folder Upstream cannot read a run from, naming
// the file: bad input, not an internal error.
type UpstreamFolderError struct{ Err error }

func (e *UpstreamFolderError) Error() string { return e.Err.Error() }
func (e *UpstreamFolderError) Unwrap() error { return e.Err }

// upstreamRun is the folders Upstream reads: the run folder and the
// reproduction file (a finding's repro.yaml, else the run's scenario.yaml).
type upstreamRun struct {
	runDir, repro string
}

// locateUpstream finds the run of dir: a run folder (run.json and
// results.json), or an explore finding folder (finding.json, repro.yaml,
// and repro-run/ or original-run/).
func locateUpstream(dir string) (upstreamRun, error) {
	isRun := func(d string) error {
		for _, f := range []string{histories.RunInfoFile, ResultsFile, "scenario.yaml"} {
			if _, err := os.Stat(filepath.Join(d, f)); err != nil {
				return fmt.Errorf("%s: not a checked run folder: %s: %w", dir, f, errors.Unwrap(err))
			}
		}
		return nil
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return upstreamRun{}, &UpstreamFolderError{fmt.Errorf("%s: not a folder", dir)}
	}
	if _, err := os.Stat(filepath.Join(dir, "finding.json")); err == nil {
		for _, sub := range []string{"repro-run", "original-run"} {
			if isRun(filepath.Join(dir, sub)) == nil {
				return upstreamRun{runDir: filepath.Join(dir, sub), repro: filepath.Join(dir, "repro.yaml")}, nil
			}
		}
		return upstreamRun{}, &UpstreamFolderError{fmt.Errorf("%s: a finding folder without repro-run/ or original-run/ holding run.json, %s and scenario.yaml", dir, ResultsFile)}
	}
	if err := isRun(dir); err != nil {
		return upstreamRun{}, &UpstreamFolderError{err}
	}
	return upstreamRun{runDir: dir, repro: filepath.Join(dir, "scenario.yaml")}, nil
}

// Upstream is the JIRA text for the run or finding in dir.
func Upstream(dir string, opts UpstreamOptions) (string, error) {
	loc, err := locateUpstream(dir)
	if err != nil {
		return "", err
	}
	r, err := loadRun(loc.runDir)
	if err != nil {
		return "", &UpstreamFolderError{err}
	}
	if !r.HaveInfo || r.Res == nil {
		return "", &UpstreamFolderError{fmt.Errorf("%s: %s", loc.runDir, strings.Join(r.Problems, "; "))}
	}
	repro, err := histories.ReadRegular(loc.repro)
	if err != nil {
		return "", &UpstreamFolderError{err}
	}
	_, marks, err := brokerLogs(loc.runDir)
	if err != nil {
		return "", &UpstreamFolderError{fmt.Errorf("%s: logs: %w", loc.runDir, err)}
	}
	bisectDir := opts.Bisect
	if bisectDir == "" {
		bisectDir = dir
	}
	affected, err := bisectAffected(bisectDir, opts.Bisect != "")
	if err != nil {
		return "", &UpstreamFolderError{err}
	}
	info := r.Info
	t := upstreamTopic{Name: info.Topic, Bootstrap: "broker0:9092", Controller: "controller0:9093", LogDirs: "log.dirs"}
	if b0 := info.BrokerConfigs[firstID(info.BrokerConfigs)]; b0 != nil && b0["log.dirs"] != "" {
		t.LogDirs = b0["log.dirs"]
	}
	steps, err := upstreamSteps(repro, t)
	if err != nil {
		return "", &UpstreamFolderError{fmt.Errorf("%s: %v", loc.repro, err)}
	}
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	w("h2. Summary\n\n%s\n\n", upstreamSummary(r))
	w("h3. Affected releases\n\n")
	if len(affected) > 0 {
		w("%s\n\n", strings.Join(affected, "\n"))
	} else {
		w("Kafka %s (this run; not bisected across releases).\n\n", info.KafkaVersion)
	}
	w("h3. Environment\n\n%s\n", strings.Join(environment(info), "\n"))
	w("\nh3. Steps to reproduce\n\n")
	for _, s := range steps {
		w("# %s\n", s)
	}
	w("\nh3. Expected\n\n%s\n\nh3. Actual\n\n", strings.Join(expected(r.Res, info.Producer.Acks), "\n"))
	for _, e := range r.Res.Explanations {
		w("* %s\n", e.Text)
	}
	if len(r.Res.Explanations) == 0 {
		w("* %s\n", strings.Join(r.Res.Reasons, "; "))
	}
	w("\nh3. The brokers' and the controller's logs\n\n")
	if len(marks) == 0 {
		w("The run kept no broker logs.\n")
	} else {
		w("Times are seconds after the workload started (run.json's started: %s).\n\n{noformat}\n",
			info.Started.UTC().Format("2006-01-02T15:04:05.000Z"))
		for _, m := range logLines(marks, max(opts.MaxLogLines, 12)) {
			w("%s %s (%s line %d): %s\n", m.At, m.Node, m.File, m.Line, m.Text)
		}
		w("{noformat}\n")
	}
	w("\nh3. Reproduction\n\nWith kchaos (https://github.com/kchaos/kchaos): `kchaos run %s --kafka %s`, the file:\n\n{code:yaml}\n%s{code}\n",
		filepath.Base(loc.repro), info.KafkaVersion, strings.TrimRight(string(repro), "\n")+"\n")
	return b.String(), nil
}

// upstreamSummary is the JIRA's summary line: what was lost, under which
// durability settings, on which release.
func upstreamSummary(r *run) string {
	info := r.Info
	var what []string
	for _, k := range r.Res.kinds() {
		if n := r.Res.count(k); n > 0 && r.Res.counted(k) {
			what = append(what, fmt.Sprintf("%d %s", n, upstreamNoun(k)))
		}
	}
	if len(what) == 0 {
		what = []string{"no anomaly (the run was " + string(r.Res.Valid) + ")"}
	}
	var set []string
	set = append(set, "acks="+info.Producer.Acks)
	for _, k := range []string{"min.insync.replicas", "unclean.leader.election.enable"} {
		if v, ok := info.TopicConfigs[k]; ok {
			set = append(set, k+"="+v)
		}
	}
	if info.ELR {
		set = append(set, "ELR on")
	}
	return fmt.Sprintf("%s on Kafka %s (%s), RF %d, after %s",
		strings.Join(what, ", "), info.KafkaVersion, strings.Join(set, ", "), info.Replication, faultList(r.Dir))
}

// upstreamNoun is an anomaly kind in a reporter's words.
func upstreamNoun(kind string) string {
	switch kind {
	case "lost-write":
		return "acknowledged records lost"
	case "offset-reuse":
		return "offsets given to two different records"
	case "nonlinearizable":
		return "partition log with no linearization"
	case "duplicate":
		return "records an idempotent producer wrote twice"
	case "aborted-read":
		return "records of failed sends in the log"
	case "unexpected":
		return "records read that no producer sent"
	case "nonmonotonic-send":
		return "acknowledgements below the same producer's previous offset"
	case "poll-skip":
		return "consumer polls that skipped records"
	case "nonmonotonic-poll":
		return "consumer polls that went back"
	}
	return kind
}

// expected says, per anomaly the run found, what Kafka promises instead
// (an acknowledged record's durability under the run's own acks).
func expected(res *results, acks string) []string {
	words := map[string]string{
		"lost-write":      "Every record the leader acknowledged (acks=" + acks + ") is in the partition's log after the brokers return (the final read).",
		"offset-reuse":    "No offset of the partition ever holds two different records.",
		"nonlinearizable": "The partition's log is one history the acknowledged sends and reads agree on.",
		"duplicate":       "An idempotent producer's record is in the partition's log once.",
		"aborted-read":    "A record whose send failed with a definite error is not in the partition's log.",
		"unexpected":      "Every record read from the partition was sent by a producer.",
		"nonmonotonic-send": "A producer's later acknowledged record on a partition has a higher offset than its earlier one " +
			"(Kafka orders one idempotent producer's records).",
		"poll-skip":         "A consumer reading a partition in order sees every record between two of its polls.",
		"nonmonotonic-poll": "A consumer's next poll of a partition starts after the last offset it read.",
	}
	var out []string
	for _, k := range res.kinds() {
		if res.count(k) == 0 || !res.counted(k) {
			continue // a kind that does not count here promises nothing
		}
		if s, ok := words[k]; ok {
			out = append(out, "* "+s)
		} else {
			out = append(out, fmt.Sprintf("* No %s (docs/checker.md in kchaos defines it).", k))
		}
	}
	if len(out) == 0 {
		out = append(out, "* (the run found no anomaly)")
	}
	return out
}

// environment is the release, topology and the configs that differ from
// Kafka's defaults, as the nodes read them (run.json).
func environment(info histories.RunInfo) []string {
	out := []string{fmt.Sprintf("* Kafka %s, KRaft: %d controller(s), %d broker(s), in Docker containers on one host (kchaos)", info.KafkaVersion, len(info.Controllers), len(info.Brokers))}
	if info.ELR {
		out = append(out, "* eligible.leader.replicas.version=1 (ELR on)")
	}
	out = append(out, fmt.Sprintf("* topic %s: %d partition(s), replication factor %d; set on the topic: %s", info.Topic, info.Partitions, info.Replication, topicOwn(info)))
	p := info.Producer
	out = append(out, fmt.Sprintf("* producer: %s client, acks=%s, enable.idempotence=%v, retries=%d, request.timeout.ms=%d", p.Driver, p.Acks, p.Idempotent, p.Retries, p.RequestTimeoutMS))
	if b := info.BrokerConfigs[firstID(info.BrokerConfigs)]; b != nil {
		out = append(out, "* broker config (server.properties, addresses and ids left out): "+propsLine(b))
	}
	if c := info.ControllerConfigs[firstID(info.ControllerConfigs)]; c != nil {
		out = append(out, "* controller config: "+propsLine(c))
	}
	return out
}

// perNode are the keys that name a node or its addresses: not settings a
// reproduction copies.
var perNode = []string{"node.id", "listeners", "advertised.listeners", "controller.quorum.voters", "controller.quorum.bootstrap.servers",
	"listener.security.protocol.map", "controller.listener.names", "inter.broker.listener.name", "process.roles", "broker.rack", "log.dirs", "metadata.log.dir"}

func propsLine(m map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(perNode, k) {
			parts = append(parts, k+"="+m[k])
		}
	}
	return strings.Join(parts, ", ")
}

func topicOwn(info histories.RunInfo) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(info.TopicConfigs)) {
		if info.TopicConfigSources[k] == histories.ConfigSourceTopic {
			parts = append(parts, k+"="+info.TopicConfigs[k])
		}
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}

func firstID(m map[int32]map[string]string) int32 {
	ids := slices.Sorted(maps.Keys(m))
	if len(ids) == 0 {
		return -1
	}
	return ids[0]
}

// logLines are the markers a reader needs: the data markers (elections,
// truncations, divergence) and fencing first in time order, at most n.
func logLines(marks []markerRow, n int) []markerRow {
	var out []markerRow
	for _, m := range marks {
		if slices.Contains(dataMarkers, m.Name) || m.Name == "fenced" {
			out = append(out, m)
		}
	}
	slices.SortStableFunc(out, func(a, b markerRow) int { return int(a.T - b.T) })
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// faultList names the run's faults in the order the scenario played them,
// from the history's nemesis ops ("partition, kill, lose-unflushed").
func faultList(dir string) string {
	var kinds []string
	f, err := os.Open(filepath.Join(dir, HistoryFile))
	if err != nil {
		return "the scenario's faults"
	}
	defer f.Close()
	rd := histories.NewReader(f)
	for {
		e, err := rd.Next()
		if err != nil {
			break
		}
		if e.Process != histories.NemesisProcess || e.Type != histories.Invoke || slices.Contains(kinds, e.F) {
			continue
		}
		// Faults only: not the schedule's bookkeeping (until, heal) nor
		// an undo (start, resume).
		if f, ok := histories.LookupFault(e.F); ok && f.Effect != histories.Undo && f.Effect != histories.Bookkeeping {
			kinds = append(kinds, e.F)
		}
	}
	if len(kinds) == 0 {
		return "no fault"
	}
	return strings.Join(kinds, ", ")
}

// bisectAffected reads a bisect.json: the releases (rows) that
// reproduced, with their rates, and those that did not. A missing file is
// no bisect unless it was asked for.
func bisectAffected(dir string, asked bool) ([]string, error) {
	path := filepath.Join(dir, "bisect.json")
	b, err := histories.ReadRegular(path)
	if errors.Is(err, fs.ErrNotExist) && !asked {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var doc struct {
		Rows []struct {
			Settings   string `json:"settings"`
			Kafka      string `json:"kafka"`
			Runs       int    `json:"runs"`
			Reproduced int    `json:"reproduced"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	var out []string
	for _, r := range doc.Rows {
		word := "reproduced"
		if r.Reproduced == 0 {
			word = "not reproduced"
		}
		out = append(out, fmt.Sprintf("* %s: %s in %d of %d runs", orDefault(r.Kafka, r.Settings), word, r.Reproduced, r.Runs))
	}
	return out, nil
}
