package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// A report for Kafka's JIRA gives the steps as a Kafka operator would do
// them, with Kafka's own tools and the shell, not as kchaos's YAML: a
// maintainer reproduces with what they have. Each fault kind that has
// such a translation has a function here; a step without one is written
// "(kchaos step: ...)" with its YAML in one line, never guessed at.

// upstreamTopic is what the steps need to know of the run: the topic, a
// bootstrap server to name, and the brokers' data dirs.
type upstreamTopic struct {
	Name       string
	Bootstrap  string
	Controller string // a controller's address (bootstrap-controller)
	LogDirs    string
}

// stepTranslation writes one step of the scenario; nil means none exists.
type stepTranslation func(st map[string]any, t upstreamTopic) string

// faultSteps translates the faults; healSteps the heals of lasting ones.
var faultSteps = map[string]stepTranslation{
	"kill": func(st map[string]any, _ upstreamTopic) string {
		return fmt.Sprintf("On %s: `kill -9 $(pgrep -f kafka.Kafka)` (a process crash: the page cache keeps what the broker wrote).", targetWords(st))
	},
	"restart": func(st map[string]any, _ upstreamTopic) string {
		return fmt.Sprintf("On %s: `kafka-server-stop.sh`, wait for the process to exit, `kafka-server-start.sh -daemon server.properties` (a clean restart).", targetWords(st))
	},
	"pause": func(st map[string]any, _ upstreamTopic) string {
		return fmt.Sprintf("On %s: `kill -STOP $(pgrep -f kafka.Kafka)` (the process frozen, its sessions time out).", targetWords(st))
	},
	"lose-unflushed": func(st map[string]any, t upstreamTopic) string {
		return fmt.Sprintf("Power-cut %s: `kill -9` it, then drop what was not fsynced: truncate each of the topic's segments under %s "+
			"to the partition's offset in `recovery-point-offset-checkpoint` and delete later segments "+
			"(what a host's power loss does to data still in the page cache; on a VM, a hard reset without `sync`).", targetWords(st), orDefault(t.LogDirs, "log.dirs"))
	},
	"partition": func(st map[string]any, _ upstreamTopic) string {
		shape, _ := st["shape"].(string)
		what := map[string]string{
			"leader-followers": "the partition's leader from its followers (each side still reaches the controllers and the clients)",
			"isolate":          "the target from every other node",
		}[shape]
		if what == "" {
			what = fmt.Sprintf("%s (shape %s)", targetWords(st), orDefault(shape, "default"))
		}
		return fmt.Sprintf("Cut %s with iptables on each side: `iptables -A INPUT -s <peer> -j DROP; iptables -A OUTPUT -d <peer> -j DROP`.", what)
	},
	"set-config": func(st map[string]any, t upstreamTopic) string {
		return fmt.Sprintf("`kafka-configs.sh --bootstrap-server %s --alter --entity-type topics --entity-name %s --add-config %s`.",
			t.Bootstrap, t.Name, keyValues(st["config"], ","))
	},
	"set-feature": func(st map[string]any, t upstreamTopic) string {
		return fmt.Sprintf("`kafka-features.sh --bootstrap-server %s upgrade --feature %s`.", t.Bootstrap, keyValues(st["feature"], " --feature "))
	},
	"move-leader": func(st map[string]any, t upstreamTopic) string {
		return fmt.Sprintf("Move partition %v's leadership to %s: `kafka-reassign-partitions.sh --bootstrap-server %s --execute "+
			"--reassignment-json-file` with the same replicas, that broker first; then `kafka-leader-election.sh --bootstrap-server %s "+
			"--election-type PREFERRED --topic %s --partition %v`.", orZero(st["partition"]), targetWords(st), t.Bootstrap, t.Bootstrap, t.Name, orZero(st["partition"]))
	},
	"elect-unclean": func(st map[string]any, t upstreamTopic) string {
		return fmt.Sprintf("`kafka-leader-election.sh --bootstrap-server %s --election-type UNCLEAN --topic %s --partition %v`.", t.Bootstrap, t.Name, orZero(st["partition"]))
	},
	"elect-preferred": func(st map[string]any, t upstreamTopic) string {
		return fmt.Sprintf("`kafka-leader-election.sh --bootstrap-server %s --election-type PREFERRED --topic %s --partition %v`.", t.Bootstrap, t.Name, orZero(st["partition"]))
	},
	"start": func(st map[string]any, _ upstreamTopic) string {
		return fmt.Sprintf("On %s: `kafka-server-start.sh -daemon server.properties`.", targetWords(st))
	},
	"resume": func(st map[string]any, _ upstreamTopic) string {
		return fmt.Sprintf("On %s: `kill -CONT $(pgrep -f kafka.Kafka)`.", targetWords(st))
	},
	"remove-controller": func(st map[string]any, t upstreamTopic) string {
		return fmt.Sprintf("`kafka-metadata-quorum.sh --bootstrap-controller %s remove-controller --controller-id <id> --controller-directory-id <id>` for %s.",
			t.Controller, targetWords(st))
	},
	"add-controller": func(st map[string]any, t upstreamTopic) string {
		return fmt.Sprintf("Start %s again, then `kafka-metadata-quorum.sh --command-config controller.properties --bootstrap-controller %s add-controller`.",
			targetWords(st), t.Controller)
	},
	"disk-fail": func(st map[string]any, _ upstreamTopic) string {
		return fmt.Sprintf("On %s: `chattr -R +i` the log dir %v (every file and folder in it immutable: the next write fails).", targetWords(st), orZero(st["dir"]))
	},
	"stop-producers": func(map[string]any, upstreamTopic) string { return "Stop the producers." },
}

var healSteps = map[string]stepTranslation{
	"kill": func(map[string]any, upstreamTopic) string {
		return "Start the killed brokers: `kafka-server-start.sh -daemon server.properties`."
	},
	"partition": func(map[string]any, upstreamTopic) string {
		return "Remove the iptables rules on every node (`iptables -F`)."
	},
	"pause": func(map[string]any, upstreamTopic) string { return "`kill -CONT` the paused processes." },
	"lose-unflushed": func(map[string]any, upstreamTopic) string {
		return "Start the power-cut brokers: `kafka-server-start.sh -daemon server.properties`."
	},
	"disk": func(map[string]any, upstreamTopic) string { return "`chattr -R -i` the failed log dir." },
}

// upstreamSteps translates a scenario file's nemesis steps, one line a
// step; the file's topic first (kafka-topics) and its workload in words.
func upstreamSteps(scenarioYAML []byte, t upstreamTopic) ([]string, error) {
	var doc struct {
		Topic struct {
			Name       string            `yaml:"name"`
			Partitions int               `yaml:"partitions"`
			RF         int               `yaml:"replication_factor"`
			Assignment [][]int           `yaml:"assignment"`
			Configs    map[string]string `yaml:"configs"`
		} `yaml:"topic"`
		Workload map[string]any `yaml:"workload"`
		Nemesis  struct {
			Steps []map[string]any `yaml:"steps"`
		} `yaml:"nemesis"`
	}
	if err := yaml.Unmarshal(scenarioYAML, &doc); err != nil {
		return nil, err
	}
	create := fmt.Sprintf("`kafka-topics.sh --bootstrap-server %s --create --topic %s", t.Bootstrap, t.Name)
	if len(doc.Topic.Assignment) > 0 {
		var parts []string
		for _, p := range doc.Topic.Assignment {
			parts = append(parts, strings.Trim(strings.ReplaceAll(fmt.Sprint(p), " ", ":"), "[]"))
		}
		create += " --replica-assignment " + strings.Join(parts, ",")
	} else {
		create += fmt.Sprintf(" --partitions %d --replication-factor %d", max(doc.Topic.Partitions, 1), max(doc.Topic.RF, 3))
	}
	for _, k := range slices.Sorted(maps.Keys(doc.Topic.Configs)) {
		create += " --config " + k + "=" + doc.Topic.Configs[k]
	}
	out := []string{create + "`.", workloadWords(doc.Workload)}
	for _, st := range doc.Nemesis.Steps {
		out = append(out, stepLine(st, t))
	}
	return out, nil
}

// stepLine is one step in an operator's words.
func stepLine(st map[string]any, t upstreamTopic) string {
	switch {
	case st["wait"] != nil:
		return fmt.Sprintf("Wait %v.", st["wait"])
	case st["until"] != nil:
		line := fmt.Sprintf("Wait until `kafka-topics.sh --bootstrap-server %s --describe --topic %s` shows %s (up to %v)",
			t.Bootstrap, t.Name, conditionWords(st["until"]), orDefault(fmt.Sprint(orZero(st["timeout"])), "the default"))
		if st["optional"] == true {
			line += "; go on if it does not"
		}
		return line + "."
	case st["fault"] != nil:
		kind := fmt.Sprint(st["fault"])
		if tr := faultSteps[kind]; tr != nil {
			return tr(st, t)
		}
	case st["heal"] != nil:
		if tr := healSteps[fmt.Sprint(st["heal"])]; tr != nil {
			return tr(st, t)
		}
	}
	return "(kchaos step: " + flowYAML(st) + ")"
}

// targetWords is a step's target: "brokers 1, 2", "partition 0's leader".
func targetWords(st map[string]any) string {
	tg, _ := st["target"].(map[string]any)
	if tg == nil {
		return "the target"
	}
	switch role := fmt.Sprint(tg["role"]); role {
	case "nodes":
		nodes, _ := tg["nodes"].([]any)
		var ids []string
		for _, n := range nodes {
			ids = append(ids, fmt.Sprint(n))
		}
		noun := "broker"
		if len(ids) > 1 {
			noun = "brokers"
		}
		return noun + " " + strings.Join(ids, ", ")
	case "leader":
		return fmt.Sprintf("partition %v's leader", orZero(tg["partition"]))
	default:
		return strings.ReplaceAll(role, "-", " ")
	}
}

// conditionWords is an until's condition: "isr [0]".
func conditionWords(c any) string {
	m, _ := c.(map[string]any)
	if m == nil {
		return fmt.Sprint(c)
	}
	if _, ok := m["partition"]; !ok {
		m["partition"] = 0
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %v", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// workloadWords is the producers and consumers in words.
func workloadWords(w map[string]any) string {
	s := fmt.Sprintf("Produce continuously to the topic with %v producer(s), acks=%v", orDefault(fmt.Sprint(orZero(w["producers"])), "4"), orDefault(fmt.Sprint(w["acks"]), "all"))
	if rt, ok := w["request_timeout"]; ok {
		s += fmt.Sprintf(", request.timeout.ms %v", rt)
	}
	return s + ", retries 0, each send's acknowledged offset recorded; one consumer reads the topic (kchaos's workload)."
}

// keyValues is a map as k=v pairs joined by sep.
func keyValues(v any, sep string) string {
	m, _ := v.(map[string]any)
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s=%v", k, m[k]))
	}
	return strings.Join(parts, sep)
}

// flowYAML is a step as one line of YAML: {fault: x, target: {...}}.
func flowYAML(st map[string]any) string {
	var n yaml.Node
	if err := n.Encode(st); err != nil {
		return fmt.Sprint(st)
	}
	setFlow(&n)
	b, err := yaml.Marshal(&n)
	if err != nil {
		return fmt.Sprint(st)
	}
	return strings.TrimSpace(string(b))
}

func setFlow(n *yaml.Node) {
	n.Style |= yaml.FlowStyle
	for _, c := range n.Content {
		setFlow(c)
	}
}

func orZero(v any) any {
	if v == nil {
		return 0
	}
	return v
}

func orDefault(s, def string) string {
	if s == "" || s == "<nil>" || s == "0" {
		return def
	}
	return s
}
