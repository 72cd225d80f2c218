package scenario

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/nemesis"
)

// Share groups (workload.shares, KIP-932): what a scenario must say for
// Kafka to run them, checked before any cluster starts. The version
// facts are cluster.Version's (HasShareGroups, ShareVersionDefault,
// MaxShareVersion); the broker configs' bounds are Kafka's
// ShareGroupConfig (4.1-4.4): group.share.record.lock.duration.ms
// (default 30000) must lie within group.share.min.record.lock.duration.ms
// and group.share.max.record.lock.duration.ms (defaults 15000 and 60000),
// else the broker refuses to start; group.share.delivery.count.limit
// (default 5) is between(2, 10).

// shareVersionDefault is cluster.share_version's default: the release's
// level for new clusters.
const shareVersionDefault = "default"

// Broker configs of share groups and Kafka's defaults.
const (
	shareLockKey    = "group.share.record.lock.duration.ms"
	shareLockMinKey = "group.share.min.record.lock.duration.ms"
	shareLockMaxKey = "group.share.max.record.lock.duration.ms"
	shareLimitKey   = "group.share.delivery.count.limit"
	shareLockDef    = 30000
	shareLockMinDef = 15000
	shareLockMaxDef = 60000
	shareLimitDef   = 5
	shareLimitMin   = 2
	shareLimitMax   = 10
)

// shareVersion parses cluster.share_version: nil for the default.
func (c ClusterSpec) shareVersion() (*int16, error) {
	if c.ShareVersion == "" || c.ShareVersion == shareVersionDefault {
		return nil, nil
	}
	n, err := strconv.ParseInt(c.ShareVersion, 10, 16)
	if err != nil || n < 0 {
		return nil, fmt.Errorf("%q: want default or a level 0, 1 or 2", c.ShareVersion)
	}
	l := int16(n)
	return &l, nil
}

// shareVersionProblem says why release v cannot run the scenario's share
// group ("" when it can): before 4.1, a share.version that leaves share
// groups off (4.1's default), or lock renewal before 4.2 (KIP-1222).
func (s *Scenario) shareVersionProblem(v cluster.Version) (path, problem string) {
	if !s.Workload.Shares.Enabled() {
		return "", ""
	}
	if !v.HasShareGroups() {
		return "workload.shares", fmt.Sprintf("share groups (KIP-932) need Kafka 4.1 or later (4.0's early access cannot be upgraded); %s does not have them", v)
	}
	level := v.ShareVersionDefault()
	if l, err := s.Cluster.shareVersion(); err == nil && l != nil {
		level = *l
	}
	if level < 1 {
		return "cluster.share_version", fmt.Sprintf("share.version is %d on this cluster: share groups are off "+
			"(Kafka %s formats new clusters with share.version=%d; set cluster.share_version: 1)", level, v, v.ShareVersionDefault())
	}
	for i, st := range s.Nemesis.Steps {
		if t := st.Target; t != nil && t.Role == nemesis.RoleShareCoordinator && v.Less(cluster.Version{Major: 4, Minor: 2}) {
			return fmt.Sprintf("nemesis.steps[%d].target.role", i), fmt.Sprintf("%s is found by FindCoordinator with key type SHARE, which Kafka answers from 4.2; %s does not", t.Role, v)
		}
	}
	if s.Workload.Shares.Renew && v.Less(cluster.Version{Major: 4, Minor: 2}) {
		return "workload.shares.renew", fmt.Sprintf("lock renewal (AckRenew, KIP-1222) needs Kafka 4.2 or later; %s does not have it", v)
	}
	return "", ""
}

// shareConfigProblems lists the share-group broker configs Kafka would
// refuse, each naming its field.
func (s *Scenario) shareConfigProblems() []error {
	bc := s.Cluster.BrokerConfig
	var errs []error
	num := func(key string, def int64) (int64, bool) {
		v, ok := bc[key]
		if !ok {
			return def, true
		}
		// A value Kafka would refuse on its own is KafkaConfigRules'
		// to report (checkKafkaConfigs), with its range.
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
		return n, err == nil && kafkaConfigRules[key](v) == nil
	}
	lock, ok1 := num(shareLockKey, shareLockDef)
	lo, ok2 := num(shareLockMinKey, shareLockMinDef)
	hi, ok3 := num(shareLockMaxKey, shareLockMaxDef)
	if ok1 && ok2 && ok3 && (lock < lo || lock > hi) {
		errs = append(errs, fmt.Errorf("cluster.broker_config.%s: %d: Kafka refuses a lock duration outside %s..%s (%d..%d)",
			shareLockKey, lock, shareLockMinKey, shareLockMaxKey, lo, hi))
	}
	return errs
}
