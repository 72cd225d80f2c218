package nemesis

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis/proxy"
)

// Request faults act on one request, not on a node or a link: the
// workload's clients reach the brokers through kchaos's Kafka-protocol
// proxy (nemesis/proxy), and a request fault adds a rule to it that drops,
// delays, repeats or answers the requests it selects. The kinds share this
// file's parameters, fault and heal; each kind is a file of its own
// (request_*.go) that names its action.
//
// A request fault is lasting: its rule selects requests until `heal:
// requests`, the final heal, or the end of its `for:` window. Its proof is
// the proxy's own count: the step waits (at most `within`) until the rule
// has acted at least once, so a story can go on "after the EndTxn response
// was dropped"; a rule that selected nothing in that time had no effect,
// said as for every other fault. Each action is also a history event of
// its own (f "request", process -1, type info; docs/HISTORY.md), written as
// it happens.

// RequestProxy is the proxy on the clients' path, as the request faults
// use it; *proxy.Proxy implements it. The harness sets Env.Requests when
// the scenario has a request fault.
type RequestProxy interface {
	Add(proxy.Rule) (proxy.RuleID, error)
	Remove(proxy.RuleID)
	Counts(proxy.RuleID) (proxy.Counts, bool)
}

var _ RequestProxy = (*proxy.Proxy)(nil)

// requestKind completes k as a request fault of action a: it needs no
// backend capability (the proxy runs on the kchaos host, in front of any
// backend's brokers), is healed by the requests heal, acts on what a
// client hears, so it can neither lose an acknowledged record by itself
// nor move a leader, and proves itself by the proxy's count.
//
// A random schedule draws it (rank: its place among the drawable kinds,
// after every kind before it) on the one API every workload sends,
// Produce (drawnRequest).
func requestKind(a proxy.ActionKind, color string, rank int) Kind {
	return Kind{Name: string(a), New: func() Params { return &RequestParams{} },
		Heal: requestHeal, Color: color, LosesAcked: No, MovesLeaders: No, OnClients: true,
		Draw:  &Draw{Rank: rank, AnyBroker: true, Params: func(RandomSchedule, string) Params { return drawnRequest(a) }},
		Proof: Proved, Requests: true}
}

// drawnRequest is a drawn request fault's parameters: on Produce (a
// delay holds it 2 s), every client, the first two
// requests selected, proved within 10 s, so that a drawn fault acts at
// once on any workload that produces, and a period's heal ends it. A
// rewrite-error or error-response answers NOT_LEADER_OR_FOLLOWER, the
// error a leader move gives: the client must refresh its metadata and
// send again.
func drawnRequest(a proxy.ActionKind) *RequestParams {
	rp := &RequestParams{API: []string{"Produce"}, First: 2, Within: Duration(10 * time.Second)}
	switch a {
	case proxy.Delay:
		rp.Delay = Duration(2 * time.Second)
	case proxy.DuplicateRequest:
		rp.Delay = Duration(200 * time.Millisecond)
	case proxy.ErrorResponse, proxy.RewriteError:
		rp.Error = "NOT_LEADER_OR_FOLLOWER"
	}
	return rp
}

// requestHeal removes every request rule still active.
var requestHeal = &HealKind{Name: histories.HealRequests, Rank: 0, Heal: func(_ context.Context, e *Env, d map[string]any) ([]int32, error) {
	if removed := removeRequestRules(e); len(removed) > 0 {
		d["rules"] = removed
	}
	return nil, nil
}}

// RequestParams are a request fault's. Which requests: API names as Kafka
// spells them (required: a fault on every request is a partition, which
// kchaos has), the clients by role (workloads' client roles; default
// every client through the proxy) or one client by index within its role,
// and the brokers by the step's usual target (default any). How many: the
// first N selected, or each with a probability. For how long: until a heal,
// or `for:`. What: each kind's action, with its delay or error code.
type RequestParams struct {
	API         []string `yaml:"api,omitempty"`
	Clients     string   `yaml:"clients,omitempty"`
	Client      *int     `yaml:"client,omitempty"`
	First       int      `yaml:"first,omitempty"`
	Probability float64  `yaml:"probability,omitempty"`
	For         Duration `yaml:"for,omitempty"`
	// Within bounds the proof's wait for a first action (default
	// DefaultRequestWithin).
	Within Duration `yaml:"within,omitempty"`
	// Delay is a delay's length and a duplicate's gap.
	Delay Duration `yaml:"delay,omitempty"`
	// Response makes a delay hold the response rather than the request.
	Response bool `yaml:"response,omitempty"`
	// Error is the Kafka error an error-response or rewrite-error gives,
	// by Kafka's name (NOT_LEADER_OR_FOLLOWER, REQUEST_TIMED_OUT, ...).
	Error string `yaml:"error,omitempty"`
}

// DefaultRequestWithin is how long a request fault's proof waits for the
// rule's first action.
const DefaultRequestWithin = 30 * time.Second

func (rp *RequestParams) Validate(p string, st *Step, add AddFunc) {
	a := proxy.ActionKind(st.Fault)
	if len(rp.API) == 0 {
		add(p+".api", "%s needs api: the Kafka APIs it acts on, by Kafka's names (e.g. [EndTxn], [Produce, Fetch])", a)
	}
	for i, name := range rp.API {
		k, ok := proxy.APIKeyByName(name)
		switch {
		case !ok:
			add(fmt.Sprintf("%s.api[%d]", p, i), "%q: not a Kafka API name (e.g. Produce, EndTxn, OffsetCommit, ShareAcknowledge)", name)
		case a == proxy.ErrorResponse && !proxy.ErrorResponseSupported(k):
			add(fmt.Sprintf("%s.api[%d]", p, i), "%s: error-response cannot answer it (use rewrite-error: forwarded, then the error replaced)", name)
		}
	}
	if rp.Client != nil && (*rp.Client < 0 || rp.Clients == "") {
		add(p+".client", "%d: a client index within a role (clients: producer, ...), 0 or more", *rp.Client)
	}
	if rp.First < 0 {
		add(p+".first", "%d: want 0 (every selected request) or more", rp.First)
	}
	if rp.Probability < 0 || rp.Probability > 1 || rp.Probability != rp.Probability {
		add(p+".probability", "%v: want a number in [0, 1] (0: always)", rp.Probability)
	}
	if rp.For < 0 || rp.Within < 0 || rp.Delay < 0 {
		add(p, "for, within and delay must not be negative")
	}
	needsDelay := a == proxy.Delay || a == proxy.DuplicateRequest
	switch {
	case needsDelay && rp.Delay == 0 && a == proxy.Delay:
		add(p+".delay", "%s needs delay: how long to hold the request (or, with response: true, its response)", a)
	case !needsDelay && rp.Delay != 0:
		add(p+".delay", "only for delay and duplicate-request")
	}
	if rp.Response && a != proxy.Delay {
		add(p+".response", "only for delay")
	}
	needsError := a == proxy.ErrorResponse || a == proxy.RewriteError
	if code, ok := proxy.ErrorCodeByName(rp.Error); needsError && (!ok || code == 0) {
		add(p+".error", "%q: %s needs error: a Kafka error name (NOT_LEADER_OR_FOLLOWER, COORDINATOR_LOAD_IN_PROGRESS, REQUEST_TIMED_OUT, CONCURRENT_TRANSACTIONS, ...)", rp.Error, a)
	} else if !needsError && rp.Error != "" {
		add(p+".error", "only for error-response and rewrite-error")
	}
	if st.Target != nil && st.Target.Partition < 0 && st.Target.Role == "" && len(st.Target.Nodes) == 0 {
		add(p+".target", "a target names brokers (a role or nodes), or leave it out for any broker")
	}
}

// CheckAgainst: the clients' role must be one the workload has.
func (rp *RequestParams) CheckAgainst(p string, _ *Step, v *ScenarioView, add AddFunc) {
	if rp.Clients == ReplicaRole {
		rp.checkReplica(p, v, add) // request_replica.go
		return
	}
	if rp.Clients == "" || rp.Clients == "all" {
		return
	}
	if _, ok := v.ClientRoles[rp.Clients]; !ok {
		add(p+".clients", "%q: the workload's client roles are %s (or all, or replica: the brokers' own requests)", rp.Clients, strings.Join(slices.Sorted(maps.Keys(v.ClientRoles)), ", "))
	}
}

func (rp *RequestParams) Build(st Step) Fault {
	return &requestFault{action: proxy.ActionKind(st.Fault), params: *rp, target: st.Target}
}

// requestFault is one request rule, added to the proxy at Inject and
// removed at its heal or after its window.
type requestFault struct {
	action proxy.ActionKind
	params RequestParams
	target *Target
	id     proxy.RuleID
	added  bool
}

func (f *requestFault) Name() string { return string(f.action) }

// Spec is the step's own keys as the invoke records them, every one that
// is set, so that the realised schedule replays the same step (a
// shrinker's repro.yaml).
func (f *requestFault) Spec() map[string]any {
	rp := f.params
	s := map[string]any{"api": rp.API}
	set := func(key string, v any, on bool) {
		if on {
			s[key] = v
		}
	}
	set("clients", rp.Clients, rp.Clients != "")
	set("client", rp.Client, rp.Client != nil)
	set("first", rp.First, rp.First != 0)
	set("probability", rp.Probability, rp.Probability != 0)
	set("for", rp.For, rp.For != 0)
	set("within", rp.Within, rp.Within != 0)
	set("delay", rp.Delay, rp.Delay != 0)
	set("response", rp.Response, rp.Response)
	set("error", rp.Error, rp.Error != "")
	set("target", f.target, f.target != nil)
	return s
}

// rule is the proxy rule the step asks for, its brokers resolved.
func (f *requestFault) rule(e *Env, brokers []int32) (proxy.Rule, error) {
	rp := f.params
	r := proxy.Rule{Action: f.action, Brokers: brokers, First: rp.First, Probability: rp.Probability,
		Seed: uint64(e.Seed), Delay: rp.Delay.Std(), DelayResponse: rp.Response}
	for _, name := range rp.API {
		k, _ := proxy.APIKeyByName(name)
		r.APIKeys = append(r.APIKeys, k)
	}
	if rp.Error != "" {
		r.Code, _ = proxy.ErrorCodeByName(rp.Error)
	}
	if f.action == proxy.DuplicateRequest && r.Delay == 0 {
		r.Delay = 100 * time.Millisecond
	}
	if rp.Clients == ReplicaRole {
		r.ClientIDPrefixes = []string{replicaClientPrefix(rp.Client)}
	} else if rp.Clients != "" && rp.Clients != "all" {
		prefix, ok := e.ClientPrefixes[rp.Clients]
		if !ok {
			return r, fmt.Errorf("the workload has no %s clients", rp.Clients)
		}
		if rp.Client != nil {
			r.ClientIDs = []string{fmt.Sprintf("%s%d", prefix, *rp.Client)}
		} else {
			r.ClientIDPrefixes = []string{prefix}
		}
	}
	return r, nil
}

func (f *requestFault) Inject(ctx context.Context, e *Env) ([]int32, map[string]any, error) {
	if e.Requests == nil {
		return nil, nil, errors.New("no request proxy on the clients' path (the run starts one when the scenario has a request fault)")
	}
	var brokers []int32
	if f.target != nil {
		ids, err := e.Resolve(ctx, f.target)
		if err != nil {
			return nil, nil, err
		}
		brokers = ids
	}
	r, err := f.rule(e, brokers)
	if err != nil {
		return nil, nil, err
	}
	id, err := e.Requests.Add(r)
	if err != nil {
		return nil, nil, err
	}
	f.id, f.added = id, true
	addRequestRule(e, id, string(f.action))
	d := map[string]any{"rule": int(id)}
	if brokers != nil {
		d["brokers"] = brokers
	}
	if len(r.ClientIDs) > 0 {
		d["client_ids"] = r.ClientIDs
	} else if len(r.ClientIDPrefixes) > 0 {
		d["client_id_prefixes"] = r.ClientIDPrefixes
	}
	if w := f.params.For.Std(); w > 0 {
		time.AfterFunc(w, func() { removeRequestRule(e, id) })
		d["for_ms"] = w.Milliseconds()
	}
	return brokers, d, nil
}

// Prove waits until the rule has acted once, at most within: a rule that
// selected nothing in that time had no effect.
func (f *requestFault) Prove(ctx context.Context, e *Env) (map[string]any, error) {
	within := f.params.Within.Std()
	if within == 0 {
		within = DefaultRequestWithin
	}
	deadline := time.Now().Add(within)
	for {
		c, _ := e.Requests.Counts(f.id)
		if c.Acted > 0 {
			return map[string]any{"matched": c.Matched, "acted": c.Acted}, nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return map[string]any{"matched": c.Matched, "acted": c.Acted},
				fmt.Errorf("%s matched %d request(s) of %s and acted on none within %s", f.action, c.Matched, strings.Join(f.params.API, ", "), within)
		}
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Heal removes this fault's rule.
func (f *requestFault) Heal(_ context.Context, e *Env) error {
	if f.added {
		removeRequestRule(e, f.id)
	}
	return nil
}

// requestRules are the rules the run's request faults added, for the heal
// and for naming each action's fault in its history event: the run's
// state of this room (nemesis.RoomState).
type requestRules struct {
	mu     sync.Mutex
	active map[proxy.RuleID]string // rule → its fault kind, while active
	faults map[proxy.RuleID]string // every rule → its fault kind
}

// rulesOf is e's rules.
func rulesOf(e *Env) *requestRules { return RoomState[requestRules](e) }

func addRequestRule(e *Env, id proxy.RuleID, fault string) {
	r := rulesOf(e)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.active == nil {
		r.active, r.faults = map[proxy.RuleID]string{}, map[proxy.RuleID]string{}
	}
	r.active[id], r.faults[id] = fault, fault
}

// removeRequestRule ends one rule (its window passed); false when it had
// ended already.
func removeRequestRule(e *Env, id proxy.RuleID) bool {
	r := rulesOf(e)
	r.mu.Lock()
	_, ok := r.active[id]
	delete(r.active, id)
	r.mu.Unlock()
	if ok {
		e.Requests.Remove(id)
	}
	return ok
}

// removeRequestRules ends every active rule and says what each did.
func removeRequestRules(e *Env) []map[string]any {
	r := rulesOf(e)
	r.mu.Lock()
	ids := make([]proxy.RuleID, 0, len(r.active))
	for id := range r.active {
		ids = append(ids, id)
	}
	r.mu.Unlock()
	slices.Sort(ids)
	var out []map[string]any
	for _, id := range ids {
		if !removeRequestRule(e, id) {
			continue
		}
		c, _ := e.Requests.Counts(id)
		out = append(out, map[string]any{"rule": int(id), "fault": r.fault(id), "matched": c.Matched, "acted": c.Acted})
	}
	return out
}

func (r *requestRules) fault(id proxy.RuleID) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.faults[id]
}

// RecordRequest writes one proxy action as a history event (f request,
// process -1, type info), naming the fault whose rule acted: the harness
// gives it to the proxy as its OnAction.
func (e *Env) RecordRequest(a proxy.Action) {
	ra := histories.RequestAction{Rule: int(a.RuleID), Action: string(a.Kind), API: a.API, Version: a.Version,
		CorrelationID: a.CorrelationID, ClientID: a.ClientID, Broker: a.Broker, DelayMS: a.Delay.Milliseconds(), Note: a.Note}
	if a.Code != 0 {
		ra.Code = proxy.ErrorName(a.Code)
	}
	for _, c := range a.ErrorCodes {
		ra.BrokerErrors = append(ra.BrokerErrors, proxy.ErrorName(c))
	}
	var nodes []int32
	if a.Broker >= 0 {
		nodes = []int32{a.Broker}
	}
	e.RecordEvent(histories.FRequest, histories.NemesisValue{Fault: rulesOf(e).fault(a.RuleID), Nodes: nodes, Details: ra.Details()})
}
