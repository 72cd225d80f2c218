package java

import (
	"context"
	"fmt"
	"time"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/workloads"
)

var _ workloads.TxnDriver = javaDriver{}

// javaTxn is one transactional client in the run's JVM
// (javaclient/TxnHandle.java): a KafkaProducer with transactional.id
// TransactionalID(cfg.Topic, id), and a read_committed KafkaConsumer for
// the transaction's polls.
//
// The Java producer must initTransactions before its first
// beginTransaction, and that is a request (InitProducerId), while Begin
// is local and takes no context. So Begin only marks the transaction
// begun, and the next request carries it: ProducerID (which txn.go calls
// right after Begin) initialises if need be, begins, and reads the id and
// epoch, in one request.
type javaTxn struct {
	javaHandle
	topic string
	begin bool // Begin was called and beginTransaction not sent yet
	// wait bounds initTransactions (retried on its TimeoutException) when
	// the caller's ctx has no deadline.
	wait time.Duration
}

// javaTxnProps: the producer's properties as for NewProducer, then what a
// transactional producer needs: transactional.id and
// transaction.timeout.ms, acks all (Validate insists), idempotence on
// and retries at least 1 (the Java client refuses an idempotent producer
// with retries 0; a transaction's outcome is its EndTxn's, never one
// send's, so a retry cannot make it ambiguous, as TxnConfig says).
// max.block.ms (the producer's delivery timeout) bounds every
// initTransactions, commitTransaction and abortTransaction, shorter than
// the workload's op timeout, so that a commit the client cannot finish
// ends with the client's TimeoutException (info) rather than the
// workload's.
func javaTxnProps(cfg workloads.Config, bootstrap []string, id int) map[string]string {
	p := javaProducerProps(cfg, bootstrap, id)
	p["client.id"] = workloads.TxnProducerClientID(id)
	p["transactional.id"] = workloads.TransactionalID(cfg.Topic, id)
	p["transaction.timeout.ms"] = ms(cfg.Transactions.Timeout.Std())
	p["acks"] = "all"
	p["enable.idempotence"] = "true"
	p["retries"] = fmt.Sprint(max(cfg.Retries, 1))
	return p
}

// javaTxnConsumerProps: the transaction's reader, at read_committed,
// never resetting by itself (OFFSET_OUT_OF_RANGE fails the poll, and the
// next starts at the end), with short fetch waits (a transaction waits
// for its poll).
func javaTxnConsumerProps(cfg workloads.Config, bootstrap []string, id int) map[string]string {
	p := javaConsumerProps(cfg, bootstrap, id)
	p["client.id"] = fmt.Sprintf("kchaos-txn-consumer-%d", id)
	p["isolation.level"] = histories.ReadCommitted
	p["fetch.max.wait.ms"] = "200"
	return withProps(p, cfg.ConsumerProps) // the service's word wins here too
}

// NewTxnProducer opens producer id's transactional client; it connects
// when first asked (ProducerID).
func (javaDriver) NewTxnProducer(cfg workloads.Config, bootstrap []string, id int) (workloads.TxnProducer, error) {
	j, h, err := javaOpenWith(cfg, bootstrap, "open-txn", map[string]any{
		"props": javaTxnProps(cfg, bootstrap, id), "consumer_props": javaTxnConsumerProps(cfg, bootstrap, id)})
	if err != nil {
		return nil, err
	}
	return &javaTxn{javaHandle: javaHandle{j: j, h: h}, topic: cfg.Topic, wait: cfg.OpTimeout()}, nil
}

// Begin marks the transaction begun; the next request begins it in the
// client (see javaTxn).
func (t *javaTxn) Begin() error {
	t.begin = true
	return nil
}

// ProducerID initialises the client if it has not been (a successor's
// call fences its predecessor), begins a transaction Begin asked for,
// and returns the producer id and epoch the client holds, -1 each if the
// JVM could not read them (TxnHandle.producerIdAndEpoch).
func (t *javaTxn) ProducerID(ctx context.Context) (int64, int16, error) {
	begin := t.begin
	t.begin = false
	r, err := t.j.call(ctx, "txn-id", map[string]any{"handle": t.h, "begin": begin,
		"timeout_ms": timeoutMS(ctx, t.wait, 200*time.Millisecond)})
	if err != nil {
		return -1, -1, err
	}
	return r.ProducerID, r.Epoch, nil
}

// Send sends m in the transaction and waits for its callback; a begin
// not yet sent goes first.
func (t *javaTxn) Send(ctx context.Context, m workloads.Message) (int64, error) {
	if t.begin {
		if _, _, err := t.ProducerID(ctx); err != nil {
			return -1, err
		}
	}
	r, err := t.j.call(ctx, "txn-send", map[string]any{"handle": t.h, "topic": t.topic, "partition": m.Partition, "value": m.Value})
	if err != nil {
		return -1, err
	}
	return r.Offset, nil
}

// Poll reads the partitions at read_committed from the client's last
// positions (TxnHandle.poll). The JVM is given what is left of ctx, less
// a margin for the answer: a poll answered after ctx ended is dropped
// with its records (the transaction fails on the poll's error, and
// claims no read).
func (t *javaTxn) Poll(ctx context.Context, partitions []int32) ([]histories.Record, error) {
	r, err := t.j.call(ctx, "txn-poll", map[string]any{"handle": t.h, "topic": t.topic, "partitions": partitions,
		"timeout_ms": timeoutMS(ctx, workloads.TxnPollWait, 50*time.Millisecond)})
	if err != nil {
		return nil, err
	}
	out := make([]histories.Record, 0, len(r.Records))
	for _, rec := range r.Records {
		out = append(out, histories.Record{Partition: rec.P, Offset: rec.O, Value: rec.V, LeaderEpoch: rec.E})
	}
	return out, nil
}

// End commits or aborts (commitTransaction, abortTransaction). Sends are
// synchronous, so nothing is buffered at a commit. The error of a commit
// the client refused in an error state says so (JavaError.NotAttempted:
// fail); any other commit error leaves the outcome unknown (info), as
// TxnOutcome decides.
func (t *javaTxn) End(ctx context.Context, commit bool) error {
	t.begin = false
	_, err := t.j.call(ctx, "txn-end", map[string]any{"handle": t.h, "commit": commit})
	return err
}
