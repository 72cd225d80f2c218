package histories

import (
	"fmt"
	"maps"
	"slices"
)

// Consumer groups (extension of v1, docs/HISTORY.md "Consumer groups").
//
// A group member is a client process like any other: it follows the
// operation model (an invoke, one completion; a new process after an
// info). Its ops are:
//
//   - subscribe: the member joins group G on topic T with a rebalance
//     protocol. ok: it is a member (it knows its member id); fail: it is
//     not; info: unknown.
//   - poll: a v1 poll, whose invoke adds the group, the member id and the
//     generation the member was in when it polled. A reader of v1 sees a
//     plain poll and judges it as before.
//   - commit: the member commits offsets (the next offset to read, per
//     partition, as Kafka's OffsetCommit does). Outcomes as for sends: ok
//     means committed, fail definitely not (the coordinator refused:
//     ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID, REBALANCE_IN_PROGRESS, ...),
//     info unknown (a timeout, a lost connection). An ok completion lists
//     the partitions that committed; one of the invoke's partitions absent
//     from it did not (its error is in "errors").
//   - rebalance: what the client learned from a rebalance: the partitions
//     newly assigned to it, revoked from it, or lost (revoked without the
//     chance to commit, after the member was fenced or timed out), and its
//     generation after it. It is an invoke followed at once by an ok, like
//     assign: the client learns it, it does not ask for it.
//
// Generation is the classic protocol's generation id, or the KIP-848
// member epoch under the consumer protocol; -1 where the client cannot
// tell.

// Op names of group members.
const (
	FSubscribe = "subscribe"
	FCommit    = "commit"
	FRebalance = "rebalance"
)

// Rebalance protocols (SubscribeValue.Protocol).
const (
	ProtocolClassic  = "classic"
	ProtocolConsumer = "consumer" // KIP-848, Kafka 4.0+
)

// Delivery guarantees a group may declare (RunInfo.Group.Delivery).
const (
	AtLeastOnce = "at-least-once"
	ExactlyOnce = "exactly-once"
)

// SubscribeValue is a subscribe's value. The invoke names the member (the
// workload's stable name for it, kept by the process that replaces a
// killed one), the group, the topic and the protocol; an ok completion
// adds the member id the group gave (or the client chose, KIP-848).
type SubscribeValue struct {
	Group    string `json:"group"`
	Member   string `json:"member"`
	Topic    string `json:"topic"`
	Protocol string `json:"protocol"`
	// OffsetReset is where the group starts a partition it has no
	// committed offset for: "earliest" (absent) or "latest". With
	// "latest" the records below the position a member was reset to were
	// never the group's to read (docs/HISTORY.md says which the checker
	// excuses).
	OffsetReset string `json:"offset_reset,omitempty"`
	MemberID    string `json:"member_id,omitempty"`
	// Continues is the process whose client this one goes on with: that
	// process's op ended info, so its next op needs a new process (the
	// operation model), but the client, its membership and its
	// assignment are the same. Absent: a new client.
	Continues *int `json:"continues,omitempty"`
}

// GroupPoll is what a group member's poll invoke adds to a ReadRequest.
type GroupPoll struct {
	Group      string `json:"group,omitempty"`
	MemberID   string `json:"member_id,omitempty"`
	Generation *int32 `json:"generation,omitempty"`
}

// GroupReadRequest is a group member's poll invoke value: a v1 poll plus
// the group fields.
type GroupReadRequest struct {
	ReadRequest
	GroupPoll
}

// CommitValue is a commit's value: offsets are the next offsets to read,
// per partition (JSON object keys are strings). An ok completion's offsets
// are those that committed; errors names, per partition, why one did not.
type CommitValue struct {
	Group      string            `json:"group"`
	MemberID   string            `json:"member_id,omitempty"`
	Generation *int32            `json:"generation,omitempty"`
	Topic      string            `json:"topic"`
	Offsets    map[string]int64  `json:"offsets"`
	Errors     map[string]string `json:"errors,omitempty"`
	// Auto marks a commit the client made by itself (auto-commit, or the
	// commit before a revoke): the workload learns of it only when the
	// client reports its outcome, so its invoke is recorded at that
	// moment, just before its completion.
	Auto bool `json:"auto,omitempty"`
	// LeaderEpochs is the leader epoch each offset was committed with, as
	// the client's OffsetCommit carried it (-1: none, so a consumer that
	// starts from the offset cannot detect a truncation below it:
	// KAFKA-20507); absent where the driver cannot tell.
	LeaderEpochs map[string]int32 `json:"leader_epochs,omitempty"`
}

// RebalanceValue is a rebalance's value (the invoke's and the ok's are
// the same).
type RebalanceValue struct {
	Group      string  `json:"group"`
	MemberID   string  `json:"member_id,omitempty"`
	Generation *int32  `json:"generation,omitempty"`
	Topic      string  `json:"topic"`
	Assigned   []int32 `json:"assigned,omitempty"`
	Revoked    []int32 `json:"revoked,omitempty"`
	Lost       []int32 `json:"lost,omitempty"`
}

// GroupInfo is run.json's record of the consumer group (RunInfo.Group).
type GroupInfo struct {
	ID      string `json:"id"`
	Members int    `json:"members"`
	// Protocol is the members' protocol (ProtocolClassic or
	// ProtocolConsumer), or "mixed" when Protocols gives both.
	Protocol string `json:"protocol"`
	// Protocols is each member's protocol (member i's at i) when the
	// scenario gives them one by one (workload.group.protocols); absent
	// otherwise.
	Protocols []string `json:"protocols,omitempty"`
	Commit    string   `json:"commit"`
	// Delivery is what the scenario declares the group promises:
	// AtLeastOnce (absent) or ExactlyOnce. Only under exactly-once does a
	// redelivery count against validity.
	Delivery string `json:"delivery,omitempty"`
}

// Holdings follows which partitions each member process holds, by the
// recording rule (docs/HISTORY.md, "Consumer groups: what the checker
// proves"): a member's rebalances are recorded before it delivers from
// what they assign and after it stopped delivering from what they revoke
// or lose. A process holds what its ok rebalances assigned and did not
// take back since; a new client holds nothing, and a process that
// continues another's client holds what that one held. It is the one
// statement of the rule: OutsideAssignment (the integration tests) and
// the checker's delivery-outside-assignment both follow it. K is how a
// partition is named (a partition number here, the checker's
// topic-partition number there).
type Holdings[K comparable] struct {
	owns map[int]map[K]bool
}

// Subscribe starts process proc's membership (an ok subscribe); continues
// is the process whose client it goes on with, or nil.
func (h *Holdings[K]) Subscribe(proc int, continues *int) {
	if h.owns == nil {
		h.owns = map[int]map[K]bool{}
	}
	h.owns[proc] = map[K]bool{}
	if continues != nil {
		maps.Copy(h.owns[proc], h.owns[*continues]) // the same client
	}
}

// Rebalance applies an ok rebalance of process proc: it holds what was
// assigned and no longer what was revoked or lost.
func (h *Holdings[K]) Rebalance(proc int, assigned, revoked, lost []K) {
	if h.owns == nil {
		h.owns = map[int]map[K]bool{}
	}
	if h.owns[proc] == nil {
		h.owns[proc] = map[K]bool{}
	}
	for _, p := range assigned {
		h.owns[proc][p] = true
	}
	for _, p := range append(append([]K(nil), revoked...), lost...) {
		delete(h.owns[proc], p)
	}
}

// member reports whether proc subscribed or learned a rebalance.
func (h *Holdings[K]) member(proc int) bool {
	_, ok := h.owns[proc]
	return ok
}

// Holds reports whether proc holds partition p now.
func (h *Holdings[K]) Holds(proc int, p K) bool { return h.owns[proc][p] }

// Holders lists the processes that hold partition p now, in order.
func (h *Holdings[K]) Holders(p K) []int {
	var out []int
	for proc, held := range h.owns {
		if held[p] {
			out = append(out, proc)
		}
	}
	slices.Sort(out)
	return out
}

// Held lists what proc holds now, in the order less gives.
func (h *Holdings[K]) Held(proc int, less func(a, b K) int) []K {
	out := slices.Collect(maps.Keys(h.owns[proc]))
	slices.SortFunc(out, less)
	return out
}

// OutsideAssignment lists the deliveries of a group member's polls of a
// partition its recorded rebalances had not given it, or had taken back
// (Holdings). The workload's integration tests hold every group history
// to it; each entry names the poll, the process, the partition and the
// offset.
func OutsideAssignment(evs []Event) ([]string, error) {
	var h Holdings[int32]
	var out []string
	for _, e := range evs {
		if e.Type != OK {
			continue
		}
		switch e.F {
		case FSubscribe:
			var v SubscribeValue
			if err := e.Decode(&v); err != nil {
				return nil, fmt.Errorf("subscribe %d: %w", e.Index, err)
			}
			h.Subscribe(e.Process, v.Continues)
		case FRebalance:
			var v RebalanceValue
			if err := e.Decode(&v); err != nil {
				return nil, fmt.Errorf("rebalance %d: %w", e.Index, err)
			}
			h.Rebalance(e.Process, v.Assigned, v.Revoked, v.Lost)
		case FPoll:
			if !h.member(e.Process) {
				continue // not a group member's poll
			}
			var v ReadResult
			if err := e.Decode(&v); err != nil {
				return nil, fmt.Errorf("poll %d: %w", e.Index, err)
			}
			for _, r := range v.Records {
				if !h.Holds(e.Process, r.Partition) {
					out = append(out, fmt.Sprintf("poll %d by p%d: partition %d offset %d", e.Index, e.Process, r.Partition, r.Offset))
				}
			}
		}
	}
	return out, nil
}
