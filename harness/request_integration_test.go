//go:build integration

package harness_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/checker"
	"github.com/kchaos/kchaos/histories"
)

// requestScenario: idempotent franz-go producers through the request
// proxy, one request fault of each kind aimed at Produce (or, for a
// delay, at the consumer's Fetch), each acting on the first request it
// selects only, so that the history must hold exactly one request event
// per fault.
const requestScenario = `name: request-faults
cluster:
  brokers: 3
topic:
  name: orders
  partitions: 2
  replication_factor: 3
  configs:
    min.insync.replicas: "2"
workload:
  driver: franz
  producers: 2
  acks: all
  idempotent: true
  retries: 10
  consumers: 1
  request_timeout: 3s
  duration: 30s
nemesis:
  steps:
    - wait: 3s
    - {fault: drop-response, api: [Produce], clients: producer, client: 0, first: 1}
    - {fault: rewrite-error, api: [Produce], clients: producer, error: NOT_LEADER_OR_FOLLOWER, first: 1}
    - {fault: error-response, api: [Produce], clients: producer, error: REQUEST_TIMED_OUT, first: 1}
    - {fault: duplicate-request, api: [Produce], clients: producer, client: 1, first: 1, delay: 200ms}
    - {fault: reset-after-request, api: [Produce], clients: producer, first: 1}
    - {fault: drop-request, api: [Produce], clients: producer, client: 1, first: 1}
    - {fault: delay, api: [Fetch], clients: consumer, delay: 1s, response: true, first: 1, target: {role: leader, partition: 0}}
    - wait: 5s
    - heal: requests
final:
  read_timeout: 60s
`

// TestRequestFaults: every request fault kind acts exactly as selected on
// a real cluster. Each fault's op is ok with a proof that its rule acted
// once; the history holds one request event per fault, naming the API, a
// client of the role (and index) selected, the broker and the action;
// the heal removes the rules; and the idempotent producers lose nothing
// and write nothing twice, whatever answers they missed: a dropped or
// rewritten answer, a request answered by the proxy, a duplicate on the
// wire, a reset connection, a request that never arrived.
func TestRequestFaults(t *testing.T) {
	f := filepath.Join(t.TempDir(), "requests.yaml")
	if err := os.WriteFile(f, []byte(requestScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runScenario(t, f)
	r.wantValidNoLoss(t, "requests")
	if n := r.count(checker.Duplicate); n != 0 {
		t.Errorf("requests: %d duplicate(s) with idempotent producers, want none", n)
	}

	type want struct {
		api, client string // client: the client id the action names, or a prefix ending in "-"
	}
	wants := map[string]want{
		"drop-response":       {"Produce", "kchaos-producer-0"},
		"rewrite-error":       {"Produce", "kchaos-producer-"},
		"error-response":      {"Produce", "kchaos-producer-"},
		"duplicate-request":   {"Produce", "kchaos-producer-1"},
		"reset-after-request": {"Produce", "kchaos-producer-"},
		"drop-request":        {"Produce", "kchaos-producer-1"},
		"delay":               {"Fetch", "kchaos-consumer-"},
	}
	proved := map[string]bool{}
	actions := map[string]int{}
	eachValue(t, r.events, func(e histories.Event) bool { return e.Process == histories.NemesisProcess },
		func(e histories.Event, v histories.NemesisValue) {
			if _, ok := wants[e.F]; ok && e.Type == histories.OK {
				p, _ := v.Details["proof"].(map[string]any)
				if acted, _ := p["acted"].(float64); acted >= 1 {
					proved[e.F] = true
				} else {
					t.Errorf("%s: ok without a proof that it acted: %v", e.F, v.Details)
				}
			}
			if _, ok := wants[e.F]; ok && e.Type == histories.Info {
				t.Errorf("%s: %s (%v)", e.F, e.Error, v.Details)
			}
			if e.F != histories.FRequest {
				return
			}
			w, ok := wants[v.Fault]
			if !ok {
				t.Errorf("request event for %q, no such fault in the scenario: %v", v.Fault, v.Details)
				return
			}
			actions[v.Fault]++
			api, _ := v.Details["api"].(string)
			client, _ := v.Details["client_id"].(string)
			action, _ := v.Details["action"].(string)
			if api != w.api || action != v.Fault {
				t.Errorf("%s: action %q on %s, want %s on %s", v.Fault, action, api, v.Fault, w.api)
			}
			if strings.HasSuffix(w.client, "-") && !strings.HasPrefix(client, w.client) || !strings.HasSuffix(w.client, "-") && client != w.client {
				t.Errorf("%s: client %q, want %s", v.Fault, client, w.client)
			}
			if len(v.Nodes) != 1 {
				t.Errorf("%s: broker %v, want the one broker the request went to", v.Fault, v.Nodes)
			}
			t.Logf("%s at %.1fs: %v", v.Fault, float64(e.Time)/1e9, v.Details)
		})
	for f := range wants {
		if !proved[f] {
			t.Errorf("%s: no ok op with its proof", f)
		}
		if actions[f] != 1 {
			t.Errorf("%s: %d request events, want exactly 1 (first: 1)", f, actions[f])
		}
	}
}
