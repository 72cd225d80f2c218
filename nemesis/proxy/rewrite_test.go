package proxy

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// addressCase is one response kind that names brokers: fill puts the
// given (node, host, port) triples into a response, read takes them out.
type addressCase struct {
	key  kmsg.Key
	fill func(kmsg.Response, []endpoint)
	read func(kmsg.Response) []endpoint
}

type endpoint struct {
	node int32
	host string
	port int32
}

var upstreams = []endpoint{{0, "172.18.0.3", 9092}, {1, "172.18.0.4", 9092}, {2, "broker-2.kafka", 19092}}

// proxyMapper stands for the proxy: node n is reached at 127.0.0.1:4000+n.
func proxyMapper(node int32, host string, port int32) (string, int32) {
	return "127.0.0.1", 4000 + node
}

func addressCases() []addressCase {
	return []addressCase{
		{kmsg.Metadata, func(r kmsg.Response, es []endpoint) {
			m := r.(*kmsg.MetadataResponse)
			for _, e := range es {
				b := kmsg.NewMetadataResponseBroker()
				b.NodeID, b.Host, b.Port, b.Rack = e.node, e.host, e.port, kmsg.StringPtr("r1")
				m.Brokers = append(m.Brokers, b)
			}
			t := kmsg.NewMetadataResponseTopic()
			t.Topic = kmsg.StringPtr("orders")
			m.Topics = append(m.Topics, t)
		}, func(r kmsg.Response) (out []endpoint) {
			for _, b := range r.(*kmsg.MetadataResponse).Brokers {
				out = append(out, endpoint{b.NodeID, b.Host, b.Port})
			}
			return out
		}},
		{kmsg.FindCoordinator, func(r kmsg.Response, es []endpoint) {
			f := r.(*kmsg.FindCoordinatorResponse)
			if f.Version <= 3 {
				f.NodeID, f.Host, f.Port = es[0].node, es[0].host, es[0].port
				return
			}
			for i, e := range es {
				c := kmsg.NewFindCoordinatorResponseCoordinator()
				c.Key, c.NodeID, c.Host, c.Port = fmt.Sprint("g", i), e.node, e.host, e.port
				f.Coordinators = append(f.Coordinators, c)
			}
			c := kmsg.NewFindCoordinatorResponseCoordinator() // an error entry: no address
			c.Key, c.NodeID, c.Port, c.ErrorCode = "gone", -1, -1, 15
			f.Coordinators = append(f.Coordinators, c)
		}, func(r kmsg.Response) (out []endpoint) {
			f := r.(*kmsg.FindCoordinatorResponse)
			if f.Version <= 3 {
				return []endpoint{{f.NodeID, f.Host, f.Port}}
			}
			for _, c := range f.Coordinators {
				if c.NodeID >= 0 {
					out = append(out, endpoint{c.NodeID, c.Host, c.Port})
				}
			}
			return out
		}},
		{kmsg.DescribeCluster, func(r kmsg.Response, es []endpoint) {
			d := r.(*kmsg.DescribeClusterResponse)
			for _, e := range es {
				b := kmsg.NewDescribeClusterResponseBroker()
				b.NodeID, b.Host, b.Port = e.node, e.host, e.port
				d.Brokers = append(d.Brokers, b)
			}
		}, func(r kmsg.Response) (out []endpoint) {
			for _, b := range r.(*kmsg.DescribeClusterResponse).Brokers {
				out = append(out, endpoint{b.NodeID, b.Host, b.Port})
			}
			return out
		}},
		{kmsg.Produce, func(r kmsg.Response, es []endpoint) {
			pr := r.(*kmsg.ProduceResponse)
			t := kmsg.NewProduceResponseTopic()
			t.Topic = "orders"
			pp := kmsg.NewProduceResponseTopicPartition()
			pp.ErrorCode = codeNotLeader
			t.Partitions = append(t.Partitions, pp)
			pr.Topics = append(pr.Topics, t)
			for _, e := range es {
				b := kmsg.NewProduceResponseBroker()
				b.NodeID, b.Host, b.Port = e.node, e.host, e.port
				pr.Brokers = append(pr.Brokers, b)
			}
		}, func(r kmsg.Response) (out []endpoint) {
			for _, b := range r.(*kmsg.ProduceResponse).Brokers {
				out = append(out, endpoint{b.NodeID, b.Host, b.Port})
			}
			return out
		}},
		{kmsg.Fetch, func(r kmsg.Response, es []endpoint) {
			f := r.(*kmsg.FetchResponse)
			for _, e := range es {
				b := kmsg.NewFetchResponseBroker()
				b.NodeID, b.Host, b.Port = e.node, e.host, e.port
				f.Brokers = append(f.Brokers, b)
			}
		}, func(r kmsg.Response) (out []endpoint) {
			for _, b := range r.(*kmsg.FetchResponse).Brokers {
				out = append(out, endpoint{b.NodeID, b.Host, b.Port})
			}
			return out
		}},
		{kmsg.ShareFetch, func(r kmsg.Response, es []endpoint) {
			f := r.(*kmsg.ShareFetchResponse)
			for _, e := range es {
				b := kmsg.NewShareFetchResponseNodeEndpoint()
				b.NodeID, b.Host, b.Port = e.node, e.host, e.port
				f.NodeEndpoints = append(f.NodeEndpoints, b)
			}
		}, func(r kmsg.Response) (out []endpoint) {
			for _, b := range r.(*kmsg.ShareFetchResponse).NodeEndpoints {
				out = append(out, endpoint{b.NodeID, b.Host, b.Port})
			}
			return out
		}},
		{kmsg.ShareAcknowledge, func(r kmsg.Response, es []endpoint) {
			f := r.(*kmsg.ShareAcknowledgeResponse)
			for _, e := range es {
				b := kmsg.NewShareAcknowledgeResponseNodeEndpoint()
				b.NodeID, b.Host, b.Port = e.node, e.host, e.port
				f.NodeEndpoints = append(f.NodeEndpoints, b)
			}
		}, func(r kmsg.Response) (out []endpoint) {
			for _, b := range r.(*kmsg.ShareAcknowledgeResponse).NodeEndpoints {
				out = append(out, endpoint{b.NodeID, b.Host, b.Port})
			}
			return out
		}},
		{kmsg.DescribeQuorum, func(r kmsg.Response, es []endpoint) {
			d := r.(*kmsg.DescribeQuorumResponse)
			for _, e := range es {
				n := kmsg.NewDescribeQuorumResponseNode()
				n.NodeID = e.node
				l := kmsg.NewDescribeQuorumResponseNodeListener()
				l.Name, l.Host, l.Port = "CONTROLLER", e.host, uint16(e.port)
				n.Listeners = append(n.Listeners, l)
				d.Nodes = append(d.Nodes, n)
			}
		}, func(r kmsg.Response) (out []endpoint) {
			for _, n := range r.(*kmsg.DescribeQuorumResponse).Nodes {
				for _, l := range n.Listeners {
					out = append(out, endpoint{n.NodeID, l.Host, int32(l.Port)})
				}
			}
			return out
		}},
		{kmsg.Vote, func(r kmsg.Response, es []endpoint) {
			v := r.(*kmsg.VoteResponse)
			for _, e := range es {
				b := kmsg.NewVoteResponseNodeEndpoint()
				b.NodeID, b.Host, b.Port = e.node, e.host, uint16(e.port)
				v.NodeEndpoints = append(v.NodeEndpoints, b)
			}
		}, func(r kmsg.Response) (out []endpoint) {
			for _, b := range r.(*kmsg.VoteResponse).NodeEndpoints {
				out = append(out, endpoint{b.NodeID, b.Host, int32(b.Port)})
			}
			return out
		}},
		{kmsg.UpdateRaftVoter, func(r kmsg.Response, es []endpoint) {
			u := r.(*kmsg.UpdateRaftVoterResponse)
			u.CurrentLeader.LeaderID, u.CurrentLeader.Host, u.CurrentLeader.Port = es[0].node, es[0].host, es[0].port
		}, func(r kmsg.Response) []endpoint {
			l := r.(*kmsg.UpdateRaftVoterResponse).CurrentLeader
			return []endpoint{{l.LeaderID, l.Host, l.Port}}
		}},
	}
}

// TestRewriteAddresses encodes each response kind that names brokers at
// every version kmsg knows, runs it through the rewriter and checks that
// exactly the addresses changed: the rewritten bytes equal the original
// response encoded with the proxy's addresses put in by hand. Versions
// that cannot carry an address (Produce before v10, Fetch before v16,
// raft endpoints before v1) must come out byte-identical.
func TestRewriteAddresses(t *testing.T) {
	for _, c := range addressCases() {
		if _, ok := addressesFrom[int16(c.key)]; !ok {
			t.Errorf("%s is not in addressesFrom", c.key.Name())
		}
		for v := int16(0); v <= c.key.Response().MaxVersion(); v++ {
			t.Run(fmt.Sprintf("%s/v%d", c.key.Name(), v), func(t *testing.T) {
				orig := c.key.Response()
				orig.SetVersion(v)
				c.fill(orig, upstreams)
				flex := responseHeaderFlexible(int16(c.key), v)
				frame := responseFrame(42, orig, flex, nil)

				resp, tags, err := decodeResponse(frame, int16(c.key), v)
				if err != nil {
					t.Fatal(err)
				}
				before := c.read(resp) // what the version could carry
				rewriteAddresses(resp, proxyMapper)
				got := responseFrame(42, resp, flex, tags)

				want := c.key.Response()
				want.SetVersion(v)
				var mapped []endpoint
				for _, e := range upstreams {
					h, p := proxyMapper(e.node, e.host, e.port)
					mapped = append(mapped, endpoint{e.node, h, p})
				}
				c.fill(want, mapped)
				wantFrame := responseFrame(42, want, flex, nil)
				// what the version cannot carry is absent from both
				if !bytes.Equal(got, wantFrame) {
					back, _, _ := decodeResponse(got, int16(c.key), v)
					t.Fatalf("rewritten differs from expected;\nbefore %v\nafter  %v", before, c.read(back))
				}
				back, _, err := decodeResponse(got, int16(c.key), v)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range c.read(back) {
					if len(before) > 0 && e.host != "" && (e.host != "127.0.0.1" || e.port != 4000+e.node) {
						t.Fatalf("address left: %+v", e)
					}
				}
			})
		}
	}
}

// TestReencodeKeepsUnknownTags: a flexible response carrying a tag kmsg
// does not know survives decode and re-encode.
func TestReencodeKeepsUnknownTags(t *testing.T) {
	m := kmsg.NewPtrMetadataResponse()
	m.SetVersion(12)
	m.UnknownTags.Set(99, []byte("future"))
	b := kmsg.NewMetadataResponseBroker()
	b.NodeID, b.Host, b.Port = 0, "10.0.0.1", 9092
	b.UnknownTags.Set(7, []byte{1, 2, 3})
	m.Brokers = append(m.Brokers, b)
	frame := responseFrame(1, m, true, []byte{1, 5, 2, 0xaa, 0xbb}) // a header tag too
	resp, tags, err := decodeResponse(frame, int16(kmsg.Metadata), 12)
	if err != nil {
		t.Fatal(err)
	}
	rewriteAddresses(resp, proxyMapper)
	out := responseFrame(1, resp, true, tags)
	back, backTags, err := decodeResponse(out, int16(kmsg.Metadata), 12)
	if err != nil {
		t.Fatal(err)
	}
	bm := back.(*kmsg.MetadataResponse)
	if bm.UnknownTags.Len() != 1 || bm.Brokers[0].UnknownTags.Len() != 1 || !bytes.Equal(backTags, []byte{1, 5, 2, 0xaa, 0xbb}) {
		t.Fatalf("tags lost: %d %d %x", bm.UnknownTags.Len(), bm.Brokers[0].UnknownTags.Len(), backTags)
	}
	if bm.Brokers[0].Host != "127.0.0.1" || bm.Brokers[0].Port != 4000 {
		t.Fatalf("broker %+v", bm.Brokers[0])
	}
}

func TestCapAPIVersions(t *testing.T) {
	r := kmsg.NewPtrApiVersionsResponse()
	for _, k := range []int16{int16(kmsg.Produce), int16(kmsg.Fetch), 500} {
		ak := kmsg.NewApiVersionsResponseApiKey()
		ak.ApiKey, ak.MaxVersion = k, 100
		r.ApiKeys = append(r.ApiKeys, ak)
	}
	if !capAPIVersions(r) {
		t.Fatal("nothing capped")
	}
	if r.ApiKeys[0].MaxVersion != kmsg.Produce.Response().MaxVersion() || r.ApiKeys[1].MaxVersion != kmsg.Fetch.Response().MaxVersion() || r.ApiKeys[2].MaxVersion != 100 {
		t.Fatalf("%+v", r.ApiKeys)
	}
}

func TestErrorCodesWalk(t *testing.T) {
	r := kmsg.NewPtrShareFetchResponse()
	tp := kmsg.NewShareFetchResponseTopic()
	p1, p2 := kmsg.NewShareFetchResponseTopicPartition(), kmsg.NewShareFetchResponseTopicPartition()
	p1.ErrorCode, p2.ErrorCode, p2.AcknowledgeErrorCode = 6, 6, 121
	tp.Partitions = append(tp.Partitions, p1, p2)
	r.Topics = append(r.Topics, tp)
	if got := errorCodes(r); fmt.Sprint(got) != "[0 6 121]" {
		t.Fatalf("codes %v", got)
	}
	setErrorCodes(r, 7)
	if got := errorCodes(r); fmt.Sprint(got) != "[7]" {
		t.Fatalf("after set: %v", got)
	}
}
