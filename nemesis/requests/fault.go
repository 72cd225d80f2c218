package requests

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
	"github.com/kchaos/kchaos/nemesis/proxy"
)

// Build makes the step's request fault: its rule, not yet added.
func (rp *Params) Build(st nemesis.Step) nemesis.Fault {
	return &requestFault{action: proxy.ActionKind(st.Fault), params: *rp, target: st.Target}
}

// requestFault is one request rule, added to the proxy at Inject and
// removed at its heal or after its window.
type requestFault struct {
	action proxy.ActionKind
	params Params
	target *nemesis.Target
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
func (f *requestFault) rule(e *nemesis.Env, brokers []int32) (proxy.Rule, error) {
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
	if rp.Clients == replicaRole {
		r.ClientIDs, r.ClientIDPrefixes = replicaClients(rp.Client)
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

func (f *requestFault) Inject(ctx context.Context, e *nemesis.Env) ([]int32, map[string]any, error) {
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
func (f *requestFault) Prove(ctx context.Context, e *nemesis.Env) (map[string]any, error) {
	within := f.params.Within.Std()
	if within == 0 {
		within = defaultWithin
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
func (f *requestFault) Heal(_ context.Context, e *nemesis.Env) error {
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
func rulesOf(e *nemesis.Env) *requestRules { return nemesis.RoomState[requestRules](e) }

func addRequestRule(e *nemesis.Env, id proxy.RuleID, fault string) {
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
func removeRequestRule(e *nemesis.Env, id proxy.RuleID) bool {
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
func removeRequestRules(e *nemesis.Env) []map[string]any {
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

// Record writes one proxy action as a history event of e's (f request,
// process -1, type info), naming the fault whose rule acted: the harness
// gives it to the proxy as its OnAction.
func Record(e *nemesis.Env, a proxy.Action) {
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
