package admin

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kchaos/kchaos/histories"
)

// fakeBroker answers one request with a canned response and keeps the
// request, so a test can check what was asked and how the answer is read.
type fakeBroker struct {
	resp kmsg.Response
	err  error
	got  kmsg.Request
}

func (f *fakeBroker) Request(_ context.Context, r kmsg.Request) (kmsg.Response, error) {
	f.got = r
	return f.resp, f.err
}

func str(s string) *string { return &s }

func describeResponse(code int16, parts ...kmsg.DescribeTopicPartitionsResponseTopicPartition) *kmsg.DescribeTopicPartitionsResponse {
	resp := kmsg.NewPtrDescribeTopicPartitionsResponse()
	t := kmsg.NewDescribeTopicPartitionsResponseTopic()
	t.Topic, t.ErrorCode, t.Partitions = str("orders"), code, parts
	resp.Topics = append(resp.Topics, t)
	return resp
}

func partition(p, leader, epoch int32, replicas, isr, elr, lkelr []int32, code int16) kmsg.DescribeTopicPartitionsResponseTopicPartition {
	rp := kmsg.NewDescribeTopicPartitionsResponseTopicPartition()
	rp.Partition, rp.LeaderID, rp.LeaderEpoch, rp.ErrorCode = p, leader, epoch, code
	rp.Replicas, rp.ISR, rp.EligibleLeaderReplicas, rp.LastKnownELR = replicas, isr, elr, lkelr
	return rp
}

func TestDescribe(t *testing.T) {
	tests := []struct {
		name    string
		resp    *kmsg.DescribeTopicPartitionsResponse
		want    []PartitionState
		wantErr string
	}{
		{"sorted partitions; replica order kept, sets sorted, never nil",
			describeResponse(0,
				partition(1, 2, 3, []int32{2, 0, 1}, []int32{2, 0}, []int32{1}, nil, 0),
				partition(0, 0, 5, []int32{0, 1, 2}, []int32{1, 0}, nil, []int32{2}, 0)),
			[]PartitionState{
				{Topic: "orders", Partition: 0, Leader: 0, LeaderEpoch: 5, Replicas: []int32{0, 1, 2}, ISR: []int32{0, 1},
					ELR: []int32{}, LastKnownELR: []int32{2}, Offline: []int32{}},
				{Topic: "orders", Partition: 1, Leader: 2, LeaderEpoch: 3, Replicas: []int32{2, 0, 1}, ISR: []int32{0, 2},
					ELR: []int32{1}, LastKnownELR: []int32{}, Offline: []int32{}},
			}, ""},
		{"offline partition is a state, not an error",
			describeResponse(0, partition(0, -1, 4, []int32{0, 1, 2}, []int32{0}, nil, nil, kerr.LeaderNotAvailable.Code)),
			[]PartitionState{{Topic: "orders", Partition: 0, Leader: -1, LeaderEpoch: 4, Replicas: []int32{0, 1, 2},
				ISR: []int32{0}, ELR: []int32{}, LastKnownELR: []int32{}, Offline: []int32{}}}, ""},
		{"unknown topic", describeResponse(kerr.UnknownTopicOrPartition.Code), nil, "UNKNOWN_TOPIC_OR_PARTITION"},
		{"partition error", describeResponse(0, partition(0, 0, 0, nil, nil, nil, nil, kerr.NotLeaderForPartition.Code)), nil, "orders-0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeBroker{resp: tt.resp}
			got, err := (&Client{}).describe(context.Background(), "orders", f)
			req, ok := f.got.(*kmsg.DescribeTopicPartitionsRequest)
			if !ok || len(req.Topics) != 1 || req.Topics[0].Topic != "orders" || req.ResponsePartitionLimit < 1 {
				t.Fatalf("request %+v: want DescribeTopicPartitions of orders", f.got)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, %v\nwant %+v", got, err, tt.want)
			}
		})
	}
}

func TestDescribeTransportError(t *testing.T) {
	f := &fakeBroker{err: errors.New("dial tcp: i/o timeout")}
	if _, err := (&Client{}).describe(context.Background(), "orders", f); err == nil || !strings.Contains(err.Error(), "describe orders: dial tcp") {
		t.Errorf("error %v", err)
	}
}

func TestLiveBrokers(t *testing.T) {
	resp := kmsg.NewPtrMetadataResponse()
	for _, id := range []int32{2, 0, 1} {
		b := kmsg.NewMetadataResponseBroker()
		b.NodeID = id
		resp.Brokers = append(resp.Brokers, b)
	}
	f := &fakeBroker{resp: resp}
	got, err := (&Client{}).liveBrokers(context.Background(), f)
	if err != nil || !slices.Equal(got, []int32{0, 1, 2}) {
		t.Errorf("got %v, %v; want [0 1 2]", got, err)
	}
	// No topics asked (an empty list, not nil: nil would mean every topic).
	if req := f.got.(*kmsg.MetadataRequest); req.Topics == nil || len(req.Topics) != 0 {
		t.Errorf("metadata request topics %v, want empty", req.Topics)
	}
}

func TestCreateTopicsRequest(t *testing.T) {
	tests := []struct {
		name           string
		spec           TopicSpec
		parts, rf      int32
		assignment     [][]int32
		configs        []string
		configsInOrder bool
	}{
		{"explicit assignment", TopicSpec{Name: "orders", Assignment: [][]int32{{0, 1, 2}, {2, 0, 1}},
			Configs: map[string]string{"unclean.leader.election.enable": "false", "min.insync.replicas": "2"}},
			-1, -1, [][]int32{{0, 1, 2}, {2, 0, 1}}, []string{"min.insync.replicas=2", "unclean.leader.election.enable=false"}, true},
		{"counts only", TopicSpec{Name: "t", Partitions: 3, ReplicationFactor: 2}, 3, 2, nil, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := createTopicsRequest(tt.spec)
			if len(req.Topics) != 1 {
				t.Fatalf("%d topics", len(req.Topics))
			}
			rt := req.Topics[0]
			if rt.Topic != tt.spec.Name || rt.NumPartitions != tt.parts || int32(rt.ReplicationFactor) != tt.rf {
				t.Errorf("topic %s partitions %d rf %d", rt.Topic, rt.NumPartitions, rt.ReplicationFactor)
			}
			var asg [][]int32
			for i, a := range rt.ReplicaAssignment {
				if a.Partition != int32(i) {
					t.Errorf("assignment %d names partition %d", i, a.Partition)
				}
				asg = append(asg, a.Replicas)
			}
			if !reflect.DeepEqual(asg, tt.assignment) {
				t.Errorf("assignment %v, want %v", asg, tt.assignment)
			}
			var cfgs []string
			for _, c := range rt.Configs {
				cfgs = append(cfgs, c.Name+"="+*c.Value)
			}
			if !slices.Equal(cfgs, tt.configs) {
				t.Errorf("configs %v, want %v (sorted)", cfgs, tt.configs)
			}
		})
	}
}

func TestListOffsets(t *testing.T) {
	req := listOffsetsRequest("orders", []int32{0, 1}, debugReplicaID)
	if req.ReplicaID != debugReplicaID || len(req.Topics) != 1 || len(req.Topics[0].Partitions) != 2 {
		t.Fatalf("request %+v", req)
	}
	for _, p := range req.Topics[0].Partitions {
		if p.Timestamp != -1 || p.CurrentLeaderEpoch != -1 {
			t.Errorf("partition %d: timestamp %d epoch %d, want latest (-1) and no epoch check (-1)", p.Partition, p.Timestamp, p.CurrentLeaderEpoch)
		}
	}
	resp := func(codes ...int16) *kmsg.ListOffsetsResponse {
		r := kmsg.NewPtrListOffsetsResponse()
		rt := kmsg.NewListOffsetsResponseTopic()
		rt.Topic = "orders"
		for i, c := range codes {
			p := kmsg.NewListOffsetsResponseTopicPartition()
			p.Partition, p.ErrorCode, p.Offset = int32(i), c, int64(100+i)
			rt.Partitions = append(rt.Partitions, p)
		}
		r.Topics = append(r.Topics, rt)
		return r
	}
	tests := []struct {
		name    string
		resp    *kmsg.ListOffsetsResponse
		want    map[int32]int64
		wantErr string
	}{
		{"all answered", resp(0, 0), map[int32]int64{0: 100, 1: 101}, ""},
		{"one failed: left out", resp(0, kerr.NotLeaderForPartition.Code), map[int32]int64{0: 100}, ""},
		{"none answered: an error naming them", resp(kerr.NotLeaderForPartition.Code), nil, "orders-0 on 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseListOffsets("orders", 2, tt.resp)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestTopicConfigs(t *testing.T) {
	req := topicConfigsRequest("orders")
	if len(req.Resources) != 1 || req.Resources[0].ResourceType != kmsg.ConfigResourceTypeTopic ||
		req.Resources[0].ResourceName != "orders" || req.Resources[0].ConfigNames != nil {
		t.Fatalf("request %+v: want every config of topic orders", req)
	}
	resp := kmsg.NewPtrDescribeConfigsResponse()
	other := kmsg.NewDescribeConfigsResponseResource()
	other.ResourceType, other.ResourceName = kmsg.ConfigResourceTypeTopic, "other"
	r := kmsg.NewDescribeConfigsResponseResource()
	r.ResourceType, r.ResourceName = kmsg.ConfigResourceTypeTopic, "orders"
	add := func(name string, value *string, src kmsg.ConfigSource, sensitive bool) {
		c := kmsg.NewDescribeConfigsResponseResourceConfig()
		c.Name, c.Value, c.Source, c.IsSensitive = name, value, src, sensitive
		r.Configs = append(r.Configs, c)
	}
	add("min.insync.replicas", str("2"), kmsg.ConfigSourceDynamicTopicConfig, false)
	add("unclean.leader.election.enable", str("false"), kmsg.ConfigSourceDefaultConfig, false)
	add("log.segment.bytes", str("16777216"), kmsg.ConfigSourceStaticBrokerConfig, false)
	add("retention.ms", str("1000"), kmsg.ConfigSourceDynamicDefaultBrokerConfig, false)
	add("secret", str("x"), kmsg.ConfigSourceDynamicTopicConfig, true)
	add("no.value", nil, kmsg.ConfigSourceDefaultConfig, false)
	resp.Resources = append(resp.Resources, other, r)
	got, err := parseTopicConfigs("orders", resp)
	want := map[string]ConfigValue{
		"min.insync.replicas":            {"2", histories.ConfigSourceTopic},
		"unclean.leader.election.enable": {"false", histories.ConfigSourceDefault},
		"log.segment.bytes":              {"16777216", histories.ConfigSourceBroker},
		"retention.ms":                   {"1000", histories.ConfigSourceBroker},
	}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, %v\nwant %v", got, err, want)
	}
	bad := kmsg.NewPtrDescribeConfigsResponse()
	br := kmsg.NewDescribeConfigsResponseResource()
	br.ResourceType, br.ResourceName, br.ErrorCode, br.ErrorMessage = kmsg.ConfigResourceTypeTopic, "orders", kerr.UnknownTopicOrPartition.Code, str("no such topic")
	bad.Resources = append(bad.Resources, br)
	if _, err := parseTopicConfigs("orders", bad); err == nil || !strings.Contains(err.Error(), "no such topic") {
		t.Errorf("error %v", err)
	}
	if _, err := parseTopicConfigs("orders", kmsg.NewPtrDescribeConfigsResponse()); err == nil {
		t.Error("a response without the topic is not an error")
	}
}
