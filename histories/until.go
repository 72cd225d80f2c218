package histories

import (
	"encoding/json"
	"fmt"
)

// Until is the value.details of an until op (FUntil): a scripted wait for
// a cluster condition. The condition is recorded both as the scenario
// spells it and field by field, so that a reader (the audit's wording)
// can say "broker 0 never led again" without parsing the text. Held and
// Optional say which branch the story took: an optional until that did
// not hold let the story go on (its completion is then fail, not an
// error of the run).
type Until struct {
	// Condition is the condition as a scenario spells it
	// ("partition 0 leader 0").
	Condition string  `json:"condition"`
	Partition int32   `json:"partition"`
	Leader    *int32  `json:"leader,omitempty"`
	ISR       []int32 `json:"isr,omitempty"`
	Offline   *bool   `json:"offline,omitempty"`
	// HighWatermark is "at least"; Live and Fenced name brokers.
	HighWatermark *int64 `json:"high_watermark,omitempty"`
	// OpenTxn: a transaction open on the partition (its last stable
	// offset below its high watermark), or none.
	OpenTxn *bool   `json:"open_txn,omitempty"`
	Live    []int32 `json:"live,omitempty"`
	Fenced  []int32 `json:"fenced,omitempty"`
	// ShareStart is "at least": the share group's start offset on the
	// partition.
	ShareStart *int64 `json:"share_start_offset,omitempty"`
	// QuorumLeader: a controller leads the KRaft quorum (true) or none
	// does (false), as the controllers answer (a bootstrap schedule's
	// wait for the first leader).
	QuorumLeader *bool `json:"quorum_leader,omitempty"`
	// Struck is the condition on the nodes the last fault step touched
	// (StruckFenced, out-of-isr), and StruckNodes those nodes, as the
	// runner resolved them when the wait began.
	Struck      string  `json:"struck,omitempty"`
	StruckNodes []int32 `json:"struck_nodes,omitempty"`
	// Optional marks a soft wait (`optional: true`).
	Optional bool `json:"optional,omitempty"`
	// TimeoutMS is the wait's bound.
	TimeoutMS int64 `json:"timeout_ms"`
	// Held is set on the completion: the condition held within the
	// timeout (TookMS after the wait began).
	Held   bool  `json:"held"`
	TookMS int64 `json:"took_ms,omitempty"`
	// LastSeen is what the last look saw when the condition did not hold.
	LastSeen string `json:"last_seen,omitempty"`
}

// Details renders u as a nemesis op's value.details.
func (u Until) Details() map[string]any {
	b, err := json.Marshal(u)
	if err != nil {
		panic(err) // plain fields only: cannot fail
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

// UntilOf reads an until op's details back.
func UntilOf(v NemesisValue) (Until, error) {
	var u Until
	b, err := json.Marshal(v.Details)
	if err == nil {
		err = json.Unmarshal(b, &u)
	}
	if err != nil {
		return u, fmt.Errorf("until details: %w", err)
	}
	return u, nil
}

// StruckFenced is Until.Struck's value for "every node the last fault
// touched is fenced" (nemesis.StruckFenced), which the state tracker
// reads as those nodes fenced once the until held.
const StruckFenced = "fenced"
