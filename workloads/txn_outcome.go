package workloads

import (
	"errors"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kchaos/kchaos/histories"
)

// CauseAborted is the error of a txn the client aborted on purpose (intent
// abort) and whose abort succeeded: a fail that is no fault.
const CauseAborted = "aborted"

// TxnEnd is what happened to one transaction, as far as the client knows:
// the input of the outcome mapping.
type TxnEnd struct {
	// StepErr is the first error before the client asked to end the
	// transaction: BeginTransaction, the producer id, a poll or a send.
	StepErr error
	// CommitAsked: EndTxn(commit) was requested; CommitErr is its error.
	CommitAsked bool
	CommitErr   error
	// AbortAsked: EndTxn(abort) was requested (on purpose or after an
	// error); AbortErr is its error.
	AbortAsked bool
	AbortErr   error
	// Superseded: a successor with the same transactional id finished
	// InitProducerId before the commit was asked (a crash): the
	// coordinator had aborted this transaction by then.
	Superseded bool
}

// TxnOutcome maps a transaction's end to its completion type and error
// name, and says whether the client must be re-created (it is fenced, or
// in a state from which only a new InitProducerId is a clean start).
//
// The rule that keeps fail sound: Kafka never commits a transaction
// without EndTxn(commit). So every transaction whose commit was never
// requested is fail, whatever went wrong; its open state on the broker is
// aborted by the abort we send, by the transaction timeout, or by the next
// InitProducerId of the same transactional id (a re-created client), before
// any later commit of that id, so no later commit can carry its records.
// Once the commit was requested, only its nil answer proves ok; an error
// leaves it unknown (info), except when the broker says the commit was
// not attempted, or when a successor's initialisation had already
// aborted the transaction (the fenced zombie).
//
// Exported, with TxnEnd, for the driver packages' tests (workloads/java),
// which check that their client's transaction errors are judged as the Go
// drivers' are.
func TxnOutcome(e TxnEnd) (typ histories.Type, errName string, recreate bool) {
	if e.CommitAsked {
		switch {
		case e.CommitErr == nil:
			return histories.OK, "", false
		case notAttempted(e.CommitErr):
			return histories.Fail, ErrorName(e.CommitErr), true
		case e.Superseded && IsFenced(e.CommitErr):
			return histories.Fail, ErrorName(e.CommitErr), true
		}
		return histories.Info, ErrorName(e.CommitErr), true
	}
	recreate = e.Superseded || IsFenced(e.StepErr) || (e.AbortAsked && e.AbortErr != nil) ||
		(e.StepErr != nil && !e.AbortAsked)
	switch {
	case e.StepErr != nil:
		errName = ErrorName(e.StepErr)
	case e.AbortErr != nil:
		errName = ErrorName(e.AbortErr)
	default:
		errName = CauseAborted
	}
	return histories.Fail, errName, recreate
}

// IsFenced reports whether err says a newer producer with the same
// transactional id exists: PRODUCER_FENCED, or INVALID_PRODUCER_EPOCH
// (what a partition leader answers a produce at an older epoch).
func IsFenced(err error) bool {
	return errors.Is(err, kerr.ProducerFenced) || errors.Is(err, kerr.InvalidProducerEpoch)
}

// notAttempted reports whether kgo refused to send EndTxn(commit):
// OPERATION_NOT_ATTEMPTED (the producer id had failed), or a commit of a
// transaction that wrote to a since-recreated topic (TRANSACTION_ABORTABLE
// before any request). The commit then never reached the coordinator.
func notAttempted(err error) bool {
	return errors.Is(err, kerr.OperationNotAttempted) ||
		(errors.Is(err, kerr.TransactionAbortable) && errors.Is(err, kerr.UnknownTopicID))
}
