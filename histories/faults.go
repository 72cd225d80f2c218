package histories

import "slices"

// The fault vocabulary: the f of every nemesis op (process -1), what kind
// of op it is, which ops end a lasting fault, and how a report draws it.
// It is defined once, here, because it is part of the history's contract:
// the nemesis writes these names, the checker reads them to tell faults
// from heals, and the report pairs and colours them. Each of those
// packages imports histories; none of them spells a fault name itself.

// Nemesis op names (the f of nemesis ops).
const (
	FPartition      = "partition"
	FPause          = "pause"
	FResume         = "resume"
	FKill           = "kill"
	FStart          = "start"
	FRestart        = "restart"
	FLoseUnflushed  = "lose-unflushed"
	FSetConfig      = "set-config"
	FElectUnclean   = "elect-unclean"
	FElectPreferred = "elect-preferred"
	// FUpgrade restarts one node on another Kafka release with its data
	// (a rolling upgrade is one op per node); FSetFeature sets finalized
	// feature levels live (metadata.version at an upgrade's finalisation,
	// eligible.leader.replicas.version, transaction.version).
	FUpgrade    = "upgrade"
	FSetFeature = "set-feature"
	// Client faults on consumer-group members (the workload's clients,
	// not the cluster's nodes; value.details.member names the member):
	// FMemberKill cuts a member's client off and closes it without leaving
	// (a crashed process), FMemberLeave makes it leave the group cleanly,
	// FMemberStart starts a new process in its place (undoing both), and
	// FMemberStall stops it for value.details.for, past the rebalance
	// timeout (max.poll.interval) if long enough.
	FMemberKill  = "member-kill"
	FMemberLeave = "member-leave"
	FMemberStart = "member-start"
	FMemberStall = "member-stall"
	// FNetem degrades chosen links (delay, jitter, loss, duplication,
	// reordering, a bandwidth limit) with tc qdiscs inside the nodes;
	// FCutClients drops the traffic between the client side (the kchaos
	// host, where the workload runs) and chosen brokers' client port.
	FNetem      = "netem"
	FCutClients = "cut-clients"
	// FMoveCoordinator makes one broker the transaction coordinator of the
	// workload's transactional ids (the leader of the __transaction_state
	// partitions that own them): a placement, not a failure, so that a
	// story can put the coordinator where its fault strikes.
	FMoveCoordinator = "move-coordinator"
	// FMoveLeader makes one broker the leader of a partition of the
	// workload's topic (its replicas reordered, a preferred election): a
	// placement too (w3 puts partition 0's leader on its share
	// coordinator, so that the coordinator confirms that share-partition's
	// acks alone once cut off).
	FMoveLeader = "move-leader"
	// FDiskFail makes one log dir of a broker unwritable, FDiskFull fills
	// a bounded one: Kafka takes the dir's replicas offline (the broker
	// halts if it is the metadata log's dir). FDiskSlow limits the
	// broker's block I/O on the dir's disk (its fsyncs and cold reads
	// stall). Heal kind HealDisk undoes all three.
	FDiskFail = "disk-fail"
	FDiskFull = "disk-full"
	FDiskSlow = "disk-slow"
	// FProducerCrash crashes one of the workload's plain producers: its
	// client closed without a flush (what it had in flight completes
	// info), then, after the op's down time, a new client with new
	// processes (and a new producer id) in its place. The client side's
	// half of a failure, where the brokers are fine.
	FProducerCrash = "producer-crash"
	// FStopProducers ends the workload's producing (no new sends or
	// transactions; consumers go on): a client-side act, so that a story
	// can leave a producer silent (KAFKA-20716's hanging transaction
	// closes if its producer ever writes to the partition again).
	FStopProducers = "stop-producers"
	// FAbortHanging is an operator's recovery: every transaction that
	// holds a partition's last stable offset while its coordinator does
	// not hold it open is aborted, as `kafka-transactions.sh abort` does
	// (WriteTxnMarkers, KIP-664).
	FAbortHanging = "abort-hanging"
	// FAddController and FRemoveController change the KRaft quorum's voter
	// set (KIP-853: AddRaftVoter, RemoveRaftVoter) on a dynamic quorum:
	// value.details holds Kafka's answers and the voter set before and
	// after (DescribeQuorum). Each is instant: a voter set change is no
	// fault that a heal undoes, only another change.
	FAddController    = "add-controller"
	FRemoveController = "remove-controller"
	FHeal             = "heal"
	// FSchedule is recorded once at the start of a run: the schedule's
	// mode and seed, so that a random run can be replayed. It is no fault.
	FSchedule = "schedule"
	// FUntil records a scripted `until` step: the condition waited for
	// (value.details, see Until) and whether it held (ok) or not within
	// its timeout (fail). It is no fault; it is how a report tells which
	// branch a story took when a soft (optional) wait timed out.
	FUntil = "until"
	// FRequest records one action of a request fault (nemesis/requests)
	// as the proxy took it: value.fault is the fault whose rule acted,
	// value.nodes the broker, value.details the action, the API and its
	// version, the correlation id, the client id, the error code given and
	// the broker's own error codes the client did not see. It is no fault
	// of its own (the request fault's op is), so it is bookkeeping.
	FRequest = "request"
)

// HealAll is the value.fault of a heal op that undoes every kind of fault
// (the final heal); an empty value.fault means the same.
const HealAll = "all"

// HealMember is the heal kind of the member faults: it starts every group
// member that a member-kill or member-leave left without a client.
const HealMember = "member"

// HealDisk is the heal kind of the disk faults: every log dir writable
// again, every fill file removed and every block I/O limit lifted. (Kafka
// keeps a dir that failed offline until the broker restarts.)
const HealDisk = "disk"

// HealRequests is the heal kind of the request faults: every rule they
// added to the request proxy removed.
const HealRequests = "requests"

// Effect is how a nemesis op acts on the cluster.
type Effect string

const (
	// Lasting faults stay in effect until an op of their UndoneBy ends them.
	Lasting Effect = "lasting"
	// Instant faults act once and need no undoing (a restart, a config
	// change, an election).
	Instant Effect = "instant"
	// Undo ops only end lasting faults; they are no fault of their own.
	Undo Effect = "undo"
	// Bookkeeping ops record something about the run (the schedule).
	Bookkeeping Effect = "bookkeeping"
)

// OpFacts describes one nemesis op name.
type OpFacts struct {
	Name   string
	Effect Effect
	// Heal is the heal kind (a step's `heal:`, a heal op's value.fault)
	// that undoes a lasting fault: "partition" removes every kchaos rule,
	// "pause" resumes, "kill" starts what is down (killed or powered off),
	// "disk" makes every log dir writable and removes the fills.
	Heal string
	// UndoneBy are the ops that end a lasting fault on the nodes they
	// name (a heal op only when its value.fault covers the fault, see
	// HealCovers).
	UndoneBy []string
	// Label is the text a report draws for the fault: the name itself, so
	// that a report reads like the history it came from.
	Label string
	// Color is the report's colour for the fault (CSS hex).
	Color string
	// CanLoseAcked marks the faults that can lose acknowledged records by
	// themselves (a crash, a power cut, an election that may be unclean, a
	// config change that allows one): an explanation names these first.
	CanLoseAcked bool
	// OnClients marks the ops that act on kchaos's own clients (a group
	// or share member, a producer), not on a broker or controller: they
	// cannot change a partition's leader or what Kafka persisted.
	OnClients bool
}

// OtherFaultColor is the report's colour for an op it does not know.
const OtherFaultColor = "#6b6b6b"

// vocabulary is the ops that are no fault kind of the nemesis's: the heal
// and the bookkeeping. The fault kinds' own rows are declared by
// each kind in package nemesis, where the fault is written, and reach this
// table through RegisterFault (kindFacts holds them for readers that do
// not link the nemesis, such as the checker and the report: it is
// generated from the kinds, faults_kinds.go).
var vocabulary = []OpFacts{
	{Name: FHeal, Effect: Undo, Color: OtherFaultColor},
	{Name: FSchedule, Effect: Bookkeeping, Color: OtherFaultColor},
	{Name: FUntil, Effect: Bookkeeping, Color: OtherFaultColor},
	{Name: FRequest, Effect: Bookkeeping, Color: OtherFaultColor},
}

// faults is the fault kinds' rows (registration order), then the
// vocabulary: lasting and instant faults first, as allFaults promises.
var faults = slices.Concat(kindFacts, vocabulary)

// RegisterFault declares (or declares again, replacing the row of the
// same name in place) the history facts of a fault kind: its kind, the
// heal kind and ops that undo it, its colour and whether it may lose
// acked records. Package nemesis calls it for every kind it registers,
// so that the facts a history is read by are the ones the kind itself
// declares; the returned func takes a new name out again (a test's
// kind). Not safe to call while histories are being read.
func RegisterFault(f OpFacts) (undo func()) {
	if f.Label == "" {
		f.Label = f.Name
	}
	if i := slices.IndexFunc(faults, func(x OpFacts) bool { return x.Name == f.Name }); i >= 0 {
		old := faults[i]
		faults[i] = f
		return func() { faults[slices.IndexFunc(faults, func(x OpFacts) bool { return x.Name == f.Name })] = old }
	}
	// Before the vocabulary, so that fault kinds stay first.
	at := len(faults) - len(vocabulary)
	faults = slices.Insert(faults, at, f)
	return func() {
		faults = slices.DeleteFunc(faults, func(x OpFacts) bool { return x.Name == f.Name })
	}
}

func init() {
	for i := range faults {
		if faults[i].Label == "" {
			faults[i].Label = faults[i].Name
		}
	}
}

// allFaults returns every nemesis op name's description: the fault kinds in
// the nemesis's registry order, then the heal and the bookkeeping.
func allFaults() []OpFacts { return slices.Clone(faults) }

// LookupFault describes the nemesis op f.
func LookupFault(f string) (OpFacts, bool) {
	i := slices.IndexFunc(faults, func(x OpFacts) bool { return x.Name == f })
	if i < 0 {
		return OpFacts{}, false
	}
	return faults[i], true
}

// LosesAcked reports whether the op f can by itself lose acked records.
func LosesAcked(f string) bool {
	x, _ := LookupFault(f)
	return x.CanLoseAcked
}

// OnClients reports whether the op f acts on kchaos's own clients
// rather than on the cluster (OpFacts.OnClients).
func OnClients(f string) bool {
	x, _ := LookupFault(f)
	return x.OnClients
}

// KindOf is f's kind; "" for a name outside the vocabulary.
func KindOf(f string) Effect {
	x, _ := LookupFault(f)
	return x.Effect
}

// IsBookkeeping reports whether the nemesis op f records something about
// the run rather than acting on the cluster (the schedule, an until):
// never a fault, never "the fault that preceded a loss".
func IsBookkeeping(f string) bool { return KindOf(f) == Bookkeeping }

// FaultColor is the report's colour for f.
func FaultColor(f string) string {
	if x, ok := LookupFault(f); ok {
		return x.Color
	}
	return OtherFaultColor
}

// Undoes reports whether an op named op can end the lasting fault fault
// (for a heal op, HealCovers must also hold for its value.fault).
func Undoes(op, fault string) bool {
	x, ok := LookupFault(fault)
	return ok && slices.Contains(x.UndoneBy, op)
}

// Ends reports whether an op named op (a heal op's value.fault
// healFault) on nodes opNodes ends the lasting fault fault held on
// faultNodes: its kind must undo fault's (Undoes, HealCovers) and, unless
// it heals everything, when both name nodes they must share one.
func Ends(op, healFault string, opNodes []int32, fault string, faultNodes []int32) bool {
	if !Undoes(op, fault) {
		return false
	}
	if op == FHeal {
		if !HealCovers(healFault, fault) {
			return false
		}
		if HealsAll(healFault) {
			return true
		}
	}
	if len(opNodes) == 0 || len(faultNodes) == 0 {
		return true
	}
	for _, n := range opNodes {
		if slices.Contains(faultNodes, n) {
			return true
		}
	}
	return false
}

// HealsAll reports whether a heal op with this value.fault undoes every
// kind of fault: "" and "all", and "heal", which the report has always
// read that way.
func HealsAll(healFault string) bool {
	return healFault == "" || healFault == HealAll || healFault == FHeal
}

// HealCovers reports whether a heal op with value.fault healFault undoes
// the fault fault.
func HealCovers(healFault, fault string) bool {
	if HealsAll(healFault) {
		return true
	}
	x, ok := LookupFault(fault)
	return ok && x.Heal == healFault
}

// HealKinds are the heal kinds a step may name besides HealAll, one per
// group of lasting faults, in the order of allFaults.
func HealKinds() []string {
	var out []string
	for _, x := range faults {
		if x.Heal != "" && !slices.Contains(out, x.Heal) {
			out = append(out, x.Heal)
		}
	}
	return out
}
