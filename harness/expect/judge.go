package expect

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/kchaos/kchaos/checker"
)

// Metric names a check may use besides the anomaly names. Each is measured
// from a run folder by the harness (harness.Metrics).
const (
	// OfflineSeconds is the longest time any one partition of the topic
	// was without a leader, summed over its offline windows.
	OfflineSeconds = "offline_seconds"
	// LeaderAfterFault is the first broker other than the partition's
	// leader at the first fault that the observer saw leading partition 0
	// after that fault; absent when leadership never moved.
	LeaderAfterFault = "leader_after_fault"
	// Acked is the number of sends that completed ok with an offset.
	Acked = "acked"
	// Committed is the number of transactions that completed ok.
	Committed = "committed"
	// HistorySeconds is the time from the run's start to its last recorded
	// event: the story's own length, without cluster start and teardown.
	HistorySeconds = "history_seconds"
	// ErrorsPrefix + a Kafka error name counts the sends that completed
	// with that error (errors.NOT_ENOUGH_REPLICAS).
	ErrorsPrefix = "errors."
	// SendErrors counts the sends (and transactions) that completed with
	// any error, fail or info: client-side causes (timeout, crashed) too,
	// which errors.<NAME> cannot name.
	SendErrors = "send_errors"
	// AckedDuringFaults counts the sends acked while a lasting fault held
	// (between its ok and the op that undid it): writes that went on.
	AckedDuringFaults = "acked_during_faults"
	// ISRChanges counts the changes of the topic's partitions' ISRs that
	// the observer recorded (each sample whose ISR differs, as a set, from
	// the partition's previous one): the ISR churn a fault caused.
	ISRChanges = "isr_changes"
	// UntilsTimedOut counts the scenario's until steps that did not hold
	// within their timeout (a soft one lets the story go on): a check
	// "untils_timed_out == 0" under the settings where the story's every
	// wait must hold keeps a soft wait as strict as a required one there.
	// Measured only from a history that records its untils.
	UntilsTimedOut = "untils_timed_out"
	// ShareAcksUnanswered counts the share acks of finished flushes
	// (share-ack ops ok) whose client gave no result for their partition
	// (histories.ShareAckNoResult): acks neither confirmed nor reported
	// failed, the application left without their outcome (KAFKA-20330).
	// Measured only from a history with share acks.
	ShareAcksUnanswered = "share_acks_unanswered"
	// GroupReadBacksUnanswered counts the group coordinator read-backs
	// (group-final ops, histories.FGroupFinal) that did not end ok: the
	// coordinator never answered for the group within the final read's
	// retries, after every fault was healed (a coordinator that refuses
	// the group, as one whose __consumer_offsets log cannot be replayed
	// would: KAFKA-20845). Measured only from a history with a read-back;
	// the checker judges nothing from such a read-back (its state is
	// unknown), so this is the liveness half a check may ask for.
	GroupReadBacksUnanswered = "group_read_backs_unanswered"
	// ControllerAfterFault is the first controller other than the active
	// one at the first leader-moving fault that a quorum sample showed
	// leading afterwards; absent when none did.
	ControllerAfterFault = "controller_after_fault"
	// NewControllerSeconds is how long after that fault a sample first
	// showed it.
	NewControllerSeconds = "new_controller_seconds"
	// OldControllerClaimedSeconds is how long after that fault a sample
	// last showed the old active controller answering as leader of its
	// old epoch (0: never after the fault): how fast a deposed leader
	// resigned, as far as the 250 ms samples can tell; absent when no
	// sample after the fault showed a newer epoch (the leader was not
	// deposed, so its claims are its own). Like every "after
	// the fault" of the quorum's metrics it counts from the fault's invoke
	// (a partition's rules are in before its proof's probes finish, about
	// a second before the ok), and the old leader is the newest epoch's
	// before it (harness/metrics_quorum.go).
	OldControllerClaimedSeconds = "old_controller_claimed_seconds"
	// FinalVoters is how many voters the last quorum sample with a leader
	// showed, MinVoters the fewest any such sample showed: a reconfigured
	// quorum's shape at the end and at its smallest (its fault tolerance
	// then: a quorum of n voters outlives (n-1)/2 of them, rounded down).
	FinalVoters = "final_voters"
	MinVoters   = "min_voters"
	// RemovedVoterBackSeconds is how long after the first
	// remove-controller's ok a quorum sample first showed the removed
	// controller voting again (auto-join re-adds one that runs:
	// KAFKA-19850); absent when none did.
	RemovedVoterBackSeconds = "removed_voter_back_seconds"
	// ReconfigFailed counts the add-controller and remove-controller ops
	// that did not complete ok (Kafka refused, or the change was not read
	// back in time).
	ReconfigFailed = "reconfig_failed"
	// FeaturesRefused counts the set-feature ops Kafka refused outright
	// (completed fail under `refused: record`, with Kafka's answer in the
	// op's details); absent when no set-feature completed.
	FeaturesRefused = "features_refused"
	// MetadataVersionAtStart is the cluster's finalized metadata.version
	// level once it was ready, before the workload (run.json's
	// metadata_version); absent when run.json does not record it. kchaos
	// formats every release at its own production level (21 and up);
	// KAFKA-20839 leaves a cluster whose quorum changed leader during its
	// first activation at 1 (3.0-IV1, MINIMUM_KRAFT_VERSION).
	MetadataVersionAtStart = "metadata_version_at_start"
)

// quorumMetrics are the quorum's metrics (harness/metrics_quorum.go).
var quorumMetrics = []string{ControllerAfterFault, NewControllerSeconds, OldControllerClaimedSeconds,
	FinalVoters, MinVoters, RemovedVoterBackSeconds, ReconfigFailed, FeaturesRefused, MetadataVersionAtStart}

// Anomalies are the checker's anomaly names a check may count; a run that
// found none of a kind measured 0 of it.
var Anomalies = checker.AnomalyNames

// known says why name is not a metric a check may use, or nil.
func known(name string) error {
	switch {
	case name == OfflineSeconds, name == LeaderAfterFault, name == Acked, name == Committed, name == HistorySeconds,
		name == SendErrors, name == AckedDuringFaults, name == ISRChanges, name == UntilsTimedOut, name == ShareAcksUnanswered,
		name == GroupReadBacksUnanswered:
		return nil
	case slices.Contains(quorumMetrics, name):
		return nil
	case strings.HasPrefix(name, ErrorsPrefix):
		code := strings.TrimPrefix(name, ErrorsPrefix)
		if code == "" || strings.ToUpper(code) != code || strings.ContainsAny(code, " .") {
			return fmt.Errorf("metric %q: want errors.<KAFKA_ERROR_NAME>, e.g. errors.NOT_ENOUGH_REPLICAS", name)
		}
		return nil
	}
	for _, a := range Anomalies {
		if name == a {
			return nil
		}
	}
	return fmt.Errorf("unknown metric %q: want an anomaly name (%s), %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s or errors.<KAFKA_ERROR_NAME>",
		name, strings.Join(Anomalies, ", "), Acked, Committed, OfflineSeconds, LeaderAfterFault, HistorySeconds,
		SendErrors, AckedDuringFaults, ISRChanges, UntilsTimedOut, ShareAcksUnanswered, GroupReadBacksUnanswered, strings.Join(quorumMetrics, ", "))
}

// Metrics is what one run measured, by metric name. Anomaly counts are
// present (0 included) whenever the run was checked; errors.X is present
// for every error the sends saw and read as 0 otherwise.
type Metrics map[string]float64

// value is the metric's measured value, and whether the run measured it.
func (m Metrics) value(name string) (float64, bool) {
	if v, ok := m[name]; ok {
		return v, true
	}
	if strings.HasPrefix(name, ErrorsPrefix) {
		if _, checked := m[Acked]; checked {
			return 0, true // the sends were counted and none saw this error
		}
	}
	return 0, false
}

// Status is a cell's standing against its expectation.
type Status string

// The statuses, as a suite reports them.
const (
	Match         Status = "match"          // every applicable check held
	Differ        Status = "differ"         // at least one check did not hold
	Unjudged      Status = "unjudged"       // a check's metric was not measured, or the run failed
	NotApplicable Status = "not-applicable" // Kafka rules the combination out
	NoExpectation Status = "no-expectation" // no check applies to these settings
)

// Evaluation is one check against one run.
type Evaluation struct {
	Check Check   `json:"-"`
	Text  string  `json:"check"`
	Got   float64 `json:"got"`
	// Limit is the derived bound's value in this run, when the check has
	// one (Check.Bound).
	Limit float64 `json:"bound,omitempty"`
	// Measured is false when the run did not measure the metric (or its
	// settings could not give the derived bound).
	Measured bool `json:"measured"`
	Held     bool `json:"held"`
}

// String is "lost-write > 0: got 0 (differs)"; with a derived bound its
// value follows it: "offline_seconds < isr_shrink_bound_seconds (8): got 6.5".
func (r Evaluation) String() string {
	text := r.Text
	if r.Check.Bound != "" && r.Measured {
		text = strings.Replace(text, r.Check.Bound, r.Check.Bound+" ("+number(r.Limit)+")", 1)
	}
	switch {
	case !r.Measured:
		return text + ": not measured"
	case r.Held:
		return text + ": got " + number(r.Got)
	}
	return text + ": got " + number(r.Got) + " (differs)"
}

// number writes a measured value to 0.1 (seconds) or as an integer.
func number(v float64) string {
	return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64)
}

// Judge runs the checks that apply to settings against m. The status is
// Differ if any applicable check fails, else Unjudged if any could not be
// measured, else Match; NoExpectation when none applies.
func Judge(checks []Check, settings map[string]string, m Metrics) (Status, []Evaluation) {
	var out []Evaluation
	differ, unjudged := false, false
	for _, c := range checks {
		if !c.Applies(settings) {
			continue
		}
		r := Evaluation{Check: c, Text: c.String()}
		r.Got, r.Measured = m.value(c.Metric)
		r.Limit = c.Value
		if c.Bound != "" {
			var ok bool
			r.Limit, ok = m.value(c.Bound)
			r.Measured = r.Measured && ok
		}
		if r.Measured {
			r.Held = c.holds(r.Got, r.Limit)
			differ = differ || !r.Held
		} else {
			unjudged = true
		}
		out = append(out, r)
	}
	switch {
	case len(out) == 0:
		return NoExpectation, nil
	case differ:
		return Differ, out
	case unjudged:
		return Unjudged, out
	}
	return Match, out
}
