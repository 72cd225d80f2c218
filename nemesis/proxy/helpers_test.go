package proxy

import (
	"context"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// rawClient speaks Kafka frames by hand, so a test controls correlation
// ids, versions and what it waits for.
type rawClient struct {
	t    testing.TB
	c    net.Conn
	f    *kmsg.RequestFormatter
	corr int32
}

func dialRaw(t testing.TB, addr, clientID string) *rawClient {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &rawClient{t: t, c: c, f: kmsg.NewRequestFormatter(kmsg.FormatterClientID(clientID))}
}

// send writes req (at the version set on it) and returns its correlation id.
func (c *rawClient) send(req kmsg.Request) int32 {
	c.t.Helper()
	c.corr++
	if _, err := c.c.Write(c.f.AppendRequest(nil, req, c.corr)); err != nil {
		c.t.Fatal(err)
	}
	return c.corr
}

// recv reads one response to a request like req within d.
func (c *rawClient) recv(req kmsg.Request, d time.Duration) (kmsg.Response, int32, error) {
	c.c.SetReadDeadline(time.Now().Add(d))
	frame, err := readFrame(c.c)
	if err != nil {
		return nil, 0, err
	}
	resp, _, err := decodeResponse(frame, req.Key(), req.GetVersion())
	return resp, correlationOfResponse(frame), err
}

// mustRecv reads a response and checks its correlation id.
func (c *rawClient) mustRecv(req kmsg.Request, corr int32) kmsg.Response {
	c.t.Helper()
	resp, got, err := c.recv(req, 5*time.Second)
	if err != nil {
		c.t.Fatalf("no response to %s (corr %d): %v", apiName(req.Key()), corr, err)
	}
	if got != corr {
		c.t.Fatalf("response correlation %d, want %d", got, corr)
	}
	return resp
}

// mustGetNothing checks that nothing arrives within d and the connection
// stays open.
func (c *rawClient) mustGetNothing(req kmsg.Request, d time.Duration) {
	c.t.Helper()
	_, corr, err := c.recv(req, d)
	var ne net.Error
	if err == nil {
		c.t.Fatalf("got a response (corr %d), want none", corr)
	}
	if !(errorsAs(err, &ne) && ne.Timeout()) {
		c.t.Fatalf("want a silent open connection, got %v", err)
	}
}

// mustBeClosed checks that the proxy closed the connection.
func (c *rawClient) mustBeClosed() {
	c.t.Helper()
	c.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	var b [1]byte
	if _, err := c.c.Read(b[:]); err != io.EOF {
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			c.t.Fatal("connection still open")
		}
	}
}

// recorder keeps what the proxy reported.
type recorder struct {
	mu      sync.Mutex
	actions []Action
	errs    []error
}

func (r *recorder) action(a Action) { r.mu.Lock(); r.actions = append(r.actions, a); r.mu.Unlock() }
func (r *recorder) err(e error)     { r.mu.Lock(); r.errs = append(r.errs, e); r.mu.Unlock() }

func (r *recorder) all() []Action {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Action(nil), r.actions...)
}

// waitActions waits until n actions were reported.
func (r *recorder) waitActions(t *testing.T, n int) []Action {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if a := r.all(); len(a) >= n {
			return a
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("want %d actions, got %+v", n, r.all())
	return nil
}

// startProxy starts a proxy in front of b, closed at the test's end.
func startProxy(t *testing.T, b *testBroker) (*Proxy, *recorder) {
	t.Helper()
	rec := &recorder{}
	p := New(Options{OnAction: rec.action, OnError: rec.err})
	if err := p.Start(context.Background(), []string{b.addr()}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p, rec
}

func mustAdd(t *testing.T, p *Proxy, r Rule) RuleID {
	t.Helper()
	id, err := p.Add(r)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func mustCounts(t *testing.T, p *Proxy, id RuleID, matched, acted int64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, _ := p.Counts(id)
		if c.Matched == matched && c.Acted == acted {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("counts %+v, want matched %d acted %d", c, matched, acted)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func endTxn(version int16) *kmsg.EndTxnRequest {
	r := kmsg.NewPtrEndTxnRequest()
	r.SetVersion(version)
	r.TransactionalID, r.ProducerID, r.ProducerEpoch, r.Commit = "t7", 1000, 3, true
	return r
}

func metadata(version int16) *kmsg.MetadataRequest {
	r := kmsg.NewPtrMetadataRequest()
	r.SetVersion(version)
	return r
}

func produce(version int16, acks int16) *kmsg.ProduceRequest {
	r := kmsg.NewPtrProduceRequest()
	r.SetVersion(version)
	r.Acks, r.TimeoutMillis = acks, 5000
	t := kmsg.NewProduceRequestTopic()
	t.Topic = "orders"
	for _, part := range []int32{0, 1} {
		p := kmsg.NewProduceRequestTopicPartition()
		p.Partition, p.Records = part, make([]byte, 64)
		t.Partitions = append(t.Partitions, p)
	}
	r.Topics = append(r.Topics, t)
	return r
}

func errorsAs(err error, target *net.Error) bool {
	ne, ok := err.(net.Error)
	if ok {
		*target = ne
	}
	return ok
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting: " + what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
