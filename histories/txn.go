package histories

// Transactions (extension of v1, docs/HISTORY.md "Transactions").
//
// A transactional producer's unit of work is one `txn` op: an invoke that
// lists what the transaction will do, and one completion that says what
// happened, in Jepsen's kafka workload's manner (a txn is a list of
// micro-operations, sends and polls, by one client). The completion's type
// follows the operation model:
//
//   - ok: the transaction committed (EndTxn(commit) succeeded).
//   - fail: it definitely did not commit: it was aborted (on purpose, or
//     after an error, and the abort succeeded), the producer was fenced
//     before it asked to commit, or it crashed before it asked to commit
//     (Kafka never commits a transaction without EndTxn(commit); the
//     coordinator aborts it on timeout or when a successor with the same
//     transactional id initialises).
//   - info: unknown: the commit was asked for and its answer was lost, or
//     came back as an error after which the commit may still complete.
//
// Polls inside a transaction are by the same client at read_committed.

// FTxn is the op name of a transaction.
const FTxn = "txn"

// Micro-operation names inside a txn.
const (
	TxnSend = "send"
	TxnPoll = "poll"
)

// Isolation levels of a read (ReadRequest.Isolation). An absent isolation
// is read_uncommitted, v1's only kind of read.
const (
	ReadUncommitted = "read_uncommitted"
	ReadCommitted   = "read_committed"
)

// Ends a transaction intends (TxnValue.Intent).
const (
	TxnCommit = "commit"
	TxnAbort  = "abort"
)

// TxnValue is a txn op's value. The invoke names the transactional id, the
// intended end and the micro-operations asked for (sends with topic,
// partition and value; polls with topic and partitions). A completion
// repeats them with what was learned: each send's offset once the broker
// acked it inside the transaction, each poll's records; micro-operations
// never attempted (the transaction ended early) are absent from it.
type TxnValue struct {
	TransactionalID string `json:"transactional_id"`
	// ProducerID and ProducerEpoch are the producer's identity as
	// InitProducerId returned it (a completion may carry them): a successor
	// with the same transactional id has a higher epoch and fences this one.
	ProducerID    *int64 `json:"producer_id,omitempty"`
	ProducerEpoch *int16 `json:"producer_epoch,omitempty"`
	// Intent is TxnCommit or TxnAbort: how the client meant to end it.
	Intent string  `json:"intent"`
	Ops    []TxnOp `json:"ops"`
	// EndInvoked is when the client asked to end the transaction (EndTxn),
	// in nanoseconds since the run started, like an event's time; nil when
	// it never asked. A read_committed read that completed before it
	// cannot have seen the transaction's records committed.
	EndInvoked *int64 `json:"end_invoked,omitempty"`
}

// TxnOp is one micro-operation of a txn.
type TxnOp struct {
	F     string `json:"f"` // TxnSend or TxnPoll
	Topic string `json:"topic"`
	// Partition and Value: a send's (required for a send).
	Partition *int32 `json:"partition,omitempty"`
	Value     string `json:"value,omitempty"`
	// Offset: a send's offset once acked inside the transaction.
	Offset *int64 `json:"offset,omitempty"`
	// Partitions: what a poll asked for; Records: what it returned.
	Partitions []int32  `json:"partitions,omitempty"`
	Records    []Record `json:"records,omitempty"`
}

// Sends returns the send micro-operations of v, in order.
func (v *TxnValue) Sends() []TxnOp {
	var out []TxnOp
	for _, op := range v.Ops {
		if op.F == TxnSend {
			out = append(out, op)
		}
	}
	return out
}

// IsReadCommitted reports whether a read with this isolation hides the
// records of open and aborted transactions.
func IsReadCommitted(isolation string) bool { return isolation == ReadCommitted }
