package expect

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/kchaos/kchaos/histories"
)

// A bound a scenario writes as a fixed number is a guess that holds for
// the configs its author had in mind; when Kafka's own timeouts explain a
// measured figure, the bound must move with them (a --set of
// replica.lag.time.max.ms or workload.request_timeout must not turn a
// cell red). A derived metric is such a bound: computed per run from the
// run's effective settings as run.json records them (the brokers'
// server.properties as they read it, the workload's producer settings),
// defined once here with its formula and why, and compared against on
// the right of a check: `offline_seconds < isr_shrink_bound_seconds`.

// ISRShrinkBoundSeconds is how long acks=all sends may fail while a
// follower that is alive but cannot write leaves the ISR:
// replica.lag.time.max.ms (the leader's high watermark waits that long
// for a follower that caught up recently, although the controller took
// it out of the ISR at once), then one request timeout of the sends
// stuck on it (the high watermark is recomputed only on the next
// append), then a second for the observer's samples and the retries.
const ISRShrinkBoundSeconds = "isr_shrink_bound_seconds"

// kafkaReplicaLagTimeMaxMS is Kafka's default replica.lag.time.max.ms,
// the value of a broker whose server.properties does not set it.
const kafkaReplicaLagTimeMaxMS = 30000

// derived is one bound derived from a run's effective settings.
type derived struct {
	Name string
	// Formula is the bound as the documentation writes it.
	Formula string
	// Why says what the bound stands for.
	Why string
	// compute is the bound for one run, or why the run cannot give it.
	compute func(histories.RunInfo) (float64, error)
}

// derivedMetrics is every derived bound a check may compare against.
var derivedMetrics = []derived{{
	Name:    ISRShrinkBoundSeconds,
	Formula: "max over brokers of replica.lag.time.max.ms / 1000 + workload.request_timeout + 1 s",
	Why: "the longest acks=all sends may fail while a live follower that cannot write leaves the ISR: " +
		"the high watermark waits replica.lag.time.max.ms for it, then the sends stuck on it time out",
	compute: isrShrinkBound,
}}

// isrShrinkBound is ISRShrinkBoundSeconds of one run.
func isrShrinkBound(info histories.RunInfo) (float64, error) {
	if len(info.BrokerConfigs) == 0 {
		return 0, fmt.Errorf("run.json records no broker configs")
	}
	if info.Producer.RequestTimeoutMS <= 0 {
		return 0, fmt.Errorf("run.json records no producer request timeout")
	}
	lag := 0.0
	for id, conf := range info.BrokerConfigs {
		ms := float64(kafkaReplicaLagTimeMaxMS)
		if v, ok := conf["replica.lag.time.max.ms"]; ok {
			n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil || n < 0 || math.IsInf(n, 0) || math.IsNaN(n) {
				return 0, fmt.Errorf("broker %d: replica.lag.time.max.ms %q is not a number of milliseconds", id, v)
			}
			ms = n
		}
		lag = max(lag, ms)
	}
	return lag/1000 + float64(info.Producer.RequestTimeoutMS)/1000 + 1, nil
}

// derivedNames lists the derived metrics' names, for messages.
func derivedNames() string {
	var out []string
	for _, d := range derivedMetrics {
		out = append(out, d.Name)
	}
	return strings.Join(out, ", ")
}

// isDerived reports whether name is a derived metric.
func isDerived(name string) bool {
	return slices.ContainsFunc(derivedMetrics, func(d derived) bool { return d.Name == name })
}

// Derive is every derived bound of one run, by name; a bound the run's
// settings cannot give is left out (a check against it is unjudged,
// never guessed), with the reason in problems.
func Derive(info histories.RunInfo) (m Metrics, problems []string) {
	m = Metrics{}
	for _, d := range derivedMetrics {
		v, err := d.compute(info)
		if err != nil {
			problems = append(problems, d.Name+": "+err.Error())
			continue
		}
		m[d.Name] = v
	}
	return m, problems
}
