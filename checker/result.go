package checker

import (
	"encoding/json"
	"fmt"

	"github.com/kchaos/kchaos/checker/groupcheck"
	"github.com/kchaos/kchaos/checker/judge"
	"github.com/kchaos/kchaos/checker/linearize"
	"github.com/kchaos/kchaos/checker/logorder"
	"github.com/kchaos/kchaos/checker/metadata"
	"github.com/kchaos/kchaos/checker/retention"
	"github.com/kchaos/kchaos/checker/share"
	"github.com/kchaos/kchaos/checker/txncheck"
)

// Verdict is results.json's "valid": true, false or "unknown".
type Verdict int

const (
	Valid Verdict = iota
	Unknown
	Invalid
)

func (v Verdict) String() string {
	switch v {
	case Valid:
		return "valid"
	case Invalid:
		return "invalid"
	}
	return "unknown"
}

// MarshalJSON writes true, false or "unknown", as HISTORY.md fixes.
func (v Verdict) MarshalJSON() ([]byte, error) {
	switch v {
	case Valid:
		return []byte("true"), nil
	case Invalid:
		return []byte("false"), nil
	}
	return []byte(`"unknown"`), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (v *Verdict) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case "true":
		*v = Valid
	case "false":
		*v = Invalid
	case `"unknown"`:
		*v = Unknown
	default:
		return fmt.Errorf("valid: want true, false or \"unknown\", got %s", b)
	}
	return nil
}

// Result is what a check finds; it marshals to results.json.
type Result struct {
	Valid Verdict `json:"valid"`
	// Reasons says in words why the verdict is not true (and which anomalies
	// were found but do not count, such as duplicates from a producer that
	// was not idempotent).
	Reasons   []string       `json:"reasons,omitempty"`
	Anomalies Anomalies      `json:"anomalies"`
	Counts    map[string]int `json:"counts,omitempty"`
	// Explanations say the counted entries in words: lost writes and
	// reused offsets in ranges, the other log and order kinds per
	// partition, and the other domains' (transactions, groups, retention).
	Explanations []Explanation `json:"explanations,omitempty"`
	Linearizable *Linearizable `json:"linearizable,omitempty"`
	Stats        Stats         `json:"stats"`
	// Idempotent is the producer setting the check assumed.
	Idempotent bool `json:"producer_idempotent"`
	// Against lists the anomaly names that count against validity in this
	// check (CountsAgainst), whether or not any was found.
	Against []string `json:"counted_against_validity,omitempty"`
	// QuorumTerms are the KRaft leader epochs the quorum samples saw
	// (domain_metadata.go): information, e.g. how fast a deposed leader
	// resigned.
	QuorumTerms []metadata.Term `json:"quorum_terms,omitempty"`
	// Unexercised says why the checks held vacuously (also among the
	// reasons, and a cause of "unknown"): nothing sent, sends and commits
	// none of which was acknowledged, a group that was delivered nothing, metadata
	// changes none of which was acknowledged. A suite holds no expectation
	// against such a run.
	Unexercised []string `json:"unexercised,omitempty"`
}

// MarshalJSON writes results.json: "anomalies" (like every list and map)
// only when not empty, and the keys in the contract's order.
func (r *Result) MarshalJSON() ([]byte, error) {
	var anomalies *Anomalies
	if !r.Anomalies.empty() {
		anomalies = &r.Anomalies
	}
	return json.Marshal(struct {
		Valid        Verdict         `json:"valid"`
		Anomalies    *Anomalies      `json:"anomalies,omitempty"`
		Counts       map[string]int  `json:"counts,omitempty"`
		Stats        *Stats          `json:"stats"`
		Reasons      []string        `json:"reasons,omitempty"`
		Explanations []Explanation   `json:"explanations,omitempty"`
		Linearizable *Linearizable   `json:"linearizable,omitempty"`
		Idempotent   bool            `json:"producer_idempotent"`
		Against      []string        `json:"counted_against_validity,omitempty"`
		QuorumTerms  []metadata.Term `json:"quorum_terms,omitempty"`
		Unexercised  []string        `json:"unexercised,omitempty"`
	}{r.Valid, anomalies, r.Counts, &r.Stats, r.Reasons, r.Explanations, r.Linearizable, r.Idempotent, r.Against, r.QuorumTerms, r.Unexercised})
}

// Anomaly names, as HISTORY.md fixes them (package logorder owns the
// log's); Nonlinearizable is kchaos's extension (package linearize: porcupine
// found no linearization of a partition's log).
const (
	LostWrite        = logorder.LostWrite
	OffsetReuse      = logorder.OffsetReuse
	Duplicate        = logorder.Duplicate
	AbortedRead      = logorder.AbortedRead
	Unexpected       = logorder.Unexpected
	NonmonotonicSend = logorder.NonmonotonicSend
	PollSkip         = logorder.PollSkip
	NonmonotonicPoll = logorder.NonmonotonicPoll
	Unseen           = logorder.Unseen
	Nonlinearizable  = linearize.Nonlinearizable
)

// Anomalies lists each anomaly found, by name; a name is absent from
// results.json when its list is empty.
type Anomalies struct {
	// Log and order (package logorder): lost-write ... unseen.
	logorder.LogAnomalies
	// Retention (package retention): log-start-jump.
	retention.RetentionAnomalies
	// Linearizability (package linearize): nonlinearizable.
	linearize.LinAnomalies
	// Transactions (package txncheck): txn-lost-write ... txn-hanging.
	txncheck.TxnAnomalies
	// Consumer groups (package groupcheck): lost-by-commit,
	// commit-backwards, redelivery, delivery-outside-assignment. A domain
	// of its own package brings its entries as a struct embedded here:
	// its fields are promoted (Anomalies.LostByCommit) and marshal in
	// place.
	groupcheck.GroupAnomalies
	// Share groups (package share): share-lost ... share-unknown.
	share.ShareAnomalies
	// KRaft metadata (package metadata): metadata-lost ...
	// metadata-unavailable.
	metadata.MetadataAnomalies
}

func (a *Anomalies) empty() bool { return len(a.counts()) == 0 }

// Where and FaultRef are how every analyzer's entries say where the
// cluster stood and which fault came before (package judge owns them).
type (
	where    = judge.Where
	faultRef = judge.FaultRef
)

// held is what a read found at an offset (package judge owns it: the
// log and transaction domains' lost writes name it).
type held = judge.Held

// sendEntry is one acked send (unseen), of a plain send or of a
// committed txn (package judge owns it: both domains report unseen sends).
type sendEntry = judge.SendEntry
