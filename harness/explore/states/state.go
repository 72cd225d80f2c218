package states

import (
	"fmt"
	"strings"
)

// Unknown is every component's value when the history holds no evidence
// for it.
const Unknown = "unknown"

// ISR levels: the in-sync replica count against min.insync.replicas and
// the replication factor. It is there because acks=all means "acked by
// every in-sync replica": at or under min.insync.replicas an acked record
// may sit on that many copies only, and the sequence losses (s2, s7)
// start from an ISR shrunk to the leader.
const (
	ISRFull     = "full"      // every replica in sync
	isrAboveMin = "above-min" // shrunk, still more than min.insync.replicas
	ISRAtMin    = "at-min"    // exactly min.insync.replicas: acks=all rests on that many copies
	isrUnderMin = "under-min" // fewer: acks=all sends are refused (NOT_ENOUGH_REPLICAS)
	// isrShrunk is fewer than every replica when min.insync.replicas is
	// not known (no run.json, or one that does not record it).
	isrShrunk = "shrunk"
)

// Leader states. It is there because what the leader can do decides what
// a fault does next: a live leader acks, a paused or killed one that the
// metadata still names stalls every client, a fenced one is about to lose
// the partition, and an offline partition waits for an election (clean,
// ELR or unclean).
const (
	LeaderAlive   = "alive"
	leaderPaused  = "paused"  // a pause op froze it (nemesis op, until resumed or healed)
	leaderDown    = "down"    // killed or powered off (nemesis op), the metadata still names it
	LeaderFenced  = "fenced"  // the controller fenced it (log marker or an until that held)
	LeaderOffline = "offline" // no leader (the observer's leader -1)
)

// ELR states. It is there because an ELR member may be elected without
// the data loss of an unclean election (KIP-966), and an ELR emptied
// leaves unclean election as the only way back (s13).
const (
	ELREmpty    = "empty"
	elrNonEmpty = "non-empty"
)

// Elections: the kind of the last leader election seen. It is there
// because an unclean election is where acked records are lost, and a
// clean or ELR one is the recovery a fault should have led to.
const (
	ElectionNone    = "none"    // no election seen in the run
	electionClean   = "clean"   // the new leader was in the ISR
	electionELR     = "elr"     // from the ELR (not in the ISR)
	ElectionUnclean = "unclean" // from outside both (or the controller's UNCLEAN marker)
)

// Truncation states. It is there because a replica truncating below its
// high watermark threw away records it had counted as committed: the
// other half of a loss, seen from the broker's side.
const (
	TruncNone = "none" // the logs were read and showed none, and the samples none
	TruncSeen = "seen" // a truncate-below-hw marker, or a replica's log end below a high watermark seen before
)

// Change states of the quorum and coordinator components: whether the
// thing moved since the previous fault or heal. They are there because
// faults on controllers and coordinators act through a leader change
// (KRaft's active controller, a transaction coordinator's partition
// leader), and a fault that moved none did not reach them.
const (
	same    = "same"
	changed = "changed"
)

// State is one partition's abstract state at a moment, with the cluster's
// quorum and coordinator components beside it.
type State struct {
	// ISR: the in-sync replica count against min.insync.replicas (ISR*
	// constants); evidence: the observer's isr, run.json's
	// topic_configs (or broker_configs) min.insync.replicas and
	// replication_factor.
	ISR string `json:"isr"`
	// Leader: Leader* constants; evidence: the observer's leader, the
	// nemesis's pause, resume, kill, start and heal ops (their nodes),
	// the controller's fencing markers and until ops on fenced brokers.
	Leader string `json:"leader"`
	// ELR: ELR* constants; evidence: the observer's elr.
	ELR string `json:"elr"`
	// Election: the last election's kind (Election* constants); evidence:
	// the observer's leader and epoch against the ISR and ELR of the
	// sample before, and the controller's UNCLEAN marker, which wins.
	Election string `json:"election"`
	// Truncation: Trunc* constants; evidence: truncate-below-hw markers
	// and the observer's log end offsets. Unknown when the logs were not
	// read and the samples showed none.
	Truncation string `json:"truncation"`
	// Quorum: whether the KRaft quorum's leader (id or epoch) changed
	// since the previous fault or heal; evidence: the observer's quorum
	// samples (unknown without any).
	Quorum string `json:"quorum"`
	// Coordinator: whether a transaction coordinator moved since the
	// previous fault or heal; evidence: move-coordinator ops' leaders
	// before and after (unknown in a run without any: nothing else in a
	// history follows the coordinators).
	Coordinator string `json:"coordinator"`
}

// String is the state as coverage keys and pages spell it, components in
// a fixed order.
func (s State) String() string {
	return fmt.Sprintf("isr=%s leader=%s elr=%s election=%s truncation=%s quorum=%s coordinator=%s",
		s.ISR, s.Leader, s.ELR, s.Election, s.Truncation, s.Quorum, s.Coordinator)
}

// Sampled says the observer had sampled the partition: every state but
// the one Abstract gives an op invoked before the partition's first
// sample (all its partition components unknown; a sampled partition's
// leader is always one of the Leader states).
func (s State) Sampled() bool { return s.Leader != Unknown }

// Parse is String's inverse (for coverage files read back); a component
// not named stays Unknown.
func Parse(text string) (State, error) {
	s := State{ISR: Unknown, Leader: Unknown, ELR: Unknown, Election: Unknown, Truncation: Unknown, Quorum: Unknown, Coordinator: Unknown}
	for _, kv := range strings.Fields(text) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || v == "" {
			return s, fmt.Errorf("state %q: %q is not component=value", text, kv)
		}
		switch k {
		case "isr":
			s.ISR = v
		case "leader":
			s.Leader = v
		case "elr":
			s.ELR = v
		case "election":
			s.Election = v
		case "truncation":
			s.Truncation = v
		case "quorum":
			s.Quorum = v
		case "coordinator":
			s.Coordinator = v
		default:
			return s, fmt.Errorf("state %q: unknown component %q", text, k)
		}
	}
	return s, nil
}

// Transition is what one fault (or heal) did to one partition: the state
// when it was invoked, and the state just before the next fault or heal
// was invoked (or at the end of the history), when its effect had had the
// time the schedule gave it.
type Transition struct {
	Partition int32 `json:"partition"`
	// Time is the op's invoke, ns on the history's clock.
	Time   int64 `json:"time"`
	Before State `json:"before"`
	// Fault is the op as a random mix names it (kill, partition-
	// leader-followers, ...), a heal as heal-<kind>.
	Fault string `json:"fault"`
	// Role is what the op struck, relative to this partition (Role*).
	Role  string `json:"role"`
	After State  `json:"after"`
}

// Key is the transition without its partition and time: what coverage
// counts.
func (t Transition) Key() string {
	return t.Before.String() + " | " + t.Fault + "@" + t.Role + " | " + t.After.String()
}

// Roles: what an op struck, relative to a partition. An op aimed by role
// (target.role) and a random schedule's explicit ids that happened to hit
// the leader are the same thing to Kafka: the role is read off the nodes
// the op touched against the partition's state before, where the op
// names them.
const (
	RoleLeader     = "leader"        // the partition's leader alone
	RoleFollowers  = "followers"     // in-sync followers only
	RoleLeaderPlus = "leader+others" // the leader and other nodes
	RoleOutOfISR   = "out-of-isr"    // brokers outside the ISR only
	RoleISR        = "isr"           // ISR members of an offline partition (who may lead again)
	RoleELR        = "elr"           // ELR members of an offline partition
	RoleController = "controller"    // controllers only
	RoleNone       = "none"          // no node (a config change)
	RoleAll        = "all"           // a heal of everything
	// RoleLinks is a link fault (partition, netem) aimed at another
	// partition's role or at none: its nodes are everything its cut
	// touched, so they say nothing of its aim. One aimed by role at this
	// partition is "links-of-<role>" (links-of-leader).
	RoleLinks      = "links"
	roleLinkPrefix = "links-of-"
)
