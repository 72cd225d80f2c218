package explore

import (
	"strconv"
	"time"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/harness/scenario"
)

// waits are how long a fault takes to change what the guided strategy
// aims at, derived from the cluster's effective configs rather than
// fixed: a follower cut from its leader leaves the ISR after
// replica.lag.time.max.ms (the leader's check), and a broker that stops
// heartbeating is fenced after broker.session.timeout.ms (the
// controller's), which is also when a dead leader's partition is
// re-elected. kchaos knows both where it renders each node's
// server.properties: cluster.DefaultBrokerConfig and
// DefaultControllerConfig (its fast failure detection, 4 s and 3 s),
// under the scenario's cluster.broker_config, per_broker and
// controller_config (and a user's --broker-config, which lands there).
type waits struct {
	// ISRShrink is replica.lag.time.max.ms (the largest any broker runs
	// with) plus Margin.
	ISRShrink time.Duration
	// Fence is broker.session.timeout.ms on the controllers plus Margin.
	Fence time.Duration
	// Margin is what an effect takes beyond its timeout to show: the
	// check's own period, the metadata's propagation, the observer's
	// 250 ms samples.
	Margin time.Duration
}

// waitMargin is Waits.Margin.
const waitMargin = 2 * time.Second

// waitsOf derives s's waits from its effective configs.
func waitsOf(s *scenario.Scenario) waits {
	broker := cluster.DefaultBrokerConfig(max(s.Cluster.Brokers, 1))
	for k, v := range s.Cluster.BrokerConfig {
		broker[k] = v
	}
	lag := configMS(broker, "replica.lag.time.max.ms", 30*time.Second)
	for _, per := range s.Cluster.PerBroker {
		if v, ok := per["replica.lag.time.max.ms"]; ok {
			lag = max(lag, configMS(map[string]string{"x": v}, "x", lag))
		}
	}
	ctrl := cluster.DefaultControllerConfig()
	for k, v := range s.Cluster.ControllerConfig {
		ctrl[k] = v
	}
	session := configMS(ctrl, "broker.session.timeout.ms", 9*time.Second)
	return waits{ISRShrink: lag + waitMargin, Fence: session + waitMargin, Margin: waitMargin}
}

// configMS reads a millisecond config, def when absent or not a number
// (Kafka's own default, which a node without the key runs with).
func configMS(m map[string]string, key string, def time.Duration) time.Duration {
	v, err := strconv.ParseInt(m[key], 10, 64)
	if err != nil || v <= 0 {
		return def
	}
	return time.Duration(v) * time.Millisecond
}
