//go:build integration

package harness_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/checker"
	"github.com/kchaos/kchaos/checker/share"
	"github.com/kchaos/kchaos/histories"
)

// The request-fault stories p1-p6 (issue 38) on a real cluster (Kafka
// 4.4.0 unless KCHAOS_KAFKA_VERSION), asserted from the recorded history
// and results.json: each story's request fault acted as selected (its op
// ok with a proof that its rule acted, one request event per action, on
// the API and clients the story names) and the outcome its expect states.
// p1 represents the family in make test; the others run under make
// test-scenarios (KCHAOS_ALL_SCENARIOS=1).

// requestStory is what a story's request fault did, from the history.
type requestStory struct {
	proved  bool             // the fault's op completed ok with acted >= 1 in its proof
	actions []map[string]any // the details of each request event of the fault
}

// requestActions reads the request fault named fault from r's history:
// its op's proof and its request events. Every event must name api and a
// client id starting with client; an op that completed info (no effect)
// fails t.
func (r scenarioRun) requestActions(t *testing.T, fault, api, client string) requestStory {
	t.Helper()
	var s requestStory
	eachValue(t, r.events, func(e histories.Event) bool { return e.Process == histories.NemesisProcess },
		func(e histories.Event, v histories.NemesisValue) {
			switch {
			case e.F == fault && e.Type == histories.OK:
				p, _ := v.Details["proof"].(map[string]any)
				if acted, _ := p["acted"].(float64); acted >= 1 {
					s.proved = true
				}
			case e.F == fault && e.Type == histories.Info:
				t.Errorf("%s: %s (%v)", fault, e.Error, v.Details)
			case e.F == histories.FRequest && v.Fault == fault:
				d := v.Details
				gotAPI, _ := d["api"].(string)
				gotClient, _ := d["client_id"].(string)
				action, _ := d["action"].(string)
				if gotAPI != api || action != fault || !strings.HasPrefix(gotClient, client) {
					t.Errorf("%s: action %q on %s by %q, want %s on %s by %s*", fault, action, gotAPI, gotClient, fault, api, client)
				}
				if len(v.Nodes) != 1 {
					t.Errorf("%s: broker %v, want the one broker the request went to", fault, v.Nodes)
				}
				s.actions = append(s.actions, d)
				t.Logf("%s at %.1fs: %v", fault, float64(e.Time)/1e9, d)
			}
		})
	if !s.proved {
		t.Errorf("%s: no ok op with a proof that its rule acted", fault)
	}
	if len(s.actions) == 0 {
		t.Errorf("%s: no request event in the history", fault)
	}
	return s
}

// wantNone fails t for every anomaly of kinds the run counted.
func (r scenarioRun) wantNone(t *testing.T, story string, kinds ...string) {
	t.Helper()
	for _, k := range kinds {
		if n := r.count(k); n != 0 {
			t.Errorf("%s: %d %s, want none", story, n, k)
		}
	}
}

// TestScenarioP1EndTxnResponseDropped: p1's first four EndTxn answers are
// dropped (KIP-890 part 2); the producers time out, send EndTxn again and
// report each transaction as the coordinator wrote it: every committed
// value in the read_committed final read, none of a failed transaction,
// no transaction anomaly.
func TestScenarioP1EndTxnResponseDropped(t *testing.T) {
	r := runScenario(t, "p1")
	s := r.requestActions(t, "drop-response", "EndTxn", "kchaos-txn-producer-")
	if len(s.actions) > 4 {
		t.Errorf("p1: %d EndTxn answers dropped, want at most 4 (first: 4)", len(s.actions))
	}
	for _, d := range s.actions {
		// The answer the producer never heard: the coordinator had ended
		// the transaction (NONE) when it was dropped.
		if errs, _ := d["broker_errors"].([]any); len(errs) == 0 {
			t.Errorf("p1: a dropped EndTxn answer without the broker's error codes: %v", d)
		}
	}
	assertExactlyOnce(t, "p1", r)
}

// TestScenarioP2ProduceResponseDropped: p2's first three Produce answers
// are dropped; with idempotence on the retries are recognised (no
// duplicate), with it off they are appended again (duplicates counted,
// not against validity); nothing lost either way.
func TestScenarioP2ProduceResponseDropped(t *testing.T) {
	allScenarios(t)
	for _, idem := range []string{"true", "false"} {
		t.Run("idempotent="+idem, func(t *testing.T) {
			r := runScenario(t, "p2", "workload.idempotent="+idem)
			r.requestActions(t, "drop-response", "Produce", "kchaos-producer-")
			r.wantNone(t, "p2", checker.LostWrite, checker.OffsetReuse)
			dup := r.count(checker.Duplicate)
			switch {
			case idem == "true" && dup != 0:
				t.Errorf("p2: %d duplicates with idempotence on, want none", dup)
			case idem == "false" && dup == 0:
				t.Errorf("p2: no duplicate with idempotence off, want the retried batches appended again")
			}
			if r.res.Valid != checker.Valid {
				t.Errorf("p2: verdict %s, want valid (%v)", r.res.Valid, r.res.Reasons)
			}
		})
	}
}

// TestScenarioP3OffsetCommitResponseDropped: p3's OffsetCommit answers
// are dropped while member-0 leaves and the group rebalances; nothing is
// lost by commit and no committed offset goes back.
func TestScenarioP3OffsetCommitResponseDropped(t *testing.T) {
	allScenarios(t)
	r := runScenario(t, "p3")
	r.requestActions(t, "drop-response", "OffsetCommit", "kchaos-p3-member-")
	left := false
	for _, e := range r.events {
		if e.Process == histories.NemesisProcess && e.F == histories.FMemberLeave && e.Type == histories.OK {
			left = true
		}
	}
	if !left {
		t.Errorf("p3: no member-leave completed: the group did not rebalance")
	}
	r.wantNone(t, "p3", checker.LostByCommit, checker.CommitBackwards, checker.LostWrite)
	if st := r.res.Stats.Groups; st == nil || st.Delivered == 0 {
		t.Errorf("p3: the group delivered nothing (%+v)", st)
	}
}

// TestScenarioP4ShareAcknowledgeLost: the answer to share-0's
// ShareAcknowledge is dropped (the broker applied the accepts: never
// delivered again), then share-1's ShareAcknowledge request (never
// applied: its records come back); nothing lost, no record held twice or
// delivered after a confirmed accept.
func TestScenarioP4ShareAcknowledgeLost(t *testing.T) {
	allScenarios(t)
	r := runScenario(t, "p4")
	for fault, client := range map[string]string{"drop-response": "kchaos-p4-share-0", "drop-request": "kchaos-p4-share-1"} {
		if s := r.requestActions(t, fault, "ShareAcknowledge", client); len(s.actions) != 1 {
			t.Errorf("p4: %s acted %d times, want 1 (first: 1)", fault, len(s.actions))
		}
	}
	r.wantNone(t, "p4", share.Lost, share.DoubleAcquire, share.RedeliveredAfterAccept, share.DeliveryCount, checker.LostWrite)
	if r.count(share.Redelivery) == 0 {
		t.Errorf("p4: no record delivered again after share-1's acknowledgement was lost on the way")
	}
	t.Logf("p4: share redeliveries %d, unknown %d, verdict %s", r.count(share.Redelivery), r.count(share.Unknown), r.res.Valid)
}

// TestScenarioP5ProduceReplayedAfterEpochBump: p5's transactional Produce
// requests are replayed 2 s late; the leader refuses each (the replay's
// answer, in the request event, is an error) and nothing is appended
// twice.
func TestScenarioP5ProduceReplayedAfterEpochBump(t *testing.T) {
	allScenarios(t)
	r := runScenario(t, "p5")
	s := r.requestActions(t, "duplicate-request", "Produce", "kchaos-txn-producer-")
	for _, d := range s.actions {
		errs, _ := d["broker_errors"].([]any)
		refused := false
		for _, e := range errs {
			if e != "NONE" {
				refused = true
			}
		}
		if !refused {
			t.Errorf("p5: a replayed Produce the broker answered without an error: %v", d)
		}
	}
	r.wantNone(t, "p5", checker.Duplicate)
	assertExactlyOnce(t, "p5", r)
}

// TestScenarioP6FindCoordinatorUnavailable: p6's FindCoordinator
// requests are answered COORDINATOR_NOT_AVAILABLE while the coordinator
// moves to broker 0; the producers recover, nothing is lost.
func TestScenarioP6FindCoordinatorUnavailable(t *testing.T) {
	allScenarios(t)
	r := runScenario(t, "p6")
	s := r.requestActions(t, "error-response", "FindCoordinator", "kchaos-txn-producer-")
	for _, d := range s.actions {
		if d["code"] != "COORDINATOR_NOT_AVAILABLE" {
			t.Errorf("p6: FindCoordinator answered %v, want COORDINATOR_NOT_AVAILABLE", d["code"])
		}
	}
	moved := false
	for _, e := range r.events {
		if e.Process == histories.NemesisProcess && e.F == histories.FMoveCoordinator && e.Type == histories.OK {
			moved = true
		}
	}
	if !moved {
		t.Errorf("p6: no move-coordinator completed")
	}
	assertExactlyOnce(t, "p6", r)
}

// TestScenarioP7ReplicationResponsesDropped: p7 is s1 with its partition
// made by one API on the brokers' own path (the inter-broker route): the
// leader's answers to its followers' replication Fetch are dropped, one
// per follower (each follower's connection then stalls), the ISR shrinks
// to the leader, and s1's outcome follows: offline while broker 0 is
// down, nothing lost, broker 0 leads again. In make test: the one run of
// the inter-broker route on a real cluster.
func TestScenarioP7ReplicationResponsesDropped(t *testing.T) {
	r := runScenario(t, "p7")
	s := r.requestActions(t, "drop-response", "Fetch", "broker-")
	followers := map[string]bool{}
	for _, d := range s.actions {
		id, _ := d["client_id"].(string)
		var follower, fetcher int
		if _, err := fmt.Sscanf(id, "broker-%d-fetcher-%d", &follower, &fetcher); err != nil {
			t.Errorf("p7: a dropped Fetch answer for %q, want a replica fetcher's id", id)
		}
		followers[fmt.Sprint(follower)] = true
		if b, _ := d["broker"].(float64); b != 0 {
			t.Errorf("p7: a dropped Fetch answer from broker %v, want the leader 0's", d["broker"])
		}
	}
	if !followers["1"] || !followers["2"] || len(followers) != 2 {
		t.Errorf("p7: dropped answers to followers %v, want 1 and 2", followers)
	}
	assertS1(t, r)
}

// TestScenarioP8BrokerHeartbeatsDropped: p8 drops broker 2's heartbeats
// on their way to the active controller (the brokers' requests to a
// static quorum routed through the proxy): the controller fences broker
// 2 and elects broker 0 while broker 2 runs on; once the rule ends broker
// 2 heartbeats again and rejoins the ISR; nothing acked is lost. Under
// make test-scenarios (p7 represents the route in make test).
func TestScenarioP8BrokerHeartbeatsDropped(t *testing.T) {
	allScenarios(t)
	r := runScenario(t, "p8")
	s := r.requestActions(t, "drop-request", "BrokerHeartbeat", "2")
	for _, d := range s.actions {
		if id, _ := d["client_id"].(string); id != "2" {
			t.Errorf("p8: a dropped heartbeat of client %q, want broker 2's channel (client id 2)", id)
		}
		if b, _ := d["broker"].(float64); b < 1000 {
			t.Errorf("p8: a heartbeat dropped on its way to node %v, want a controller", d["broker"])
		}
	}
	// Its untils are not optional: runScenario fails unless broker 0 took
	// the lead and broker 2 rejoined the ISR.
	r.wantValidNoLoss(t, "p8")
}
