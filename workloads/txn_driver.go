package workloads

import (
	"context"
	"time"

	"github.com/kchaos/kchaos/histories"
)

// TxnPollWait bounds one poll inside a transaction: shorter than a
// consumer's poll, since the transaction waits for it (its timeout has
// not started yet: it starts at the first send). In the seam for the
// driver packages (workloads/java), whose transactional polls it bounds,
// and for the transactional loop (workloads/txn).
const TxnPollWait = 300 * time.Millisecond

// TxnProducer is one transactional client: it runs one transaction at a
// time (Begin, Polls and Sends, End), from one goroutine.
type TxnProducer interface {
	// Begin starts a transaction in the client (no request yet: Kafka
	// learns of it at the first send).
	Begin() error
	// ProducerID is the producer id and epoch, initialising them
	// (InitProducerId) if the client has none yet. A successor calls it to
	// fence its predecessor.
	ProducerID(ctx context.Context) (int64, int16, error)
	// Send produces m inside the transaction and waits for its ack.
	Send(ctx context.Context, m Message) (int64, error)
	// Poll reads, at read_committed, what the given partitions have past
	// this client's last position on each (the log's stable end the first
	// time), until records come or ctx ends; nil error with no records is
	// an empty poll.
	Poll(ctx context.Context, partitions []int32) ([]histories.Record, error)
	// End asks to commit or abort (EndTxn).
	End(ctx context.Context, commit bool) error
	// Close releases the client without ending an open transaction.
	Close()
}

// TxnDriver is a Driver with transactional producers (franz-go and the
// Java client).
type TxnDriver interface {
	// NewTxnProducer returns producer id's client, with transactional id
	// TransactionalID(cfg.Topic, id). It connects lazily.
	NewTxnProducer(cfg Config, bootstrap []string, id int) (TxnProducer, error)
}
