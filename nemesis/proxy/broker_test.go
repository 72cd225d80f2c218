package proxy

import (
	"net"
	"strconv"
	"sync"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// testBroker is an in-process Kafka broker good enough for the proxy's
// mechanics: it decodes requests with kmsg and answers ApiVersions,
// Metadata (naming itself, node id node), Produce, EndTxn and
// FindCoordinator; any other API key, known or not, gets a fixed raw
// answer, so that passthrough can be checked byte for byte.
type testBroker struct {
	t    testing.TB
	node int32
	ln   net.Listener
	wg   sync.WaitGroup

	mu       sync.Mutex
	received []receivedRequest
	conns    []net.Conn
	// endTxnCode, when set, is the code EndTxn answers with.
	endTxnCode int16
	// extra are further brokers Metadata lists (id → address).
	extra map[int32]string
}

type receivedRequest struct {
	h     requestHeader
	frame []byte
}

// unknownAnswer is the body the broker gives to APIs it does not handle.
var unknownAnswer = []byte{0xca, 0xfe, 0xba, 0xbe}

func startTestBroker(t testing.TB, node int32) *testBroker {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &testBroker{t: t, node: node, ln: ln, extra: map[int32]string{}}
	b.wg.Add(1)
	go b.accept()
	t.Cleanup(b.close)
	return b
}

func (b *testBroker) addr() string { return b.ln.Addr().String() }

func (b *testBroker) hostPort() (string, int32) {
	h, p, _ := net.SplitHostPort(b.addr())
	n, _ := strconv.Atoi(p)
	return h, int32(n)
}

func (b *testBroker) close() {
	b.ln.Close()
	b.mu.Lock()
	for _, c := range b.conns {
		c.Close()
	}
	b.mu.Unlock()
	b.wg.Wait()
}

func (b *testBroker) requests() []receivedRequest {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]receivedRequest(nil), b.received...)
}

// count is how many requests of an API key the broker got.
func (b *testBroker) count(key kmsg.Key) int {
	n := 0
	for _, r := range b.requests() {
		if r.h.Key == int16(key) {
			n++
		}
	}
	return n
}

func (b *testBroker) accept() {
	defer b.wg.Done()
	for {
		c, err := b.ln.Accept()
		if err != nil {
			return
		}
		b.mu.Lock()
		b.conns = append(b.conns, c)
		b.mu.Unlock()
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			defer c.Close()
			b.serve(c)
		}()
	}
}

func (b *testBroker) serve(c net.Conn) {
	for {
		frame, err := readFrame(c)
		if err != nil {
			return
		}
		h, err := parseRequestHeader(frame)
		if err != nil {
			return
		}
		b.mu.Lock()
		b.received = append(b.received, receivedRequest{h, frame})
		b.mu.Unlock()
		if !expectsResponse(h, frame) {
			continue
		}
		out := b.answer(h, frame)
		if _, err := c.Write(out); err != nil {
			return
		}
	}
}

func (b *testBroker) answer(h requestHeader, frame []byte) []byte {
	var resp kmsg.Response
	if knownAPI(h.Key) {
		if req, err := decodeRequest(frame, h); err == nil {
			resp = b.handle(req)
		}
	}
	if resp == nil {
		out := make([]byte, 8, 8+len(unknownAnswer))
		putCorr(out, h.CorrelationID)
		out = append(out, unknownAnswer...)
		putSize(out)
		return out
	}
	resp.SetVersion(h.Version)
	return responseFrame(h.CorrelationID, resp, responseHeaderFlexible(h.Key, h.Version), nil)
}

func (b *testBroker) handle(req kmsg.Request) kmsg.Response {
	host, port := b.hostPort()
	switch r := req.(type) {
	case *kmsg.ApiVersionsRequest:
		resp := kmsg.NewPtrApiVersionsResponse()
		for _, k := range []kmsg.Key{kmsg.Produce, kmsg.Metadata, kmsg.ApiVersions, kmsg.EndTxn, kmsg.FindCoordinator} {
			ak := kmsg.NewApiVersionsResponseApiKey()
			ak.ApiKey, ak.MaxVersion = int16(k), k.Request().MaxVersion()+3 // above kmsg: the proxy must cap
			resp.ApiKeys = append(resp.ApiKeys, ak)
		}
		return resp
	case *kmsg.MetadataRequest:
		resp := kmsg.NewPtrMetadataResponse()
		mb := kmsg.NewMetadataResponseBroker()
		mb.NodeID, mb.Host, mb.Port = b.node, host, port
		resp.Brokers = append(resp.Brokers, mb)
		for id, a := range b.extra {
			h, p, _ := net.SplitHostPort(a)
			n, _ := strconv.Atoi(p)
			eb := kmsg.NewMetadataResponseBroker()
			eb.NodeID, eb.Host, eb.Port = id, h, int32(n)
			resp.Brokers = append(resp.Brokers, eb)
		}
		resp.ControllerID = b.node
		return resp
	case *kmsg.ProduceRequest:
		return errProduceOK(r)
	case *kmsg.EndTxnRequest:
		resp := kmsg.NewPtrEndTxnResponse()
		b.mu.Lock()
		resp.ErrorCode = b.endTxnCode
		b.mu.Unlock()
		return resp
	case *kmsg.FindCoordinatorRequest:
		resp := kmsg.NewPtrFindCoordinatorResponse()
		resp.NodeID, resp.Host, resp.Port = b.node, host, port
		for _, k := range r.CoordinatorKeys {
			c := kmsg.NewFindCoordinatorResponseCoordinator()
			c.Key, c.NodeID, c.Host, c.Port = k, b.node, host, port
			resp.Coordinators = append(resp.Coordinators, c)
		}
		return resp
	}
	return nil
}

// errProduceOK is a successful answer to a Produce request: base offset 0
// for every partition.
func errProduceOK(r *kmsg.ProduceRequest) kmsg.Response {
	resp := errProduce(r, 0).(*kmsg.ProduceResponse)
	for i := range resp.Topics {
		for j := range resp.Topics[i].Partitions {
			resp.Topics[i].Partitions[j].BaseOffset = 0
		}
	}
	return resp
}

func putCorr(frame []byte, corr int32) {
	frame[4], frame[5], frame[6], frame[7] = byte(corr>>24), byte(corr>>16), byte(corr>>8), byte(corr)
}

func putSize(frame []byte) {
	n := len(frame) - 4
	frame[0], frame[1], frame[2], frame[3] = byte(n>>24), byte(n>>16), byte(n>>8), byte(n)
}
