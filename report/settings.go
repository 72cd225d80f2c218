package report

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/kchaos/kchaos/histories"
)

// durabilityKeys are the topic configs every report states, with Kafka's
// default for a run.json that does not record them.
var durabilityKeys = []struct{ key, def string }{
	{"min.insync.replicas", "1"},
	{"unclean.leader.election.enable", "false"},
}

// Sources as the settings table says them.
const (
	fromTopic   = "topic config"
	fromBroker  = "broker config"
	fromDefault = "Kafka default (not set)"
)

// settings builds the configuration summary at the start of the run, from
// run.json alone: the configs there are the ones the cluster applied
// (after kchaos's overrides and defaults). Live changes are separate rows
// (liveChanges), never a starting value.
func settings(info histories.RunInfo, haveInfo bool) []setting {
	var out []setting
	add := func(name, value, source string) { out = append(out, setting{name, value, source}) }
	if !haveInfo {
		// Without run.json the producer's settings, ELR and the configs
		// are unknown: say so rather than show defaults or guesses.
		add("run.json", "missing: acks, ELR, Kafka version and configs unknown", "")
		for _, k := range durabilityKeys {
			add(k.key, "unknown", "")
		}
		return out
	}
	if info.KafkaVersion != "" {
		add("Kafka version", info.KafkaVersion, "run.json")
	}
	if info.Cluster.Reused() {
		// The run shared its brokers with earlier runs (kchaos explore):
		// a reader of a finding must know; its repro reruns fresh.
		add("cluster", fmt.Sprintf("reused: %s, after run %s (%d run(s) before this one)", info.Cluster.RunID, info.Cluster.ReusedFrom, info.Cluster.RunsBefore), "run.json")
	}
	elr := "off"
	if info.ELR {
		elr = "on"
	}
	add("Eligible Leader Replicas (ELR)", elr, "run.json")
	if info.TransactionVersion > 0 {
		add("transaction.version", fmt.Sprint(info.TransactionVersion), "run.json")
	}
	acks := info.Producer.Acks
	if acks == "" {
		acks = "not recorded"
	}
	add("acks", acks, "producer")
	add("idempotent producer", fmt.Sprint(info.Producer.Idempotent), "producer")
	add("producer retries", fmt.Sprint(info.Producer.Retries), "producer")
	if info.Producer.Transactional {
		add("transactional producer", "true", "producer")
	}
	if info.Producer.Driver != "" {
		add("driver", info.Producer.Driver, "producer")
	}
	for _, k := range durabilityKeys {
		v, src := topicSetting(info, k.key, k.def)
		add(k.key, v, src)
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
	// The other configs set on the topic itself; inherited and default
	// ones are in run.json but would drown the table.
	var keys []string
	for k := range info.TopicConfigs {
		src := info.TopicConfigSources[k]
		if isDurabilityKey(k) || (src != "" && src != histories.ConfigSourceTopic) {
			continue
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		add(k, info.TopicConfigs[k], fromTopic)
	}
	if info.Seed != 0 {
		add("seed", fmt.Sprint(info.Seed), "run.json")
	}
	return out
}

func isDurabilityKey(k string) bool {
	for _, d := range durabilityKeys {
		if d.key == k {
			return true
		}
	}
	return false
}

// topicSetting is a topic config's starting value and where it came from.
// A run.json that lacks the key (older runs recorded only the topic's own
// configs) falls back to the brokers' configs, then to Kafka's default.
func topicSetting(info histories.RunInfo, key, def string) (value, source string) {
	if v, ok := info.TopicConfigs[key]; ok {
		switch info.TopicConfigSources[key] {
		case histories.ConfigSourceBroker:
			return v, fromBroker
		case histories.ConfigSourceDefault:
			return v, fromDefault
		}
		return v, fromTopic
	}
	if v, ok := brokerValue(info, key); ok {
		return v, fromBroker
	}
	return def, fromDefault
}

// brokerValue is key's value in the brokers' configs when every broker
// that sets it agrees (else the values, by broker).
func brokerValue(info histories.RunInfo, key string) (string, bool) {
	ids := make([]int32, 0, len(info.BrokerConfigs))
	for id := range info.BrokerConfigs {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	var vals []string
	seen := map[string]bool{}
	for _, id := range ids {
		if v, ok := info.BrokerConfigs[id][key]; ok {
			vals = append(vals, fmt.Sprintf("%s on broker %d", v, id))
			seen[v] = true
		}
	}
	switch len(seen) {
	case 0:
		return "", false
	case 1:
		for v := range seen {
			return v, true
		}
	}
	return strings.Join(vals, ", "), true
}

// liveChanges are the configs the nemesis changed during the run, one row
// per key and set-config op, after the starting values: the table shows a
// change as a change, at its time, never as where the run started.
func liveChanges(ops []nemOp) []setting {
	var out []setting
	for _, op := range ops {
		if op.F == histories.FUpgrade || op.F == histories.FSetFeature {
			out = append(out, upgradeRows(op)...)
			continue
		}
		if op.F != "set-config" {
			continue
		}
		cfg := configOf(op.Value.Details)
		keys := slices.Sorted(maps.Keys(cfg))
		for _, k := range keys {
			v := "deleted (back to the inherited value)"
			if cfg[k] != nil {
				v = fmt.Sprint(cfg[k])
			}
			src := "live change (set-config) at " + secs(op.Start)
			switch op.Type {
			case histories.OK:
			case "":
				src += ", no completion recorded"
			default:
				src += ", ended " + string(op.Type)
			}
			out = append(out, setting{k, v, src})
		}
	}
	return out
}

// configOf is the config a set-config op set: its "config" detail (what
// the nemesis records), or else every detail but "topic".
func configOf(d map[string]any) map[string]any {
	if c, ok := d["config"].(map[string]any); ok {
		return c
	}
	out := map[string]any{}
	for k, v := range d {
		if k != "topic" {
			out[k] = v
		}
	}
	return out
}

// upgradeRows are the rows of an upgrade op (a node's Kafka release,
// from and to) and of a set-feature op (each finalized feature whose
// level it changed, before and after): the evidence of what ran and what
// was on, at its time.
func upgradeRows(op nemOp) []setting {
	src := "live change (" + op.F + ") at " + secs(op.Start)
	if op.Type != histories.OK {
		src += ", ended " + string(op.Type)
		if op.Type == "" {
			src = "live change (" + op.F + ") at " + secs(op.Start) + ", no completion recorded"
		}
	}
	d := op.Value.Details
	if op.F == histories.FUpgrade {
		return []setting{{fmt.Sprintf("Kafka version of %v %v", d["role"], d["node"]),
			fmt.Sprintf("%v → %v", d["from"], d["to"]), src}}
	}
	before, _ := d["features_before"].(map[string]any)
	after, _ := d["features_after"].(map[string]any)
	if r, ok := d["refused"].(map[string]any); ok && op.Type == histories.Fail {
		// Kafka refused the level: nothing changed, and its answer says why.
		name := fmt.Sprint(r["feature"])
		return []setting{{"feature " + name, fmt.Sprintf("%s (%v refused: %v %v)", level(before[name]), r["level"], r["code"], r["message"]), src}}
	}
	names := map[string]bool{}
	for k := range before {
		names[k] = true
	}
	for k := range after {
		names[k] = true
	}
	keys := slices.Sorted(maps.Keys(names))
	var out []setting
	for _, k := range keys {
		b, a := level(before[k]), level(after[k])
		if b == a && after != nil {
			continue
		}
		out = append(out, setting{"feature " + k, b + " → " + a, src})
	}
	return out
}

// level renders a finalized feature level; absent is 0, as Kafka reads it.
func level(v any) string {
	if v == nil {
		return "0"
	}
	return fmt.Sprint(v)
}
