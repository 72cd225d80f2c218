package histories

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestRequestOf: what the nemesis writes (Details) reads back the same,
// a recorded event's value decodes, and an action without its action or
// API is bad input naming the field.
func TestRequestOf(t *testing.T) {
	full := RequestAction{Rule: 2, Action: "rewrite-error", API: "EndTxn", Version: 4, CorrelationID: 7, ClientID: "kchaos-txn-producer-0",
		Broker: 1, Code: "NOT_LEADER_OR_FOLLOWER", BrokerErrors: []string{"NONE"}, DelayMS: 200, Note: "no response"}
	got, err := RequestOf(NemesisValue{Fault: "rewrite-error", Details: full.Details()})
	if err != nil || !reflect.DeepEqual(got, full) {
		t.Fatalf("round trip: %+v, %v; want %+v", got, err, full)
	}
	// A p4 run's event (4.4.0), as recorded.
	line := `{"fault":"drop-request","nodes":[1],"details":{"action":"drop-request","api":"ShareAcknowledge","broker":1,` +
		`"client_id":"kchaos-p4-share-1","correlation_id":56,"rule":2,"version":2}}`
	var v NemesisValue
	if err := json.Unmarshal([]byte(line), &v); err != nil {
		t.Fatal(err)
	}
	a, err := RequestOf(v)
	want := RequestAction{Rule: 2, Action: "drop-request", API: "ShareAcknowledge", Version: 2, CorrelationID: 56, ClientID: "kchaos-p4-share-1", Broker: 1}
	if err != nil || !reflect.DeepEqual(a, want) {
		t.Fatalf("recorded: %+v, %v; want %+v", a, err, want)
	}
	for _, tc := range []struct {
		name    string
		details map[string]any
		want    string
	}{
		{"no action", map[string]any{"api": "Produce"}, `"action"`},
		{"no api", map[string]any{"action": "delay"}, `"api"`},
		{"no details", nil, `"action"`},
		{"a string correlation id", map[string]any{"action": "delay", "api": "Produce", "correlation_id": "7"}, `"correlation_id"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := RequestOf(NemesisValue{Details: tc.details})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want one naming %s", err, tc.want)
			}
		})
	}
}

// TestRequestString: an action worded as explanations name it.
func TestRequestString(t *testing.T) {
	for _, tc := range []struct {
		a    RequestAction
		want string
	}{
		{RequestAction{Action: "drop-response", API: "ShareAcknowledge", Version: 2, CorrelationID: 24, ClientID: "kchaos-p4-share-0",
			BrokerErrors: []string{"NONE"}},
			"drop-response of ShareAcknowledge v2 (correlation id 24) from kchaos-p4-share-0 to broker 0 (the broker had answered NONE)"},
		{RequestAction{Action: "error-response", API: "FindCoordinator", Version: 6, CorrelationID: 3, ClientID: "c", Broker: -1, Code: "COORDINATOR_NOT_AVAILABLE"},
			"error-response of FindCoordinator v6 (correlation id 3) from c (answered COORDINATOR_NOT_AVAILABLE)"},
		{RequestAction{Action: "delay", API: "Produce", Version: 11, CorrelationID: 9, Broker: 2, DelayMS: 2000, Note: "no response"},
			"delay of Produce v11 (correlation id 9) to broker 2 (2000 ms; no response)"},
	} {
		if got := tc.a.String(); got != tc.want {
			t.Errorf("%+v:\n got %s\nwant %s", tc.a, got, tc.want)
		}
	}
}

// TestShareMemberClientID: the convention the drivers name their share
// members' clients by.
func TestShareMemberClientID(t *testing.T) {
	if got := ShareMemberClientID("p4", "share-1"); got != "kchaos-p4-share-1" {
		t.Fatalf("%s", got)
	}
}
