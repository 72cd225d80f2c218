package proxy

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"net"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestKgoMetadataThroughProxy: a franz-go client bootstrapped on the
// proxy sees only the proxy's addresses, its requests reach the broker,
// and the bootstrap listener learns its node id from Metadata.
func TestKgoMetadataThroughProxy(t *testing.T) {
	b := startTestBroker(t, 5)
	p, rec := startProxy(t, b)
	cl, err := kgo.NewClient(kgo.SeedBrokers(p.Bootstrap()...), kgo.ClientID("p9-admin"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Brokers) != 1 || net.JoinHostPort(resp.Brokers[0].Host, strconv.Itoa(int(resp.Brokers[0].Port))) != p.Bootstrap()[0] || resp.Brokers[0].NodeID != 5 {
		t.Fatalf("brokers %+v, want the proxy's %s", resp.Brokers, p.Bootstrap()[0])
	}
	ls := p.Listeners()
	if len(ls) != 1 || ls[0].Node != 5 || ls[0].Upstream != b.addr() {
		t.Fatalf("listeners %+v", ls)
	}
	for _, r := range b.requests() {
		if r.h.ClientID != "p9-admin" {
			t.Fatalf("client id %q", r.h.ClientID)
		}
	}
	// EndTxn answered by the proxy, through franz-go: it accepts the
	// answer as the broker's.
	id := mustAdd(t, p, Rule{APIKeys: endTxnKey(), ClientIDPrefixes: []string{"p9"}, Brokers: []int32{5}, Action: ErrorResponse, Code: codeConcurrentTxns})
	er, err := endTxn(0).RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	if er.ErrorCode != codeConcurrentTxns {
		t.Fatalf("EndTxn code %d", er.ErrorCode)
	}
	mustCounts(t, p, id, 1, 1)
	if a := rec.waitActions(t, 1)[0]; a.Broker != 5 || a.ClientID != "p9-admin" {
		t.Fatalf("action %+v", a)
	}
	if len(rec.errs) != 0 {
		t.Fatalf("errors %v", rec.errs)
	}
}

// TestLaterBrokersGetListeners: a broker first named in a Metadata
// response gets a listener of its own, forwarding to it.
func TestLaterBrokersGetListeners(t *testing.T) {
	b0, b1 := startTestBroker(t, 0), startTestBroker(t, 1)
	b0.extra[1] = b1.addr()
	p, _ := startProxy(t, b0)
	c := dialRaw(t, p.Bootstrap()[0], "p1")
	md := metadata(12)
	r := c.mustRecv(md, c.send(md)).(*kmsg.MetadataResponse)
	var to1 string
	for _, br := range r.Brokers {
		if br.Host != "127.0.0.1" {
			t.Fatalf("broker %+v not rewritten", br)
		}
		if br.NodeID == 1 {
			to1 = net.JoinHostPort(br.Host, strconv.Itoa(int(br.Port)))
		}
	}
	c1 := dialRaw(t, to1, "p1")
	e := endTxn(4)
	c1.mustRecv(e, c1.send(e))
	if b1.count(kmsg.EndTxn) != 1 || b0.count(kmsg.EndTxn) != 0 {
		t.Fatal("the new listener must forward to broker 1")
	}
	if len(p.Listeners()) != 2 {
		t.Fatalf("listeners %+v", p.Listeners())
	}
}

// TestUnknownAPIPassthrough: an API kmsg does not know, and one known API
// the proxy does not touch, travel byte for byte both ways.
func TestUnknownAPIPassthrough(t *testing.T) {
	b := startTestBroker(t, 0)
	p, _ := startProxy(t, b)
	c := dialRaw(t, p.Bootstrap()[0], "p1")
	for _, key := range []int16{999, int16(kmsg.DescribeConfigs)} {
		req := make([]byte, 4, 64)
		req = binary.BigEndian.AppendUint16(req, uint16(key))
		req = binary.BigEndian.AppendUint16(req, 77) // a version nobody knows
		req = binary.BigEndian.AppendUint32(req, 31)
		req = binary.BigEndian.AppendUint16(req, 2)
		req = append(req, "p1"...)
		req = append(req, 0xde, 0xad, 0x00, 0xff, 0x10)
		putSize(req)
		if _, err := c.c.Write(req); err != nil {
			t.Fatal(err)
		}
		c.c.SetReadDeadline(time.Now().Add(5 * time.Second))
		resp, err := readFrame(c.c)
		if err != nil {
			t.Fatal(err)
		}
		want := append([]byte{0, 0, 0, 0, 0, 0, 0, 31}, unknownAnswer...)
		putSize(want)
		if !bytes.Equal(resp, want) {
			t.Fatalf("key %d: response %x, want %x", key, resp, want)
		}
		got := b.requests()
		if last := got[len(got)-1]; !bytes.Equal(last.frame, req) {
			t.Fatalf("key %d: broker got %x, want %x", key, last.frame, req)
		}
	}
}

// TestApiVersionsHeaderV0: ApiVersions v3+ is flexible but its response
// header is v0; the proxy decodes it so, caps the versions to kmsg's,
// and the client reads it with header v0.
func TestApiVersionsHeaderV0(t *testing.T) {
	b := startTestBroker(t, 0)
	p, rec := startProxy(t, b)
	for _, v := range []int16{0, 2, 3, 4} {
		c := dialRaw(t, p.Bootstrap()[0], "p1")
		req := kmsg.NewPtrApiVersionsRequest()
		req.SetVersion(v)
		req.ClientSoftwareName, req.ClientSoftwareVersion = "kchaos", "1"
		resp := c.mustRecv(req, c.send(req)).(*kmsg.ApiVersionsResponse)
		if len(resp.ApiKeys) == 0 {
			t.Fatalf("v%d: no keys", v)
		}
		for _, k := range resp.ApiKeys {
			if max := kmsg.Key(k.ApiKey).Response().MaxVersion(); k.MaxVersion != max {
				t.Fatalf("v%d: %s max %d, want capped to %d", v, kmsg.NameForKey(k.ApiKey), k.MaxVersion, max)
			}
		}
	}
	if len(rec.errs) != 0 {
		t.Fatalf("errors %v", rec.errs)
	}
}

// TestOversizedFrameClosesConnection: a client announcing a frame above
// MaxFrameBytes is cut off at once, before the proxy allocates it.
func TestOversizedFrameClosesConnection(t *testing.T) {
	b := startTestBroker(t, 0)
	p, rec := startProxy(t, b)
	c := dialRaw(t, p.Bootstrap()[0], "p1")
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	if _, err := c.c.Write(binary.BigEndian.AppendUint32(nil, maxFrameBytes+1)); err != nil {
		t.Fatal(err)
	}
	c.mustBeClosed()
	runtime.ReadMemStats(&ms)
	if grew := ms.TotalAlloc - before; grew > 10<<20 {
		t.Fatalf("allocated %d bytes", grew)
	}
	waitFor(t, "the error reported", func() bool {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		return len(rec.errs) == 1 && errors.Is(rec.errs[0], errFrameTooLarge)
	})
	// a frame of exactly the bound is read (its size only announced here)
	if _, err := readFrame(bytes.NewReader(binary.BigEndian.AppendUint32(nil, maxFrameBytes))); errors.Is(err, errFrameTooLarge) {
		t.Fatal("the bound itself is allowed")
	}
}

// TestCloseLeavesNoGoroutines: after Close every goroutine of the proxy
// (listeners, connections, a pending duplicate, a delay) is gone.
func TestCloseLeavesNoGoroutines(t *testing.T) {
	b := startTestBroker(t, 0)
	base := runtime.NumGoroutine()
	p := New(Options{})
	if err := p.Start(context.Background(), []string{b.addr()}); err != nil {
		t.Fatal(err)
	}
	mustAdd(t, p, Rule{APIKeys: endTxnKey(), Action: DuplicateRequest, Delay: time.Hour})
	mustAdd(t, p, Rule{APIKeys: []int16{int16(kmsg.Metadata)}, Action: Delay, Delay: time.Hour})
	for i := 0; i < 3; i++ {
		c := dialRaw(t, p.Bootstrap()[0], "p1")
		c.send(endTxn(4))
		c.send(metadata(12))
	}
	waitFor(t, "requests through", func() bool { return b.count(kmsg.EndTxn) == 3 })
	if runtime.NumGoroutine() <= base {
		t.Fatal("no goroutines started?")
	}
	p.Close()
	p.Close() // twice is fine
	waitFor(t, "goroutines back to "+strconv.Itoa(base), func() bool { return runtime.NumGoroutine() <= base })
}

// TestContextEndsProxy: the proxy closes when Start's context ends.
func TestContextEndsProxy(t *testing.T) {
	b := startTestBroker(t, 0)
	ctx, cancel := context.WithCancel(context.Background())
	p := New(Options{})
	if err := p.Start(ctx, []string{b.addr()}); err != nil {
		t.Fatal(err)
	}
	cancel()
	waitFor(t, "listener closed", func() bool {
		c, err := net.Dial("tcp", p.Bootstrap()[0])
		if err == nil {
			c.Close()
		}
		return err != nil
	})
	p.Close()
}
