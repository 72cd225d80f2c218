package admin

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kchaos/kchaos/histories"
)

func quorumResp(topic string, code int16, leader int32, voters, observers [][2]int64) *kmsg.DescribeQuorumResponse {
	state := func(rs [][2]int64) []kmsg.DescribeQuorumResponseTopicPartitionReplicaState {
		var out []kmsg.DescribeQuorumResponseTopicPartitionReplicaState
		for _, r := range rs {
			s := kmsg.NewDescribeQuorumResponseTopicPartitionReplicaState()
			s.ReplicaID, s.LogEndOffset = int32(r[0]), r[1]
			s.LastFetchTimestamp = 5
			out = append(out, s)
		}
		return out
	}
	resp := kmsg.NewPtrDescribeQuorumResponse()
	t := kmsg.NewDescribeQuorumResponseTopic()
	t.Topic = topic
	p := kmsg.NewDescribeQuorumResponseTopicPartition()
	p.ErrorCode, p.LeaderID, p.LeaderEpoch, p.HighWatermark = code, leader, 7, 90
	p.CurrentVoters, p.Observers = state(voters), state(observers)
	t.Partitions = append(t.Partitions, p)
	resp.Topics = append(resp.Topics, t)
	return resp
}

// TestQuorumFrom: the sample is the metadata partition's leader, epoch and
// high watermark, voters and observers sorted by id, each lag measured
// against the leader's log end offset (-1 when either is unknown).
func TestQuorumFrom(t *testing.T) {
	r := func(id int32, leo, lag int64) histories.QuorumReplica {
		return histories.QuorumReplica{ID: id, LogEndOffset: leo, Lag: lag, LastFetchMS: 5, LastCaughtUpMS: -1}
	}
	for _, tc := range []struct {
		name string
		resp *kmsg.DescribeQuorumResponse
		want histories.QuorumValue
		err  string
	}{
		{"three voters, two observers",
			quorumResp(metadataTopic, 0, 1001, [][2]int64{{1002, 95}, {1000, 100}, {1001, 100}}, [][2]int64{{1, 99}, {0, -1}}),
			histories.QuorumValue{LeaderID: 1001, LeaderEpoch: 7, HighWatermark: 90,
				Voters:    []histories.QuorumReplica{r(1000, 100, 0), r(1001, 100, 0), r(1002, 95, 5)},
				Observers: []histories.QuorumReplica{r(0, -1, -1), r(1, 99, 1)}}, ""},
		{"leader unknown: no lags",
			quorumResp(metadataTopic, 0, -1, [][2]int64{{1000, 100}}, nil),
			histories.QuorumValue{LeaderID: -1, LeaderEpoch: 7, HighWatermark: 90,
				Voters: []histories.QuorumReplica{r(1000, 100, -1)}, Observers: []histories.QuorumReplica{}}, ""},
		{"partition error", quorumResp(metadataTopic, kerr.NotLeaderForPartition.Code, 1000, nil, nil),
			histories.QuorumValue{}, "NOT_LEADER"},
		{"another topic", quorumResp("other", 0, 1000, nil, nil), histories.QuorumValue{}, "no __cluster_metadata"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := quorumFrom(tc.resp)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v %v\nwant %+v", got, err, tc.want)
			}
		})
	}
}

// TestMetaOutcome: a Kafka error code proves the change was not made
// (fail), except REQUEST_TIMED_OUT; anything else is unknown (info).
func TestMetaOutcome(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want histories.Type
	}{
		{nil, histories.OK},
		{kerr.NotController, histories.Fail},
		{fmt.Errorf("wrapped: %w", kerr.TopicAlreadyExists), histories.Fail},
		{kerr.RequestTimedOut, histories.Info},
		{context.DeadlineExceeded, histories.Info},
		{errors.New("broken pipe"), histories.Info},
	} {
		if got := MetaOutcome(tc.err); got != tc.want {
			t.Errorf("MetaOutcome(%v) = %s, want %s", tc.err, got, tc.want)
		}
	}
}

// TestUnknownTopicConfigsIsRetriable: a broker that does not know a topic
// yet answers DescribeConfigs with UNKNOWN_TOPIC_OR_PARTITION, and the
// error parseTopicConfigs makes of it is the one TopicConfigs asks again
// on (a run's start read the configs of a topic just created and exited
// 255 on 3.9.2 before it did).
func TestUnknownTopicConfigsIsRetriable(t *testing.T) {
	resp := kmsg.NewPtrDescribeConfigsResponse()
	r := kmsg.NewDescribeConfigsResponseResource()
	r.ResourceType, r.ResourceName, r.ErrorCode = kmsg.ConfigResourceTypeTopic, "orders", kerr.UnknownTopicOrPartition.Code
	resp.Resources = append(resp.Resources, r)
	if _, err := parseTopicConfigs("orders", resp); !errors.Is(err, kerr.UnknownTopicOrPartition) {
		t.Fatalf("err %v: want one that wraps UNKNOWN_TOPIC_OR_PARTITION", err)
	}
}
