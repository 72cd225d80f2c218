package proxy

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// ActionKind is what a rule does to the requests it selects.
type ActionKind string

// The actions. Each is described with the stall model in the package doc.
const (
	// DropRequest: the request never reaches the broker; the connection
	// stalls for the client from there on.
	DropRequest ActionKind = "drop-request"
	// DropResponse: the broker gets and applies the request, the client
	// never hears; the connection stalls for the client from there on.
	DropResponse ActionKind = "drop-response"
	// Delay holds the request (or, with Rule.DelayResponse, its response)
	// for Rule.Delay; later frames of the connection wait behind it.
	Delay ActionKind = "delay"
	// DuplicateRequest forwards the request, then sends it again Rule.Delay
	// later on the same upstream connection under a correlation id the
	// proxy owns; the duplicate's response is swallowed and reported.
	DuplicateRequest ActionKind = "duplicate-request"
	// ResetAfterRequest forwards the request, then closes both connections.
	ResetAfterRequest ActionKind = "reset-after-request"
	// ErrorResponse answers the request in the proxy with Rule.Code; the
	// broker never sees it.
	ErrorResponse ActionKind = "error-response"
	// RewriteError forwards the request and replaces every error code of
	// the broker's response by Rule.Code.
	RewriteError ActionKind = "rewrite-error"
)

// kinds is every action kind, for validation and help texts.
var kinds = []ActionKind{DropRequest, DropResponse, Delay, DuplicateRequest, ResetAfterRequest, ErrorResponse, RewriteError}

// onResponse reports whether the action acts when the response comes,
// so that it cannot select a request the broker does not answer
// (Produce with acks=0).
func (r *Rule) onResponse() bool {
	return r.Action == DropResponse || r.Action == RewriteError || (r.Action == Delay && r.DelayResponse)
}

// Rule selects requests and says what to do with them. Empty selectors
// select everything; every non-empty one must match.
type Rule struct {
	// APIKeys selects by API (APIKeyByName gives the keys).
	APIKeys []int16
	// ClientIDs selects clients by exact client id, ClientIDPrefixes by
	// prefix (kchaos's clients name their process in their id); a
	// request is selected when either list matches it.
	ClientIDs        []string
	ClientIDPrefixes []string
	// Brokers selects by the node id of the broker a connection goes to;
	// a bootstrap connection not yet tied to a node id (-1) matches only
	// -1.
	Brokers []int32
	// Filter, when set, sees the decoded request of every request the
	// other selectors passed (e.g. to select one transactional id). Body
	// is nil when kmsg could not decode it. It must not keep the request.
	Filter func(Request) bool
	// First acts on the first First selected requests only (0: all).
	First int
	// Probability acts on each selected request with this probability
	// (0: always), drawn from a generator seeded with Seed, so a seed
	// makes the same decisions for the same sequence of selected requests.
	Probability float64
	Seed        uint64

	Action ActionKind
	// Delay is the delay of a Delay action, and the gap between the
	// original and the duplicate of a DuplicateRequest.
	Delay time.Duration
	// DelayResponse makes a Delay action delay the response, not the request.
	DelayResponse bool
	// Code is the error code of ErrorResponse and RewriteError.
	Code int16
}

// Validate says what is wrong with a rule, naming the field.
func (r *Rule) Validate() error {
	var errs []error
	known := false
	for _, k := range kinds {
		known = known || r.Action == k
	}
	if !known {
		errs = append(errs, fmt.Errorf("action: unknown %q", r.Action))
	}
	for _, k := range r.APIKeys {
		if !knownAPI(k) {
			errs = append(errs, fmt.Errorf("api: unknown key %d", k))
		}
	}
	if r.First < 0 {
		errs = append(errs, fmt.Errorf("first: %d is negative", r.First))
	}
	if r.Probability < 0 || r.Probability > 1 || r.Probability != r.Probability {
		errs = append(errs, fmt.Errorf("probability: %v is not within [0, 1]", r.Probability))
	}
	if r.Delay < 0 {
		errs = append(errs, fmt.Errorf("delay: %v is negative", r.Delay))
	}
	if r.Action == Delay && r.Delay == 0 {
		errs = append(errs, errors.New("delay: a delay action needs a delay"))
	}
	switch r.Action {
	case ErrorResponse, RewriteError:
		if r.Code == 0 {
			errs = append(errs, fmt.Errorf("code: %s needs a non-zero error code", r.Action))
		}
	}
	if r.Action == ErrorResponse {
		if len(r.APIKeys) == 0 {
			errs = append(errs, errors.New("api: error-response needs the APIs it answers"))
		}
		for _, k := range r.APIKeys {
			if knownAPI(k) && !ErrorResponseSupported(k) {
				errs = append(errs, fmt.Errorf("api: error-response cannot answer %s", apiName(k)))
			}
		}
	}
	return errors.Join(errs...)
}

// Request is what a Rule's Filter sees of a request.
type Request struct {
	APIKey        int16
	Version       int16
	CorrelationID int32
	ClientID      string
	Broker        int32        // the upstream node id (-1: a bootstrap address not yet tied)
	Body          kmsg.Request // decoded; nil when kmsg cannot decode it
}

// RuleID names a rule added to a proxy.
type RuleID int

// Counts is what a rule did: Matched requests passed its selectors
// (Filter included) while it was active; Acted is how many it acted on
// (at most First; a response-side action counts when the response came).
type Counts struct {
	Matched int64
	Acted   int64
}

// rule is a Rule added to a proxy, with its counters and generator.
type rule struct {
	id RuleID
	Rule
	mu      sync.Mutex
	rng     *rand.Rand
	claimed int // decisions to act taken (First is checked against it)
	counts  Counts
}

func (r *rule) selects(h *requestHeader, broker int32) bool {
	if len(r.APIKeys) > 0 && !contains(r.APIKeys, h.Key) {
		return false
	}
	if len(r.Brokers) > 0 && !contains(r.Brokers, broker) {
		return false
	}
	if len(r.ClientIDs) > 0 || len(r.ClientIDPrefixes) > 0 {
		ok := contains(r.ClientIDs, h.ClientID)
		for _, p := range r.ClientIDPrefixes {
			ok = ok || strings.HasPrefix(h.ClientID, p)
		}
		if !ok {
			return false
		}
	}
	return true
}

// fire counts a match and decides whether to act on it: First before the
// draw, so that no draw is spent once First is reached.
func (r *rule) fire() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.counts.Matched++
	if r.First > 0 && r.claimed >= r.First {
		return false
	}
	if r.Probability > 0 && r.rng.Float64() >= r.Probability {
		return false
	}
	r.claimed++
	return true
}

func (r *rule) acted() {
	r.mu.Lock()
	r.counts.Acted++
	r.mu.Unlock()
}

func contains[T comparable](s []T, v T) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// Add validates a rule and makes it active until Remove.
func (p *Proxy) Add(r Rule) (RuleID, error) {
	if err := r.Validate(); err != nil {
		return 0, err
	}
	r.APIKeys = append([]int16(nil), r.APIKeys...)
	r.ClientIDs = append([]string(nil), r.ClientIDs...)
	r.ClientIDPrefixes = append([]string(nil), r.ClientIDPrefixes...)
	r.Brokers = append([]int32(nil), r.Brokers...)
	p.rulesMu.Lock()
	defer p.rulesMu.Unlock()
	p.nextRule++
	nr := &rule{id: p.nextRule, Rule: r, rng: rand.New(rand.NewPCG(r.Seed, r.Seed^0x6b6368616f73))}
	p.active = append(append([]*rule(nil), p.active...), nr)
	p.all[nr.id] = nr
	return nr.id, nil
}

// Remove deactivates a rule: it selects no further request. A request it
// selected before acts on its response still (drop-response,
// rewrite-error, a delayed response). Its counts stay readable.
func (p *Proxy) Remove(id RuleID) {
	p.rulesMu.Lock()
	defer p.rulesMu.Unlock()
	kept := make([]*rule, 0, len(p.active))
	for _, r := range p.active {
		if r.id != id {
			kept = append(kept, r)
		}
	}
	p.active = kept
}

// Counts is what rule id matched and did; false for an id never added.
func (p *Proxy) Counts(id RuleID) (Counts, bool) {
	p.rulesMu.RLock()
	r, ok := p.all[id]
	p.rulesMu.RUnlock()
	if !ok {
		return Counts{}, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.counts, true
}

// decide is the rule that acts on a request, in the order rules were
// added: the first that selects the request and fires. Rules after it
// do not see the request (their Matched does not count it). body is
// decoded at most once, for the first Filter that wants it.
func (p *Proxy) decide(h *requestHeader, broker int32, frame []byte, answered bool, body *kmsg.Request) *rule {
	p.rulesMu.RLock()
	active := p.active
	p.rulesMu.RUnlock()
	decoded := false
	for _, r := range active {
		if !r.selects(h, broker) || ((r.onResponse() || r.Action == ErrorResponse) && !answered) {
			continue
		}
		if r.Filter != nil {
			if !decoded {
				*body, _ = decodeRequest(frame, *h)
				decoded = true
			}
			if !r.Filter(Request{APIKey: h.Key, Version: h.Version, CorrelationID: h.CorrelationID, ClientID: h.ClientID, Broker: broker, Body: *body}) {
				continue
			}
		}
		if r.fire() {
			return r
		}
	}
	return nil
}

// release gives back a claim whose action could not be taken (the
// connection closed before the response, or the message could not be
// decoded), so that First counts actions taken.
func (r *rule) release() {
	r.mu.Lock()
	if r.claimed > 0 {
		r.claimed--
	}
	r.mu.Unlock()
}
