package proxy

import (
	"context"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestRouteForwardsUntouched: a route (broker to broker) forwards to its
// broker, keeps the broker's addresses and versions in the responses (the
// brokers advertise the proxy's addresses themselves), is tied to its
// node from the start, and the rules select its requests like a client's
// (here a response dropped for a follower's client id).
func TestRouteForwardsUntouched(t *testing.T) {
	b := startTestBroker(t, 2)
	rec := &recorder{}
	p := New(Options{OnAction: rec.action, OnError: rec.err})
	t.Cleanup(func() { p.Close() })
	addr, err := p.Route(2, "127.0.0.1", b.addr())
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(context.Background(), []string{b.addr()}); err != nil {
		t.Fatal(err) // a route before Start: the brokers start with it
	}
	c := dialRaw(t, addr, "broker-1-fetcher-0")
	md := metadata(12)
	r := c.mustRecv(md, c.send(md)).(*kmsg.MetadataResponse)
	host, port := b.hostPort()
	if len(r.Brokers) != 1 || r.Brokers[0].Host != host || r.Brokers[0].Port != port {
		t.Fatalf("a route rewrote the brokers: %+v, want %s:%d", r.Brokers, host, port)
	}
	av := kmsg.NewPtrApiVersionsRequest()
	v := c.mustRecv(av, c.send(av)).(*kmsg.ApiVersionsResponse)
	for _, k := range v.ApiKeys {
		if k.MaxVersion != kmsg.Key(k.ApiKey).Request().MaxVersion()+3 {
			t.Fatalf("a route capped %s to v%d", kmsg.Key(k.ApiKey).Name(), k.MaxVersion)
		}
	}
	var route *listenerInfo
	for _, l := range p.Listeners() {
		if l.Route {
			route = &l
		}
	}
	if route == nil || route.Node != 2 || route.Addr != addr || route.Upstream != b.addr() {
		t.Fatalf("listeners %+v, want a route to node 2 at %s", p.Listeners(), addr)
	}

	id := mustAdd(t, p, Rule{Action: DropResponse, APIKeys: []int16{int16(kmsg.EndTxn)}, ClientIDPrefixes: []string{"broker-"}, Brokers: []int32{2}})
	e := endTxn(4)
	c.send(e)
	c.mustGetNothing(e, 300*time.Millisecond)
	mustCounts(t, p, id, 1, 1)
	a := rec.waitActions(t, 1)[0]
	if a.Broker != 2 || a.ClientID != "broker-1-fetcher-0" || a.Kind != DropResponse {
		t.Fatalf("action %+v", a)
	}
	if b.count(kmsg.EndTxn) != 1 {
		t.Fatal("a dropped response's request must reach the broker")
	}
}

// TestRouteRefusesBadInput: a route needs a broker id and an upstream
// host:port.
func TestRouteRefusesBadInput(t *testing.T) {
	p := New(Options{})
	defer p.Close()
	if _, err := p.Route(-1, "127.0.0.1", "127.0.0.1:9095"); err == nil {
		t.Error("node -1 accepted")
	}
	if _, err := p.Route(0, "127.0.0.1", "nowhere"); err == nil {
		t.Error("an upstream without a port accepted")
	}
	if _, err := p.Route(0, "127.0.0.1", net.JoinHostPort("127.0.0.1", strconv.Itoa(1))); err != nil {
		t.Errorf("a good route refused: %v", err)
	}
}
