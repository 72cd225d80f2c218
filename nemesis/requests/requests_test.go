package requests

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/kchaos/kchaos/nemesis"
	"github.com/kchaos/kchaos/nemesis/nemesistest"
	"github.com/kchaos/kchaos/nemesis/proxy"
)

// TestKindsRegistered: the room's kinds are registered, after the seam's
// own and in the room's order, each a request fault.
func TestKindsRegistered(t *testing.T) {
	all := nemesis.Kinds()
	if len(all) < len(kinds) {
		t.Fatalf("%d kinds registered, fewer than the room's %d", len(all), len(kinds))
	}
	if i := nemesistest.KindsRegisteredTogether(t, kinds...); i >= 0 && i+len(kinds) != len(all) {
		t.Errorf("registered at %d-%d of %d kinds: want the room's last", i, i+len(kinds)-1, len(all))
	}
	for _, k := range all[len(all)-len(kinds):] {
		if !k.Requests {
			t.Errorf("%s is not marked Requests", k.Name)
		}
	}
}

// fakeProxy counts what the ledger asks of the proxy.
type fakeProxy struct{ removed []proxy.RuleID }

func (p *fakeProxy) Add(proxy.Rule) (proxy.RuleID, error) { return 0, nil }
func (p *fakeProxy) Remove(id proxy.RuleID)               { p.removed = append(p.removed, id) }
func (p *fakeProxy) Counts(id proxy.RuleID) (proxy.Counts, bool) {
	return proxy.Counts{Matched: 2 * int64(id), Acted: int64(id)}, true
}

// TestRulesLedger: a rule ends once (its window, its fault's heal, the
// requests heal, whichever comes first), the heal says what each rule it
// ended did, and each Env keeps its own rules.
func TestRulesLedger(t *testing.T) {
	px := &fakeProxy{}
	e := &nemesis.Env{Requests: px}
	addRequestRule(e, 2, "delay")
	addRequestRule(e, 1, "drop-response")
	if !removeRequestRule(e, 2) || removeRequestRule(e, 2) {
		t.Error("a rule must end exactly once")
	}
	addRequestRule(e, 3, "error-response")
	got := removeRequestRules(e)
	want := []map[string]any{
		{"rule": 1, "fault": "drop-response", "matched": int64(2), "acted": int64(1)},
		{"rule": 3, "fault": "error-response", "matched": int64(6), "acted": int64(3)},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("heal: %v, want %v", got, want)
	}
	if !slices.Equal(px.removed, []proxy.RuleID{2, 1, 3}) {
		t.Errorf("removed from the proxy: %v, want [2 1 3]", px.removed)
	}
	if f := rulesOf(e).fault(2); f != "delay" {
		t.Errorf("an ended rule's fault: %q, want delay (its late actions are still named)", f)
	}
	if f := rulesOf(&nemesis.Env{}).fault(1); f != "" {
		t.Errorf("another Env's rule: %q", f)
	}
}

// TestReplicaClients: clients: replica selects every broker's requests to
// the other nodes by Kafka's own client ids, and client: N broker N's only
// (its bare id exactly, so that broker 1 does not select broker 10's).
func TestReplicaClients(t *testing.T) {
	one := 1
	for _, tc := range []struct {
		broker        *int
		ids, prefixes string
	}{
		{nil, "[]", "[broker- raft-client-]"},
		{&one, "[1 raft-client-1]", "[broker-1-]"},
	} {
		ids, prefixes := replicaClients(tc.broker)
		if fmt.Sprint(ids) != tc.ids || fmt.Sprint(prefixes) != tc.prefixes {
			t.Errorf("broker %v: ids %v prefixes %v, want %s %s", tc.broker, ids, prefixes, tc.ids, tc.prefixes)
		}
	}
}
