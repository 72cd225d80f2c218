package brokerlogs

import (
	"regexp"
	"strconv"
)

// Marker names: what a log line says happened. Several rules may share a
// name (one per Kafka message that says it).
const (
	// MTruncate: a replica removed records from its log end
	// (UnifiedLog.truncateTo; "has no effect" lines are not a truncation).
	MTruncate = "truncate"
	// MTruncateBelowHW: the truncation went below the replica's high
	// watermark, i.e. removed records it had counted as committed.
	MTruncateBelowHW = "truncate-below-hw"
	// MDivergence: a follower found its log diverged from the leader's at
	// the leader's epoch end offset (KIP-101/279) and truncates there.
	MDivergence = "divergence"
	// MUncleanElection: the controller applied an unclean partition change
	// (a leader outside the ISR), with the new leader and epoch.
	MUncleanElection = "unclean-election"
	// MUncleanLeader: the controller chose a leader by unclean election
	// (the same decision, as PartitionChangeBuilder logs it, by topic id).
	MUncleanLeader = "unclean-leader"
	// MLogDirFailure: a log directory went offline after an I/O error.
	MLogDirFailure = "log-dir-failure"
	// MFenced: the controller fenced a broker whose session timed out.
	MFenced = "fenced"
	// MUncleanRecovery: a broker started without a clean-shutdown marker
	// and recovers its logs (after kill -9 or a power loss).
	MUncleanRecovery = "unclean-recovery"
	// MCoordinatorLoadFailed: a coordinator (group, share, the runtime
	// they share since 4.0) could not replay its partition of an internal
	// topic when it became its leader: until the log is rewritten it
	// answers NOT_COORDINATOR for every group of that partition
	// (KAFKA-20845's unreplayable __consumer_offsets).
	MCoordinatorLoadFailed = "coordinator-load-failed"
)

// rule is one known Kafka message: a regular expression over an entry's
// message (the text after the level, without the logger suffix), whose
// named groups are the fields it extracts. Group "partition" is a
// partition's dir name ("orders-0"); others are numbers or paths.
type rule struct {
	Name string
	// Source is where Kafka writes the message (class, and the text in
	// Kafka's code), checked against Kafka 4.4.0's jars and real logs.
	Source string
	Re     *regexp.Regexp
}

// rules is the table of known messages. Each text was taken from Kafka's
// source (apache/kafka, 2024) and checked against the class files of
// kchaos/kafka:4.4.0 and real logs of kchaos runs (testdata/): where 4.4
// changed a text (the fence line gained "at epoch N"; the truncation below
// the high watermark moved from ReplicaFetcherThread to UnifiedLog and
// gained a "future " prefix for future replicas), the expression takes
// both.
var rules = []rule{
	{MTruncate, `UnifiedLog.truncateTo: "Truncating to offset {}"`,
		regexp.MustCompile(`^(?:\[UnifiedLog partition=(?P<partition>[^,\]]+)[^\]]*\] )?Truncating to offset (?P<offset>\d+)$`)},
	{MTruncateBelowHW, `UnifiedLog (ReplicaFetcherThread before 4.0): "Truncating {}{} to offset {} below high watermark {}"`,
		regexp.MustCompile(`Truncating (?:future )?(?P<partition>\S+) to offset (?P<offset>\d+) below high watermark (?P<high_watermark>\d+)`)},
	{MDivergence, `AbstractFetcherThread: "Truncating partition $tp with $offsetTruncationState due to leader epoch and offset $leaderEpochOffset"`,
		regexp.MustCompile(`^(?:\[ReplicaFetcher replicaId=(?P<replica>\d+), leaderId=(?P<leader>\d+)[^\]]*\] )?Truncating partition (?P<partition>\S+) with TruncationState\(offset=(?P<offset>\d+), completed=\w+\) due to leader epoch and offset EpochEndOffset\([^)]*leaderEpoch=(?P<leader_epoch>-?\d+), endOffset=(?P<end_offset>-?\d+)\)`)},
	{MUncleanElection, `PartitionRegistration.maybeLogPartitionChange: "UNCLEAN partition change for {}: {}"`,
		regexp.MustCompile(`UNCLEAN partition change for (?P<partition>\S+?)(?: with topic ID \S+)?: (?:.*?\bleader: (?P<previous_leader>-?\d+) -> (?P<leader>-?\d+))?(?:.*?\bleaderEpoch: (?P<previous_leader_epoch>-?\d+) -> (?P<leader_epoch>-?\d+))?`)},
	{MUncleanLeader, `PartitionChangeBuilder: "Setting new leader for topicId {}, partition {} to {} using an unclean election"`,
		regexp.MustCompile(`Setting new leader for topicId (?P<topic_id>\S+), partition (?P<partition_index>\d+) to (?P<leader>-?\d+) using an unclean election`)},
	{MLogDirFailure, `ReplicaManager.handleLogDirFailure: "Stopping serving replicas in dir {} with uuid {} because the log directory has failed."`,
		regexp.MustCompile(`Stopping serving replicas in dir (?P<dir>\S+)`)},
	{MLogDirFailure, `LogManager.handleLogDirFailure: "Stopping serving logs in dir {}"`,
		regexp.MustCompile(`Stopping serving logs in dir (?P<dir>\S+)`)},
	{MLogDirFailure, `LogManager.handleLogDirFailure: "Shutdown broker because all log dirs in {} have failed" (FATAL)`,
		regexp.MustCompile(`Shutdown broker because all log dirs in (?P<dir>.+) have failed`)},
	{MLogDirFailure, `ReplicaManager: "Shutdown broker because the metadata log dir {} has failed" (FATAL)`,
		regexp.MustCompile(`Shutdown broker because the metadata log dir (?P<dir>\S+) has failed`)},
	{MFenced, `ReplicationControlManager.maybeFenceOneStaleBroker: "Fencing broker {} at epoch {} because its session has timed out."`,
		regexp.MustCompile(`Fencing broker (?P<broker>\d+)(?: at epoch (?P<broker_epoch>\d+))? because its session has timed out`)},
	{MCoordinatorLoadFailed, `CoordinatorRuntime$CoordinatorContext (4.0+): "Failed to load metadata from {} with epoch {} due to {}."`,
		regexp.MustCompile(`^(?:\[(?P<coordinator>\w+Coordinator) id=(?P<broker>\d+)\] )?Failed to load metadata from (?P<partition>\S+) with epoch (?P<leader_epoch>\d+) due to (?P<cause>[\w.$]+)`)},
	{MUncleanRecovery, `LogManager.loadLogs: "Recovering {} logs from {} since no clean shutdown file was found"`,
		regexp.MustCompile(`Recovering (?P<logs>\d+) logs from (?P<dir>\S+) since no clean shutdown file was found`)},
}

// match returns the first rule that matches msg and the fields it
// extracted (empty groups left out), or ok false.
func match(msg string) (name string, fields map[string]string, ok bool) {
	for _, r := range rules {
		m := r.Re.FindStringSubmatch(msg)
		if m == nil {
			continue
		}
		fields = map[string]string{}
		for i, g := range r.Re.SubexpNames() {
			if g != "" && m[i] != "" {
				fields[g] = m[i]
			}
		}
		return r.Name, fields, true
	}
	return "", nil, false
}

// Int returns a numeric field, ok false when absent or not a number.
func (m Marker) Int(field string) (int64, bool) {
	v, ok := m.Fields[field]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil
}
