package scenario

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/kchaos/kchaos/internal/bounds"
	"github.com/kchaos/kchaos/nemesis"
)

// kafkaValue checks one Kafka config value as Kafka's ConfigDef parses it
// (the value trimmed; booleans case-insensitive; INT 32-bit, LONG 64-bit,
// SHORT 16-bit; enumerations exact), returning why Kafka would refuse it.
type kafkaValue func(v string) error

func intAtLeast(bits int, min int64) kafkaValue {
	return func(v string) error {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, bits)
		if err != nil {
			return fmt.Errorf("%q: want a whole number (Kafka reads it as a %d-bit integer)", bounds.Cut(v), bits)
		}
		if n < min {
			return fmt.Errorf("%q: want at least %d", bounds.Cut(v), min)
		}
		return nil
	}
}

func intBetween(bits int, lo, hi int64) kafkaValue {
	return func(v string) error {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, bits)
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrSyntax {
			return fmt.Errorf("%q: want an integer, %d..%d", bounds.Cut(v), lo, hi)
		}
		if err != nil || n < lo || n > hi {
			return fmt.Errorf("%s: Kafka wants %d..%d", bounds.Cut(strings.TrimSpace(v)), lo, hi)
		}
		return nil
	}
}

func boolean(v string) error {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "false":
		return nil
	}
	return fmt.Errorf("%q: want true or false", bounds.Cut(v))
}

func oneOf(values ...string) kafkaValue {
	return func(v string) error {
		if slices.Contains(values, strings.TrimSpace(v)) {
			return nil
		}
		return fmt.Errorf("%q: want %s (Kafka matches it exactly)", bounds.Cut(v), strings.Join(values, " or "))
	}
}

func refused(why string) kafkaValue {
	return func(string) error { return fmt.Errorf("%s", why) }
}

// notCompacted refuses a cleanup policy that compacts (Kafka's LIST:
// comma-separated, each item trimmed). The checker models no log
// cleaner: compaction may remove an acked record that a later record
// with its key supersedes, which would read as lost-write, and Kafka
// refuses a record without a key on a compacted topic, so round-robin
// sends all fail (a run of that reads nothing acknowledged: unknown).
// A broker's log.cleanup.policy is the workload topic's default, so it
// is refused too.
func notCompacted(v string) error {
	if listHas(v, "compact") {
		return fmt.Errorf("%q: kchaos's checker models no log compaction (the cleaner may remove an acked record a later one with its key supersedes, which would read as lost-write; and Kafka refuses every keyless round-robin send on a compacted topic): use delete", bounds.Cut(v))
	}
	return nil
}

// listHas says Kafka's LIST value v (comma-separated, each item trimmed,
// as its ConfigDef parses it) holds item.
func listHas(v, item string) bool {
	for it := range strings.SplitSeq(v, ",") {
		if strings.TrimSpace(it) == item {
			return true
		}
	}
	return false
}

// kafkaConfigRules are the Kafka configs kchaos itself reads, sets or
// explains (the audit's facts, the settings a matrix varies, the
// writeback model's timestamp type), with the types and ranges Kafka's
// own ConfigDef gives them: a value Kafka would refuse at start-up or at
// topic creation is refused before any cluster, naming the key, and never
// reported under another value (an audit that read "abc" as 1).
var kafkaConfigRules = map[string]kafkaValue{
	"min.insync.replicas":                      intAtLeast(32, 1),
	"unclean.leader.election.enable":           boolean,
	"default.replication.factor":               intAtLeast(32, 1),
	"num.partitions":                           intAtLeast(32, 1),
	"offsets.topic.replication.factor":         intAtLeast(16, 1),
	"offsets.topic.num.partitions":             intAtLeast(32, 1),
	"transaction.state.log.replication.factor": intAtLeast(16, 1),
	"transaction.state.log.min.isr":            intAtLeast(32, 1),
	"transaction.state.log.num.partitions":     intAtLeast(32, 1),
	"log.flush.interval.messages":              intAtLeast(64, 1),
	"log.flush.interval.ms":                    intAtLeast(64, 0),
	"flush.messages":                           intAtLeast(64, 1),
	"flush.ms":                                 intAtLeast(64, 0),
	"message.timestamp.type":                   oneOf("CreateTime", "LogAppendTime"),
	"log.message.timestamp.type":               oneOf("CreateTime", "LogAppendTime"),
	"retention.ms":                             intAtLeast(64, -1),
	"log.retention.ms":                         intAtLeast(64, -1),
	"retention.bytes":                          intAtLeast(64, -1),
	"log.retention.bytes":                      intAtLeast(64, -1),
	"remote.storage.enable":                    boolean,
	"cleanup.policy":                           notCompacted,
	"log.cleanup.policy":                       notCompacted,
	"local.retention.ms":                       intAtLeast(64, -2),
	"local.retention.bytes":                    intAtLeast(64, -2),
	// Share groups (Kafka's ShareGroupConfig, 4.1-4.4; the record lock
	// duration's upper end is 4.2+'s, 4.1 stopped at 60000).
	shareLockKey:    intBetween(32, 1000, 3600000),
	shareLockMinKey: intBetween(32, 1000, 30000),
	shareLockMaxKey: intBetween(32, 30000, 3600000),
	shareLimitKey:   intBetween(32, shareLimitMin, shareLimitMax),
}

// topicOnlyRules apply to a topic's configs only: not configs at all,
// which Kafka refuses as unknown topic configs at creation (a broker only
// warns about an unknown key), and a user who wrote them meant the
// topic's own fields.
var topicOnlyRules = map[string]kafkaValue{
	"replication.factor": refused("not a topic config (Kafka refuses it at creation): set topic.replication_factor"),
	"partitions":         refused("not a topic config (Kafka refuses it at creation): set topic.partitions"),
}

// CheckKafkaConfig reports each value of m that Kafka would refuse, each
// error naming where.key; topic says m is a topic's configs. Keys kchaos
// has no rule for are Kafka's to judge at start-up (the fail-fast start
// quotes its refusal).
func CheckKafkaConfig(where string, m map[string]string, topic bool) []error {
	var errs []error
	for _, k := range slices.Sorted(maps.Keys(m)) {
		rule, ok := kafkaConfigRules[strings.TrimSpace(k)]
		if !ok && topic {
			rule, ok = topicOnlyRules[strings.TrimSpace(k)]
		}
		if ok {
			if err := rule(m[k]); err != nil {
				errs = append(errs, fmt.Errorf("%s.%s: %w", where, k, err))
			}
		}
	}
	return errs
}

// checkKafkaConfigs checks every map of Kafka configs in the scenario:
// the topic's, the brokers', the controllers', each broker's own, and the
// values of live set-config steps (a null value deletes the key).
func (s *Scenario) checkKafkaConfigs() []error {
	errs := CheckKafkaConfig("topic.configs", s.Topic.Configs, true)
	errs = append(errs, CheckKafkaConfig("cluster.broker_config", s.Cluster.BrokerConfig, false)...)
	errs = append(errs, CheckKafkaConfig("cluster.controller_config", s.Cluster.ControllerConfig, false)...)
	for _, id := range slices.Sorted(maps.Keys(s.Cluster.PerBroker)) {
		errs = append(errs, CheckKafkaConfig(fmt.Sprintf("cluster.per_broker.%d", id), s.Cluster.PerBroker[id], false)...)
	}
	for i, st := range s.Nemesis.Steps {
		sc, ok := st.Params.(nemesis.ConfigChanger)
		if !ok {
			continue
		}
		live := map[string]string{}
		for k, v := range sc.ConfigChanges() {
			if v != nil {
				live[k] = *v
			}
		}
		errs = append(errs, CheckKafkaConfig(fmt.Sprintf("nemesis.steps[%d].config", i), live, true)...)
	}
	return errs
}
