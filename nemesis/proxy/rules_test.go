package proxy

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestRuleValidate(t *testing.T) {
	cases := []struct {
		name string
		rule Rule
		want string // "" = valid
	}{
		{"drop", Rule{Action: DropResponse}, ""},
		{"unknown action", Rule{Action: "explode"}, "action:"},
		{"unknown api", Rule{Action: DropRequest, APIKeys: []int16{4000}}, "api:"},
		{"negative first", Rule{Action: DropRequest, First: -1}, "first:"},
		{"probability above 1", Rule{Action: DropRequest, Probability: 1.5}, "probability:"},
		{"delay without delay", Rule{Action: Delay}, "delay:"},
		{"error-response without code", Rule{Action: ErrorResponse, APIKeys: endTxnKey()}, "code:"},
		{"error-response without api", Rule{Action: ErrorResponse, Code: 7}, "api:"},
		{"error-response unsupported api", Rule{Action: ErrorResponse, Code: 7, APIKeys: []int16{int16(kmsg.CreateTopics)}}, "cannot answer CreateTopics"},
		{"rewrite-error without code", Rule{Action: RewriteError}, "code:"},
		{"error-response", Rule{Action: ErrorResponse, Code: 7, APIKeys: endTxnKey()}, ""},
	}
	for _, c := range cases {
		err := c.rule.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v, want one naming %q", c.name, err, c.want)
		}
	}
}

// fireSequence is which of n matches a rule acts on.
func fireSequence(r Rule, n int) string {
	p := New(Options{})
	id, err := p.Add(r)
	if err != nil {
		panic(err)
	}
	var sb strings.Builder
	for i := 0; i < n; i++ {
		if p.all[id].fire() {
			sb.WriteByte('1')
		} else {
			sb.WriteByte('0')
		}
	}
	return sb.String()
}

func TestFirstAndProbability(t *testing.T) {
	if got := fireSequence(Rule{Action: DropRequest, First: 2}, 5); got != "11000" {
		t.Fatalf("first 2: %s", got)
	}
	if got := fireSequence(Rule{Action: DropRequest}, 4); got != "1111" {
		t.Fatalf("all: %s", got)
	}
	a := fireSequence(Rule{Action: DropRequest, Probability: 0.3, Seed: 7}, 200)
	b := fireSequence(Rule{Action: DropRequest, Probability: 0.3, Seed: 7}, 200)
	c := fireSequence(Rule{Action: DropRequest, Probability: 0.3, Seed: 8}, 200)
	if a != b {
		t.Fatal("the same seed must make the same decisions")
	}
	if a == c {
		t.Fatal("another seed should make other decisions")
	}
	if n := strings.Count(a, "1"); n < 30 || n > 90 {
		t.Fatalf("p=0.3 acted on %d of 200", n)
	}
	d := fireSequence(Rule{Action: DropRequest, Probability: 0.5, Seed: 1, First: 3}, 50)
	if strings.Count(d, "1") != 3 {
		t.Fatalf("first caps the probability's actions: %s", d)
	}
}

// TestSelectors runs requests from two clients through a proxy with one
// rule per selector and checks which requests each rule matched.
func TestSelectors(t *testing.T) {
	cases := []struct {
		name        string
		rule        Rule
		wantMatched int64
	}{
		{"api", Rule{APIKeys: endTxnKey()}, 2},
		{"client exact", Rule{ClientIDs: []string{"p3-txn"}}, 2},
		{"client prefix", Rule{ClientIDPrefixes: []string{"p4"}}, 2},
		{"client exact or prefix", Rule{ClientIDs: []string{"p3-txn"}, ClientIDPrefixes: []string{"p4"}}, 4},
		{"broker", Rule{Brokers: []int32{0}}, 4},
		{"other broker", Rule{Brokers: []int32{1}}, 0},
		{"filter on transactional id", Rule{Filter: func(r Request) bool {
			e, ok := r.Body.(*kmsg.EndTxnRequest)
			return ok && e.TransactionalID == "t-p4"
		}}, 1},
		{"api and client", Rule{APIKeys: endTxnKey(), ClientIDs: []string{"p3-txn"}}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := startTestBroker(t, 0)
			p, _ := startProxy(t, b)
			// tie the bootstrap listener to node 0 first
			w := dialRaw(t, p.Bootstrap()[0], "warmup")
			md := metadata(12)
			w.mustRecv(md, w.send(md))
			c.rule.Action = Delay
			c.rule.Delay = time.Millisecond
			id := mustAdd(t, p, c.rule)
			for _, client := range []string{"p3-txn", "p4-txn"} {
				cl := dialRaw(t, p.Bootstrap()[0], client)
				e := endTxn(4)
				e.TransactionalID = "t-" + client[:2]
				cl.mustRecv(e, cl.send(e))
				cl.mustRecv(md, cl.send(md))
			}
			mustCounts(t, p, id, c.wantMatched, c.wantMatched)
		})
	}
}

// TestFirstNThroughProxy: First 2 drops the first two EndTxn responses
// (on two connections, each then stalled) and lets the third through;
// the probability rule's decisions repeat with its seed.
func TestFirstNThroughProxy(t *testing.T) {
	b := startTestBroker(t, 0)
	p, rec := startProxy(t, b)
	id := mustAdd(t, p, Rule{APIKeys: endTxnKey(), Action: DropResponse, First: 2})
	for i := 0; i < 3; i++ {
		c := dialRaw(t, p.Bootstrap()[0], fmt.Sprint("p", i))
		e := endTxn(4)
		corr := c.send(e)
		if i < 2 {
			c.mustGetNothing(e, 150*time.Millisecond)
		} else {
			c.mustRecv(e, corr)
		}
	}
	mustCounts(t, p, id, 3, 2)
	if got := len(rec.waitActions(t, 2)); got != 2 {
		t.Fatalf("%d actions", got)
	}
	p.Remove(id)
	c := dialRaw(t, p.Bootstrap()[0], "p9")
	e := endTxn(4)
	c.mustRecv(e, c.send(e))
	mustCounts(t, p, id, 3, 2) // removed: matches nothing more
}

// TestProbabilityThroughProxy: the same seed acts on the same requests
// of the same sequence.
func TestProbabilityThroughProxy(t *testing.T) {
	run := func(seed uint64) string {
		b := startTestBroker(t, 0)
		p, _ := startProxy(t, b)
		mustAdd(t, p, Rule{APIKeys: endTxnKey(), Action: ErrorResponse, Code: codeConcurrentTxns, Probability: 0.5, Seed: seed})
		c := dialRaw(t, p.Bootstrap()[0], "p1")
		var sb strings.Builder
		for i := 0; i < 40; i++ {
			e := endTxn(4)
			r := c.mustRecv(e, c.send(e)).(*kmsg.EndTxnResponse)
			sb.WriteString(fmt.Sprint(r.ErrorCode / codeConcurrentTxns))
		}
		return sb.String()
	}
	a, b := run(42), run(42)
	if a != b {
		t.Fatalf("seed 42 gave %s then %s", a, b)
	}
	if !strings.Contains(a, "0") || !strings.Contains(a, "1") {
		t.Fatalf("p=0.5 over 40: %s", a)
	}
}
