package proxy

import (
	"fmt"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

var topicID = [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}

// sampleRequest is a request of key naming topic "orders" (and its id),
// partitions 0 and 2, a group, a member, keys: what an error answer must
// mirror. APIs that carry none of these get their default request.
func sampleRequest(key kmsg.Key) kmsg.Request {
	parts := []int32{0, 2}
	switch key {
	case kmsg.Produce:
		return produce(9, -1)
	case kmsg.Fetch:
		r := kmsg.NewPtrFetchRequest()
		t := kmsg.NewFetchRequestTopic()
		t.Topic, t.TopicID = "orders", topicID
		for _, p := range parts {
			fp := kmsg.NewFetchRequestTopicPartition()
			fp.Partition = p
			t.Partitions = append(t.Partitions, fp)
		}
		r.Topics = append(r.Topics, t)
		return r
	case kmsg.ListOffsets:
		r := kmsg.NewPtrListOffsetsRequest()
		t := kmsg.NewListOffsetsRequestTopic()
		t.Topic = "orders"
		for _, p := range parts {
			lp := kmsg.NewListOffsetsRequestTopicPartition()
			lp.Partition = p
			t.Partitions = append(t.Partitions, lp)
		}
		r.Topics = append(r.Topics, t)
		return r
	case kmsg.Metadata:
		r := kmsg.NewPtrMetadataRequest()
		t := kmsg.NewMetadataRequestTopic()
		t.Topic = kmsg.StringPtr("orders")
		r.Topics = append(r.Topics, t)
		return r
	case kmsg.OffsetCommit:
		r := kmsg.NewPtrOffsetCommitRequest()
		r.Group = "g1"
		t := kmsg.NewOffsetCommitRequestTopic()
		t.Topic, t.TopicID = "orders", topicID
		for _, p := range parts {
			op := kmsg.NewOffsetCommitRequestTopicPartition()
			op.Partition, op.Offset = p, 10
			t.Partitions = append(t.Partitions, op)
		}
		r.Topics = append(r.Topics, t)
		return r
	case kmsg.OffsetFetch:
		r := kmsg.NewPtrOffsetFetchRequest()
		r.Group = "g1"
		t := kmsg.NewOffsetFetchRequestTopic()
		t.Topic, t.Partitions = "orders", parts
		r.Topics = append(r.Topics, t)
		g := kmsg.NewOffsetFetchRequestGroup()
		g.Group = "g1"
		gt := kmsg.NewOffsetFetchRequestGroupTopic()
		gt.Topic, gt.TopicID, gt.Partitions = "orders", topicID, parts
		g.Topics = append(g.Topics, gt)
		r.Groups = append(r.Groups, g)
		return r
	case kmsg.FindCoordinator:
		r := kmsg.NewPtrFindCoordinatorRequest()
		r.CoordinatorKey, r.CoordinatorKeys = "g1", []string{"g1", "g2"}
		return r
	case kmsg.LeaveGroup:
		r := kmsg.NewPtrLeaveGroupRequest()
		r.Group, r.MemberID = "g1", "m1"
		m := kmsg.NewLeaveGroupRequestMember()
		m.MemberID = "m1"
		r.Members = append(r.Members, m)
		return r
	case kmsg.AddPartitionsToTxn:
		r := kmsg.NewPtrAddPartitionsToTxnRequest()
		t := kmsg.NewAddPartitionsToTxnRequestTopic()
		t.Topic, t.Partitions = "orders", parts
		r.Topics = append(r.Topics, t)
		tx := kmsg.NewAddPartitionsToTxnRequestTransaction()
		tx.TransactionalID = "t1"
		tt := kmsg.NewAddPartitionsToTxnRequestTransactionTopic()
		tt.Topic, tt.Partitions = "orders", parts
		tx.Topics = append(tx.Topics, tt)
		r.Transactions = append(r.Transactions, tx)
		return r
	case kmsg.TxnOffsetCommit:
		r := kmsg.NewPtrTxnOffsetCommitRequest()
		t := kmsg.NewTxnOffsetCommitRequestTopic()
		t.Topic, t.TopicID = "orders", topicID
		for _, p := range parts {
			tp := kmsg.NewTxnOffsetCommitRequestTopicPartition()
			tp.Partition = p
			t.Partitions = append(t.Partitions, tp)
		}
		r.Topics = append(r.Topics, t)
		return r
	case kmsg.ShareFetch:
		r := kmsg.NewPtrShareFetchRequest()
		t := kmsg.NewShareFetchRequestTopic()
		t.TopicID = topicID
		for _, p := range parts {
			sp := kmsg.NewShareFetchRequestTopicPartition()
			sp.Partition = p
			if p == 2 {
				sp.AcknowledgementBatches = append(sp.AcknowledgementBatches, kmsg.NewShareFetchRequestTopicPartitionAcknowledgementBatch())
			}
			t.Partitions = append(t.Partitions, sp)
		}
		r.Topics = append(r.Topics, t)
		return r
	case kmsg.ShareAcknowledge:
		r := kmsg.NewPtrShareAcknowledgeRequest()
		t := kmsg.NewShareAcknowledgeRequestTopic()
		t.TopicID = topicID
		for _, p := range parts {
			sp := kmsg.NewShareAcknowledgeRequestTopicPartition()
			sp.Partition = p
			t.Partitions = append(t.Partitions, sp)
		}
		r.Topics = append(r.Topics, t)
		return r
	case kmsg.ConsumerGroupHeartbeat:
		r := kmsg.NewPtrConsumerGroupHeartbeatRequest()
		r.Group, r.MemberID, r.MemberEpoch = "g1", "m1", 4
		return r
	case kmsg.ShareGroupHeartbeat:
		r := kmsg.NewPtrShareGroupHeartbeatRequest()
		r.GroupID, r.MemberID, r.MemberEpoch = "s1", "m1", 4
		return r
	}
	return key.Request()
}

// partitionsOf is "topic/partition" (or topic id) per partition in a
// decoded error answer, via the same walk a client does.
func partitionsOf(resp kmsg.Response) []string {
	var out []string
	add := func(topic string, id [16]byte, p int32) {
		if topic == "" && id != ([16]byte{}) {
			topic = "id"
		}
		out = append(out, fmt.Sprintf("%s/%d", topic, p))
	}
	switch r := resp.(type) {
	case *kmsg.ProduceResponse:
		for _, t := range r.Topics {
			for _, p := range t.Partitions {
				add(t.Topic, t.TopicID, p.Partition)
			}
		}
	case *kmsg.FetchResponse:
		for _, t := range r.Topics {
			for _, p := range t.Partitions {
				add(t.Topic, t.TopicID, p.Partition)
			}
		}
	case *kmsg.OffsetCommitResponse:
		for _, t := range r.Topics {
			for _, p := range t.Partitions {
				add(t.Topic, t.TopicID, p.Partition)
			}
		}
	case *kmsg.TxnOffsetCommitResponse:
		for _, t := range r.Topics {
			for _, p := range t.Partitions {
				add(t.Topic, t.TopicID, p.Partition)
			}
		}
	case *kmsg.ShareAcknowledgeResponse:
		for _, t := range r.Topics {
			for _, p := range t.Partitions {
				add("", t.TopicID, p.Partition)
			}
		}
	}
	return out
}

// TestErrorResponses answers every supported API at every version kmsg
// knows: the answer encodes at the request's version, decodes back, and
// carries the code and nothing but it (0 only where the API has a
// top-level code the failure does not use); partitions are mirrored.
func TestErrorResponses(t *testing.T) {
	const code = 14 // COORDINATOR_LOAD_IN_PROGRESS
	for key := range errorResponders {
		k := kmsg.Key(key)
		for v := int16(0); v <= k.Request().MaxVersion(); v++ {
			req := sampleRequest(k)
			req.SetVersion(v)
			// through the wire, as the proxy gets it
			frame := kmsg.NewRequestFormatter(kmsg.FormatterClientID("p1")).AppendRequest(nil, req, 9)
			h, err := parseRequestHeader(frame)
			if err != nil {
				t.Fatal(err)
			}
			decoded, err := decodeRequest(frame, h)
			if err != nil {
				t.Fatalf("%s v%d: %v", k.Name(), v, err)
			}
			resp, ok := errorResponse(decoded, code)
			if !ok || resp.GetVersion() != v || resp.Key() != key {
				t.Fatalf("%s v%d: no answer", k.Name(), v)
			}
			out := responseFrame(9, resp, responseHeaderFlexible(key, v), nil)
			back, _, err := decodeResponse(out, key, v)
			if err != nil {
				t.Fatalf("%s v%d: the answer does not decode: %v", k.Name(), v, err)
			}
			codes := errorCodes(back)
			if !slices.Contains(codes, code) && !(key == int16(kmsg.Metadata) && v < 13) {
				t.Errorf("%s v%d: codes %v lack %d", k.Name(), v, codes, code)
			}
			for _, c := range codes {
				if c != code && c != 0 {
					t.Errorf("%s v%d: stray code %d", k.Name(), v, c)
				}
			}
			if ps := partitionsOf(back); len(ps) > 0 && len(ps) != 2 {
				t.Errorf("%s v%d: partitions %v, want the request's two", k.Name(), v, ps)
			}
		}
	}
}

func TestErrorResponseMirrors(t *testing.T) {
	fc := sampleRequest(kmsg.FindCoordinator)
	fc.SetVersion(4)
	r, _ := errorResponse(fc, 15)
	f := r.(*kmsg.FindCoordinatorResponse)
	if len(f.Coordinators) != 2 || f.Coordinators[1].Key != "g2" || f.Coordinators[1].ErrorCode != 15 || f.Coordinators[1].NodeID != -1 {
		t.Fatalf("find coordinator %+v", f.Coordinators)
	}
	sf := sampleRequest(kmsg.ShareFetch)
	r, _ = errorResponse(sf, 6)
	s := r.(*kmsg.ShareFetchResponse)
	if p := s.Topics[0].Partitions; p[0].AcknowledgeErrorCode != 0 || p[1].AcknowledgeErrorCode != 6 || p[0].ErrorCode != 6 {
		t.Fatalf("share fetch %+v", p)
	}
	r, _ = errorResponse(sf, 123) // INVALID_SHARE_SESSION_EPOCH: the session's, at the top
	if s := r.(*kmsg.ShareFetchResponse); s.ErrorCode != 123 || len(s.Topics) != 0 {
		t.Fatalf("share fetch session error %+v", s)
	}
	hb := sampleRequest(kmsg.ConsumerGroupHeartbeat)
	r, _ = errorResponse(hb, 110)
	if h := r.(*kmsg.ConsumerGroupHeartbeatResponse); *h.MemberID != "m1" || h.MemberEpoch != 4 || h.ErrorCode != 110 {
		t.Fatalf("heartbeat %+v", h)
	}
	ap := sampleRequest(kmsg.AddPartitionsToTxn)
	ap.SetVersion(4)
	r, _ = errorResponse(ap, 51)
	if a := r.(*kmsg.AddPartitionsToTxnResponse); len(a.Transactions) != 1 || a.Transactions[0].TransactionalID != "t1" || a.Transactions[0].Topics[0].Partitions[1].ErrorCode != 51 {
		t.Fatalf("add partitions v4 %+v", a)
	}
}

func TestNames(t *testing.T) {
	for _, c := range []struct {
		name string
		key  int16
	}{{"EndTxn", 26}, {"END_TXN", 26}, {"endtxn", 26}, {"Produce", 0}, {"OffsetCommit", 8}, {"ShareAcknowledge", 79}, {"InitProducerId", 22}, {"INIT_PRODUCER_ID", 22}, {"ApiVersions", 18}, {"ConsumerGroupHeartbeat", 68}} {
		if k, ok := APIKeyByName(c.name); !ok || k != c.key {
			t.Errorf("APIKeyByName(%q) = %d, %v; want %d", c.name, k, ok, c.key)
		}
	}
	if _, ok := APIKeyByName("EndTransaction"); ok {
		t.Error("EndTransaction is no API")
	}
	if apiName(26) != "EndTxn" || apiName(999) != "Unknown(999)" {
		t.Errorf("APIName: %s %s", apiName(26), apiName(999))
	}
	for name, code := range map[string]int16{"NOT_LEADER_OR_FOLLOWER": 6, "COORDINATOR_LOAD_IN_PROGRESS": 14, "REQUEST_TIMED_OUT": 7, "CONCURRENT_TRANSACTIONS": 51, "coordinator_not_available": 15, "UNKNOWN_SERVER_ERROR": -1, "NONE": 0, "TRANSACTION_ABORTABLE": 120, "NOT_LEADER_FOR_PARTITION": 6} {
		if c, ok := ErrorCodeByName(name); !ok || c != code {
			t.Errorf("ErrorCodeByName(%q) = %d, %v; want %d", name, c, ok, code)
		}
	}
	if _, ok := ErrorCodeByName("NOT_AN_ERROR"); ok {
		t.Error("NOT_AN_ERROR is no error")
	}
	if ErrorName(51) != "CONCURRENT_TRANSACTIONS" || ErrorName(6) != "NOT_LEADER_OR_FOLLOWER" || ErrorName(0) != "NONE" || ErrorName(3000) != "UNKNOWN(3000)" {
		t.Errorf("ErrorName: %s %s %s", ErrorName(51), ErrorName(0), ErrorName(3000))
	}
}
