package explore

import (
	"slices"
	"strconv"
	"time"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
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

// partitionAt is the guided partition: its id and its replicas as the
// topic assigns them (the preferred leader first).
type partitionAt struct {
	id       int32
	replicas []int32
}

// settle is what follows a fault until its effect shows: an optional
// until, bounded by the configs' wait, then Margin for the state to act
// (a leader acking alone once its ISR shrank); else the configs' wait.
// alone marks a fault struck once another isolated the leader
// (effects.alone), whose strike at the leader is expected to leave the
// partition offline (the ISR had shrunk to it); after a strike at one
// follower the leader taken is replaced cleanly, so the wait is for its
// fencing, as from a full ISR.
//
// Where the leader's id is known (the first episode's preferred leader)
// the until names the ids; where it is not (a later episode, or after a
// fault that may have moved the leader), a broker fault's until waits on
// the nodes it struck (nemesis.Condition.Struck): fenced for the leader,
// out of the ISR for its followers, so that the strikes after the first
// episode's stop waiting the full 5-6 s once the effect shows. A cut's
// struck nodes are both sides of it (the leader with its followers), so
// nothing of them says the ISR shrank to the leader: it keeps the wait.
func settle(c candidate, leader *int32, at partitionAt, w waits, alone bool) []nemesis.Step {
	until := func(cond nemesis.Condition, timeout time.Duration) []nemesis.Step {
		return []nemesis.Step{{Until: &cond, Timeout: nemesis.Duration(timeout), Optional: true}, {Wait: nemesis.Duration(w.Margin)}}
	}
	wait := func(d time.Duration) []nemesis.Step { return []nemesis.Step{{Wait: nemesis.Duration(d)}} }
	part := at.id
	switch c.fault {
	case histories.FKill, histories.FLoseUnflushed, histories.FPause:
		switch {
		case alone && c.armRole == aimLeader:
			yes := true
			return until(nemesis.Condition{Partition: part, Offline: &yes}, w.Fence)
		case leader != nil && c.armRole == aimLeader:
			return until(nemesis.Condition{Partition: part, Fenced: []int32{*leader}}, w.Fence)
		case leader != nil && c.armRole == aimFollowers:
			// Fenced followers leave the ISR (the controller's doing), or
			// silent ones the leader's check drops: whichever comes first.
			return until(nemesis.Condition{Partition: part, ISR: []int32{*leader}}, max(w.Fence, w.ISRShrink))
		case leader != nil && c.armRole == aimFollower && len(at.replicas) > 0:
			return until(nemesis.Condition{Partition: part, ISR: withoutFirstFollower(at.replicas, *leader)}, max(w.Fence, w.ISRShrink))
		case c.armRole == aimLeader:
			return until(nemesis.Condition{Struck: nemesis.StruckFenced}, w.Fence)
		case c.armRole == aimFollowers || c.armRole == aimFollower:
			return until(nemesis.Condition{Partition: part, Struck: nemesis.StruckOutOfISR}, max(w.Fence, w.ISRShrink))
		}
		return wait(w.Fence)
	case histories.FPartition, histories.FNetem:
		switch {
		case leader != nil && (c.armRole == aimLeader || c.armRole == aimFollowers):
			return until(nemesis.Condition{Partition: part, ISR: []int32{*leader}}, w.ISRShrink)
		case leader != nil && c.armRole == aimFollower && len(at.replicas) > 0:
			return until(nemesis.Condition{Partition: part, ISR: withoutFirstFollower(at.replicas, *leader)}, w.ISRShrink)
		}
		return wait(w.ISRShrink)
	}
	return wait(w.Margin)
}

// withoutFirstFollower is the ISR a strike at one follower leaves of a
// full one: the replicas less the first follower in id order (the one
// nemesis.Target's count takes).
func withoutFirstFollower(replicas []int32, leader int32) []int32 {
	followers := slices.Sorted(slices.Values(slices.DeleteFunc(slices.Clone(replicas), func(r int32) bool { return r == leader })))
	if len(followers) == 0 {
		return slices.Clone(replicas)
	}
	return slices.DeleteFunc(slices.Clone(replicas), func(r int32) bool { return r == followers[0] })
}

// healOf adds the heal kind that undoes fault (none for an instant one).
func healOf(heals []string, fault string) []string {
	if h := healKindOf(fault); h != "" && !slices.Contains(heals, h) {
		heals = append(heals, h)
	}
	return heals
}

// healKindOf is the heal kind that undoes fault ("" for an instant one).
func healKindOf(fault string) string {
	if f, ok := histories.LookupFault(fault); ok {
		return f.Heal
	}
	return ""
}
