package admin

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kchaos/kchaos/histories"
)

// metadataTopic is KRaft's metadata log; its one partition is the quorum.
const metadataTopic = "__cluster_metadata"

// Quorum describes the KRaft quorum (DescribeQuorum on
// __cluster_metadata-0). A broker forwards the request to the controller
// it believes active, so the answer is that controller's own view.
func (c *Client) Quorum(ctx context.Context) (histories.QuorumValue, error) {
	resp, err := c.describeQuorum(ctx)
	if err != nil {
		return histories.QuorumValue{}, err
	}
	return quorumFrom(resp)
}

// describeQuorum sends DescribeQuorum for the metadata partition (the
// newest version both ends know: 2 from 3.9, with directory ids).
func (c *Client) describeQuorum(ctx context.Context) (*kmsg.DescribeQuorumResponse, error) {
	return describeQuorumRequest().RequestWith(ctx, c.cl)
}

// describeQuorumRequest asks for the metadata partition's quorum.
func describeQuorumRequest() *kmsg.DescribeQuorumRequest {
	req := kmsg.NewPtrDescribeQuorumRequest()
	t := kmsg.NewDescribeQuorumRequestTopic()
	t.Topic = metadataTopic
	t.Partitions = append(t.Partitions, kmsg.NewDescribeQuorumRequestTopicPartition())
	req.Topics = append(req.Topics, t)
	return req
}

// quorumFrom decodes a DescribeQuorum response into the history's sample:
// the first partition of the metadata topic, voters and observers in id
// order, each with its lag behind the leader's log end offset.
func quorumFrom(resp *kmsg.DescribeQuorumResponse) (histories.QuorumValue, error) {
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return histories.QuorumValue{}, fmt.Errorf("describe quorum: %w%s", err, message(resp.ErrorMessage))
	}
	for _, t := range resp.Topics {
		if t.Topic != metadataTopic || len(t.Partitions) == 0 {
			continue
		}
		p := t.Partitions[0]
		if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
			return histories.QuorumValue{}, fmt.Errorf("describe quorum: %w%s", err, message(p.ErrorMessage))
		}
		q := histories.QuorumValue{LeaderID: p.LeaderID, LeaderEpoch: p.LeaderEpoch, HighWatermark: p.HighWatermark}
		leaderLEO := int64(-1)
		for _, v := range p.CurrentVoters {
			if v.ReplicaID == p.LeaderID {
				leaderLEO = v.LogEndOffset
			}
		}
		q.Voters = replicas(p.CurrentVoters, leaderLEO)
		q.Observers = replicas(p.Observers, leaderLEO)
		return q, nil
	}
	return histories.QuorumValue{}, errors.New("describe quorum: no " + metadataTopic + " partition in the answer")
}

func replicas(in []kmsg.DescribeQuorumResponseTopicPartitionReplicaState, leaderLEO int64) []histories.QuorumReplica {
	out := make([]histories.QuorumReplica, 0, len(in))
	for _, r := range in {
		lag := int64(-1)
		if leaderLEO >= 0 && r.LogEndOffset >= 0 {
			lag = leaderLEO - r.LogEndOffset
		}
		out = append(out, histories.QuorumReplica{ID: r.ReplicaID, LogEndOffset: r.LogEndOffset, Lag: lag,
			LastFetchMS: r.LastFetchTimestamp, LastCaughtUpMS: r.LastCaughtUpTimestamp})
	}
	slices.SortFunc(out, func(a, b histories.QuorumReplica) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

func message(m *string) string {
	if m == nil || *m == "" {
		return ""
	}
	return ": " + *m
}
