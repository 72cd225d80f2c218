package harness

import (
	"context"
	"fmt"
	"strings"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/histories"
)

// runInfo is run.json: the run's settings as applied, read back from the
// cluster (each node's server.properties as the node sees it, the topic's
// configs as the brokers describe them), not restated from the scenario.
//
// On a reused cluster (known), the node configs are the ones its first run
// read: no fault that restarts a node with others is reused (Reuse).
func runInfo(ctx context.Context, s *scenario.Scenario, c cluster.Cluster, adm *admin.Client, known *held) (histories.RunInfo, error) {
	info := histories.RunInfo{
		Scenario: s.Name, Description: s.Description, Expect: s.Expect, Seed: s.Seed,
		Jira: s.Jira, Docs: s.Docs, Finding: s.FindingInfo(),
		KafkaVersion: c.Config().KafkaVersion,
		Topic:        s.Topic.Name, Partitions: s.Topic.Partitions, Replication: s.Topic.ReplicationFactor,
		Producer: s.Workload.ProducerInfo(), Group: s.Workload.GroupInfo(), Shares: s.Workload.ShareInfo(),
	}
	// The request timeout as the producers use it (the workload's
	// defaults applied at load): derived bounds read it from run.json.
	info.Producer.RequestTimeoutMS = s.Workload.RequestTimeout.Std().Milliseconds()
	v := c.Version()
	elr := v.ELRDefault()
	if e := c.Config().ELR; e != nil {
		elr = *e
	}
	info.ELR = elr && v.HasELR()
	// transaction.version as the cluster finalized it (read back, not
	// restated; 0 stays "unknown" when the brokers cannot say).
	// metadata.version likewise (KAFKA-20839: what a bootstrap schedule
	// may have left).
	if ff, err := adm.FinalizedFeatures(ctx); err == nil {
		if v.HasTransactionVersion() {
			info.TransactionVersion = int(ff[admin.FeatureTransaction])
		}
		info.MetadataVersion = int(ff[admin.FeatureMetadataVersion])
	}
	for _, b := range c.Brokers() {
		info.Brokers = append(info.Brokers, histories.BrokerInfo{ID: b.ID, Rack: b.Rack, Address: b.Addr()})
	}
	for _, n := range c.Controllers() {
		info.Controllers = append(info.Controllers, n.ID)
	}
	var err error
	if known != nil && known.brokerConfigs != nil {
		info.BrokerConfigs, info.ControllerConfigs = known.brokerConfigs, known.controllerConfigs
	} else if info.BrokerConfigs, err = nodeConfigs(ctx, c, c.Brokers()); err != nil {
		return info, err
	} else if info.ControllerConfigs, err = nodeConfigs(ctx, c, c.Controllers()); err != nil {
		return info, err
	}
	applied, err := adm.TopicConfigs(ctx, s.Topic.Name)
	if err != nil {
		return info, err
	}
	info.TopicConfigs, info.TopicConfigSources = map[string]string{}, map[string]string{}
	for k, cv := range applied {
		info.TopicConfigs[k], info.TopicConfigSources[k] = cv.Value, cv.Source
	}
	return info, nil
}

// nodePropertiesPath is where a node's server.properties is inside its
// container (image/entrypoint.sh runs Kafka with it).
const nodePropertiesPath = "/etc/kafka/server.properties"

// nodeConfigs reads each node's server.properties from inside its
// container: the config exactly as the node read it at start.
func nodeConfigs(ctx context.Context, c cluster.Cluster, nodes []cluster.Node) (map[int32]map[string]string, error) {
	out := map[int32]map[string]string{}
	for _, n := range nodes {
		path := nodePropertiesPath
		if pp, ok := c.(interface{ PropertiesPath(int32) string }); ok {
			// A host's own server.properties (the ssh backend's
			// service.config); none configured: not recorded.
			if path = pp.PropertiesPath(n.ID); path == "" {
				continue
			}
		}
		text, err := c.Exec(ctx, n.ID, "cat", path)
		if err != nil {
			return nil, fmt.Errorf("config of node %d: %w", n.ID, err)
		}
		out[n.ID] = parseProperties(text)
	}
	return out, nil
}

// parseProperties reads the key=value lines kchaos writes (cluster.Render);
// # comments and blank lines are skipped.
func parseProperties(text string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok {
			out[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return out
}
