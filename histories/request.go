package histories

import (
	"encoding/json"
	"fmt"
	"strings"
)

// RequestAction is the value.details of a request event (FRequest): one
// action the request proxy took on one request of one client. It is
// defined here, beside the vocabulary, because it is part of the
// history's contract: the nemesis writes it (Details) and the checker and
// the report read it back (RequestOf), so that the field names have one
// owner and nobody parses the map by hand.
type RequestAction struct {
	// Rule is the proxy rule that acted (the request fault's op carries
	// the same number in its details.rule).
	Rule int `json:"rule"`
	// Action is what the proxy did: the request fault's kind
	// (drop-request, drop-response, delay, ...).
	Action string `json:"action"`
	// API and Version are the request's, API by Kafka's name
	// (ShareAcknowledge, EndTxn, ...).
	API     string `json:"api"`
	Version int16  `json:"version"`
	// CorrelationID is the client's correlation id of the request acted
	// on; ClientID the client id it sent.
	CorrelationID int32  `json:"correlation_id"`
	ClientID      string `json:"client_id"`
	// Broker is the broker the request went to (-1: a bootstrap address
	// not yet tied to a node id).
	Broker int32 `json:"broker"`
	// Code is the error an error-response or rewrite-error gave the
	// client, by Kafka's name.
	Code string `json:"code,omitempty"`
	// BrokerErrors are the errors of the broker's own answer the client
	// did not see (a dropped or rewritten response, a duplicate's).
	BrokerErrors []string `json:"broker_errors,omitempty"`
	// DelayMS is a delay's length or a duplicate's gap.
	DelayMS int64 `json:"delay_ms,omitempty"`
	// Note says what else happened ("no response").
	Note string `json:"note,omitempty"`
}

// Details renders a as a request event's value.details.
func (a RequestAction) Details() map[string]any {
	b, err := json.Marshal(a)
	if err != nil {
		panic(err) // plain fields only: cannot fail
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

// RequestOf reads a request event's details back. An action without its
// action or API names nothing, so it is an error (bad input), never a
// zero.
func RequestOf(v NemesisValue) (RequestAction, error) {
	var a RequestAction
	b, err := json.Marshal(v.Details)
	if err == nil {
		err = json.Unmarshal(b, &a)
	}
	switch {
	case err != nil:
		return a, fmt.Errorf("request details: %w", FieldError(err))
	case a.Action == "":
		return a, fmt.Errorf("request details: missing field %q", "action")
	case a.API == "":
		return a, fmt.Errorf("request details: missing field %q", "api")
	}
	return a, nil
}

// String words the action as explanations and the report name it:
// "drop-request of ShareAcknowledge v2 (correlation id 56) from
// kchaos-p4-share-1 to broker 1", then in parentheses the error given,
// the broker's own answer the client did not see, the delay, the note.
func (a RequestAction) String() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s of %s v%d (correlation id %d)", a.Action, a.API, a.Version, a.CorrelationID)
	if a.ClientID != "" {
		sb.WriteString(" from " + a.ClientID)
	}
	if a.Broker >= 0 {
		fmt.Fprintf(&sb, " to broker %d", a.Broker)
	}
	var more []string
	if a.Code != "" {
		more = append(more, "answered "+a.Code)
	}
	if len(a.BrokerErrors) > 0 {
		more = append(more, "the broker had answered "+strings.Join(a.BrokerErrors, ", "))
	}
	if a.DelayMS > 0 {
		more = append(more, fmt.Sprintf("%d ms", a.DelayMS))
	}
	if a.Note != "" {
		more = append(more, a.Note)
	}
	if len(more) > 0 {
		sb.WriteString(" (" + strings.Join(more, "; ") + ")")
	}
	return sb.String()
}

// ShareMemberClientID is the client id of share group group's member
// member (the member a share-subscribe names): a request event names a
// client only by its client id, so this convention is what ties a
// request action to the member whose deliveries it touched. The
// workload's drivers name their share members' clients by it.
func ShareMemberClientID(group, member string) string { return "kchaos-" + group + "-" + member }
