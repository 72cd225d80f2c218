package workloads

import (
	"fmt"
	"strconv"
	"time"

	"github.com/kchaos/kchaos/histories"
)

// TxnConfig is workload.transactions: every producer transactional, each
// of its ops one transaction (a histories.FTxn op) of a few sends spread
// over random partitions. The zero value is off.
//
// With transactions on, idempotence is implied: Defaults sets Idempotent
// (Kafka's transactional producer is an idempotent one); a scenario that
// writes `idempotent: false` beside them is refused before Defaults runs
// (harness/scenario/silentdefaults.go); run.json records idempotent and
// transactional. The "idempotent needs retries > 0" rule does not apply:
// a transaction's outcome is decided by its EndTxn, never by one send's
// error, so a send's retries cannot make it ambiguous.
type TxnConfig struct {
	Enabled bool `yaml:"enabled" json:"enabled"`
	// MinSends and MaxSends bound the sends of one transaction (defaults
	// DefaultTxnMinSends and DefaultTxnMaxSends); each send goes to a
	// random partition, with a value unique in the run.
	MinSends int `yaml:"min_sends,omitempty" json:"min_sends,omitempty" zero:"unset"`
	MaxSends int `yaml:"max_sends,omitempty" json:"max_sends,omitempty" zero:"unset"`
	// Polls: each transaction first polls, at read_committed and through
	// its own client, the partitions it is about to write, so that the
	// history has write-read edges between transactions.
	Polls bool `yaml:"polls,omitempty" json:"polls,omitempty"`
	// AbortRate is the fraction of transactions the client ends with an
	// abort on purpose, 0..1 (left out: DefaultTxnAbortRate; 0: none). A
	// pointer, so that a written 0 is told from a field left out (see
	// Aborts).
	AbortRate *float64 `yaml:"abort_rate,omitempty" json:"abort_rate,omitempty"`
	// CrashRate is the fraction whose producer "crashes" mid-transaction
	// (default 0; 0..1, with AbortRate+CrashRate <= 1): the client is
	// abandoned with the transaction open, a successor with the same
	// transactional id initialises (fencing it), and the zombie then tries
	// to finish; see txn.go.
	CrashRate float64 `yaml:"crash_rate,omitempty" json:"crash_rate,omitempty"`
	// Timeout is transaction.timeout.ms (default DefaultTxnTimeout): the
	// coordinator aborts a transaction left open this long.
	Timeout Duration `yaml:"timeout,omitempty" json:"timeout,omitempty" zero:"unset"`
	// Hold is how long a transaction stays open after its last send before
	// it asks to end (default 0: at once), as a consume-transform-produce
	// step that works between its writes and its commit does. A story uses
	// it to catch a transaction open with its records written (t4).
	Hold Duration `yaml:"hold,omitempty" json:"hold,omitempty"`
}

// TransactionalID is producer i's transactional id on topic. It is the one
// owner of the naming: the workload's clients use it, and the nemesis
// looks up each id's transaction coordinator by it. A successor after a
// crash reuses its predecessor's id (that is what fences the zombie).
func TransactionalID(topic string, i int) string {
	return "kchaos-" + topic + "-txn-" + strconv.Itoa(i)
}

// TransactionalIDs lists every producer's transactional id, or nil when
// transactions are off.
func (c *Config) TransactionalIDs() []string {
	if !c.Transactions.Enabled {
		return nil
	}
	out := make([]string, c.Producers)
	for i := range out {
		out[i] = TransactionalID(c.Topic, i)
	}
	return out
}

// Aborts is the fraction of transactions aborted on purpose:
// AbortRate, or DefaultTxnAbortRate when it was left out.
func (t TxnConfig) Aborts() float64 {
	if t.AbortRate == nil {
		return DefaultTxnAbortRate
	}
	return *t.AbortRate
}

func (t *TxnConfig) defaults() {
	if !t.Enabled {
		return
	}
	if t.MinSends == 0 {
		t.MinSends = DefaultTxnMinSends
	}
	if t.MaxSends == 0 {
		t.MaxSends = max(DefaultTxnMaxSends, t.MinSends)
	}
	if t.AbortRate == nil {
		t.AbortRate = new(DefaultTxnAbortRate) // so that run.json says it
	}
	if t.Timeout == 0 {
		t.Timeout = Duration(DefaultTxnTimeout)
	}
}

// validateTxn lists the problems of the transactions section and of the
// settings that transactions constrain. Fields set while transactions are
// off are refused rather than ignored.
func (c *Config) validateTxn() []FieldError {
	var ps []FieldError
	add := func(path, format string, args ...any) {
		ps = append(ps, FieldError{Path: path, Msg: fmt.Sprintf(format, args...)})
	}
	t := c.Transactions
	if !t.Enabled {
		if t != (TxnConfig{}) {
			add("transactions.enabled", "false, but other transactions settings are given (set enabled: true or remove them)")
		}
		return ps
	}
	if t.MinSends < 1 || t.MinSends > 1000 {
		add("transactions.min_sends", "%d: want 1..1000", t.MinSends)
	}
	if t.MaxSends < t.MinSends || t.MaxSends > 1000 {
		add("transactions.max_sends", "%d: want min_sends (%d)..1000", t.MaxSends, t.MinSends)
	}
	aborts := t.Aborts()
	if !(aborts >= 0 && aborts <= 1) {
		add("transactions.abort_rate", "%g: want 0..1", aborts)
	}
	if !(t.CrashRate >= 0 && t.CrashRate <= 1) {
		add("transactions.crash_rate", "%g: want 0..1", t.CrashRate)
	} else if aborts >= 0 && aborts <= 1 && aborts+t.CrashRate > 1 {
		add("transactions.crash_rate", "%g: abort_rate + crash_rate (%g) must be <= 1", t.CrashRate, aborts+t.CrashRate)
	}
	if h := t.Hold.Std(); h < 0 || (t.Timeout.Std() > 0 && h >= t.Timeout.Std()) {
		add("transactions.hold", "%s: want 0 up to less than transactions.timeout (%s), or the coordinator aborts every transaction", h, t.Timeout.Std())
	}
	// Kafka's broker default transaction.max.timeout.ms is 15 minutes.
	if to := t.Timeout.Std(); to < time.Second || to > 15*time.Minute {
		add("transactions.timeout", "%s: want 1s..15m (transaction.timeout.ms)", to)
	}
	if c.Acks.Valid() && c.Acks.Normalize() != AcksAll {
		add("acks", "%s: transactions need acks=all (Kafka's transactional producer requires it)", c.Acks)
	}
	if c.MaxInFlight != 1 {
		add("max_in_flight", "%d: transactions need 1 (one transaction at a time per producer)", c.MaxInFlight)
	}
	if c.Partitioning == ByKey {
		add("partitioning", "%s: transactions spread their sends over random partitions (use %s)", ByKey, RoundRobin)
	}
	return ps
}

// IsolationOf is the isolation a ReadRequest records: only
// read_committed is written (absent means read_uncommitted, v1's reads).
// Exported for the consumer group's polls (workloads/groups).
func IsolationOf(level string) string {
	if histories.IsReadCommitted(level) {
		return histories.ReadCommitted
	}
	return ""
}
