package proxy

import (
	"context"
	"io"
	"net"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

const (
	codeConcurrentTxns = 51 // CONCURRENT_TRANSACTIONS
	codeNotLeader      = 6  // NOT_LEADER_OR_FOLLOWER
	silence            = 300 * time.Millisecond
)

func endTxnKey() []int16 { return []int16{int16(kmsg.EndTxn)} }

func TestDropRequestStallsAndStopsForwarding(t *testing.T) {
	b := startTestBroker(t, 0)
	p, rec := startProxy(t, b)
	id := mustAdd(t, p, Rule{APIKeys: endTxnKey(), Action: DropRequest})
	c := dialRaw(t, p.Bootstrap()[0], "p3-txn")
	md := metadata(12)
	corr0 := c.send(md)
	c.mustRecv(md, corr0)
	corr := c.send(endTxn(4))
	c.mustGetNothing(endTxn(4), silence)
	c.send(metadata(12)) // after the drop: neither forwarded nor answered
	c.mustGetNothing(md, silence)
	if n := b.count(kmsg.EndTxn); n != 0 {
		t.Fatalf("broker got %d EndTxn, want 0", n)
	}
	if n := b.count(kmsg.Metadata); n != 1 {
		t.Fatalf("broker got %d Metadata, want 1 (the one before the drop)", n)
	}
	a := rec.waitActions(t, 1)[0]
	if a.Kind != DropRequest || a.API != "EndTxn" || a.Version != 4 || a.CorrelationID != corr || a.ClientID != "p3-txn" || a.RuleID != id || a.Broker != 0 {
		t.Fatalf("action %+v", a)
	}
	mustCounts(t, p, id, 1, 1)
}

func TestDropResponseReportsCodesAndForwardsLater(t *testing.T) {
	b := startTestBroker(t, 0)
	b.endTxnCode = codeConcurrentTxns
	p, rec := startProxy(t, b)
	id := mustAdd(t, p, Rule{APIKeys: endTxnKey(), Action: DropResponse})
	c := dialRaw(t, p.Bootstrap()[0], "p3")
	corr := c.send(endTxn(3))
	c.mustGetNothing(endTxn(3), silence)
	c.send(metadata(12))
	c.mustGetNothing(metadata(12), silence)
	if b.count(kmsg.EndTxn) != 1 || b.count(kmsg.Metadata) != 1 {
		t.Fatalf("broker got %d EndTxn and %d Metadata, want 1 and 1", b.count(kmsg.EndTxn), b.count(kmsg.Metadata))
	}
	a := rec.waitActions(t, 1)[0]
	if a.Kind != DropResponse || a.CorrelationID != corr || len(a.ErrorCodes) != 1 || a.ErrorCodes[0] != codeConcurrentTxns {
		t.Fatalf("action %+v", a)
	}
	mustCounts(t, p, id, 1, 1)
	if len(rec.all()) != 1 {
		t.Fatalf("a stalled connection is not faulted again: %+v", rec.all())
	}
}

func TestDelayKeepsOrder(t *testing.T) {
	for _, onResponse := range []bool{false, true} {
		b := startTestBroker(t, 0)
		p, rec := startProxy(t, b)
		const d = 200 * time.Millisecond
		mustAdd(t, p, Rule{APIKeys: endTxnKey(), Action: Delay, Delay: d, DelayResponse: onResponse})
		c := dialRaw(t, p.Bootstrap()[0], "p1")
		start := time.Now()
		e := endTxn(4)
		c1 := c.send(e)
		md := metadata(12)
		c2 := c.send(md)
		c.mustRecv(e, c1)
		if took := time.Since(start); took < d {
			t.Fatalf("response after %v, want at least %v", took, d)
		}
		c.mustRecv(md, c2) // behind the delayed one
		if a := rec.waitActions(t, 1)[0]; a.Kind != Delay || a.Delay != d {
			t.Fatalf("action %+v", a)
		}
		if onResponse && b.count(kmsg.Metadata) != 1 {
			t.Fatal("a delayed response must not hold the requests behind it")
		}
	}
}

func TestDuplicateRequestSwallowsItsResponse(t *testing.T) {
	b := startTestBroker(t, 0)
	b.endTxnCode = codeConcurrentTxns
	p, rec := startProxy(t, b)
	id := mustAdd(t, p, Rule{APIKeys: endTxnKey(), Action: DuplicateRequest, Delay: 50 * time.Millisecond})
	c := dialRaw(t, p.Bootstrap()[0], "p3")
	e := endTxn(4)
	corr := c.send(e)
	if r := c.mustRecv(e, corr).(*kmsg.EndTxnResponse); r.ErrorCode != codeConcurrentTxns {
		t.Fatalf("code %d", r.ErrorCode)
	}
	a := rec.waitActions(t, 1)[0]
	if a.Kind != DuplicateRequest || a.CorrelationID != corr || len(a.ErrorCodes) != 1 || a.ErrorCodes[0] != codeConcurrentTxns {
		t.Fatalf("action %+v", a)
	}
	var corrs []int32
	for _, r := range b.requests() {
		if r.h.Key == int16(kmsg.EndTxn) {
			corrs = append(corrs, r.h.CorrelationID)
		}
	}
	if len(corrs) != 2 || corrs[0] != corr || corrs[1] >= 0 {
		t.Fatalf("broker saw EndTxn correlation ids %v, want [%d, <0]", corrs, corr)
	}
	md := metadata(12)
	c2 := c.send(md)
	c.mustRecv(md, c2) // the swallowed response did not shift the stream
	c.mustGetNothing(md, 100*time.Millisecond)
	mustCounts(t, p, id, 1, 1)
}

func TestResetAfterRequest(t *testing.T) {
	b := startTestBroker(t, 0)
	p, rec := startProxy(t, b)
	mustAdd(t, p, Rule{APIKeys: endTxnKey(), Action: ResetAfterRequest})
	c := dialRaw(t, p.Bootstrap()[0], "p3")
	c.send(endTxn(4))
	c.mustBeClosed()
	waitFor(t, "the request reaches the broker before the reset", func() bool { return b.count(kmsg.EndTxn) == 1 })
	if a := rec.waitActions(t, 1)[0]; a.Kind != ResetAfterRequest {
		t.Fatalf("action %+v", a)
	}
}

func TestErrorResponseInOrder(t *testing.T) {
	b := startTestBroker(t, 0)
	p, rec := startProxy(t, b)
	mustAdd(t, p, Rule{APIKeys: endTxnKey(), Action: ErrorResponse, Code: codeConcurrentTxns})
	for _, v := range []int16{0, 2, 3, 5} {
		c := dialRaw(t, p.Bootstrap()[0], "p3")
		md, e := metadata(12), endTxn(v)
		c1, c2, c3 := c.send(md), c.send(e), c.send(md)
		c.mustRecv(md, c1)
		r := c.mustRecv(e, c2).(*kmsg.EndTxnResponse)
		if r.ErrorCode != codeConcurrentTxns {
			t.Fatalf("v%d: code %d", v, r.ErrorCode)
		}
		c.mustRecv(md, c3)
	}
	if b.count(kmsg.EndTxn) != 0 {
		t.Fatal("an answered request must not reach the broker")
	}
	if a := rec.waitActions(t, 4)[0]; a.Kind != ErrorResponse || a.Code != codeConcurrentTxns {
		t.Fatalf("action %+v", a)
	}
}

func TestRewriteError(t *testing.T) {
	b := startTestBroker(t, 0)
	p, rec := startProxy(t, b)
	mustAdd(t, p, Rule{APIKeys: []int16{int16(kmsg.Produce)}, Action: RewriteError, Code: codeNotLeader})
	c := dialRaw(t, p.Bootstrap()[0], "p1")
	pr := produce(9, -1)
	corr := c.send(pr)
	r := c.mustRecv(pr, corr).(*kmsg.ProduceResponse)
	for _, tp := range r.Topics {
		for _, pp := range tp.Partitions {
			if pp.ErrorCode != codeNotLeader {
				t.Fatalf("partition %d code %d", pp.Partition, pp.ErrorCode)
			}
		}
	}
	if len(r.Topics) != 1 || len(r.Topics[0].Partitions) != 2 {
		t.Fatalf("response %+v", r)
	}
	a := rec.waitActions(t, 1)[0]
	if a.Kind != RewriteError || a.Code != codeNotLeader || len(a.ErrorCodes) != 1 || a.ErrorCodes[0] != 0 {
		t.Fatalf("action %+v", a)
	}
	if b.count(kmsg.Produce) != 1 {
		t.Fatal("rewrite-error forwards")
	}
}

func TestProduceAcksZeroIsNotAwaited(t *testing.T) {
	b := startTestBroker(t, 0)
	p, _ := startProxy(t, b)
	id := mustAdd(t, p, Rule{APIKeys: []int16{int16(kmsg.Produce)}, Action: DropResponse})
	c := dialRaw(t, p.Bootstrap()[0], "p1")
	for _, v := range []int16{2, 3, 8, 9} {
		c.send(produce(v, 0))
	}
	md := metadata(12)
	corr := c.send(md)
	c.mustRecv(md, corr) // no acks=0 produce is awaited, none matched a response action
	mustCounts(t, p, id, 0, 0)
	if b.count(kmsg.Produce) != 4 {
		t.Fatalf("broker got %d produce, want 4", b.count(kmsg.Produce))
	}
}

// TestUnansweredResponseActionGivesClaimBack: a drop-response whose
// connection closes before the broker answers took no action: First
// still has its one action for the next request.
func TestUnansweredResponseActionGivesClaimBack(t *testing.T) {
	mute, err := net.Listen("tcp", "127.0.0.1:0") // a broker that never answers
	if err != nil {
		t.Fatal(err)
	}
	defer mute.Close()
	go func() {
		for {
			c, err := mute.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); io.Copy(io.Discard, c) }()
		}
	}()
	p := New(Options{})
	if err := p.Start(context.Background(), []string{mute.Addr().String()}); err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	id := mustAdd(t, p, Rule{APIKeys: endTxnKey(), Action: DropResponse, First: 1})
	c := dialRaw(t, p.Bootstrap()[0], "p1")
	c.send(endTxn(4))
	mustCounts(t, p, id, 1, 0)
	c.c.Close()
	waitFor(t, "the claim given back", func() bool {
		r := p.all[id]
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.claimed == 0
	})
}
