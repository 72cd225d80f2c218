package admin

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unicode/utf16"

	"github.com/kchaos/kchaos/histories"
	"github.com/twmb/franz-go/pkg/kadm"
)

// TransactionStateTopic is Kafka's internal topic of transaction state: the
// leader of the partition that owns a transactional id is that id's
// transaction coordinator.
const TransactionStateTopic = "__transaction_state"

// TxnStatePartition is the partition of TransactionStateTopic that owns a
// transactional id, as Kafka's TransactionStateManager.partitionFor
// computes it: Utils.abs(transactionalId.hashCode) % partitionCount, where
// hashCode is Java's String.hashCode over UTF-16 code units and Utils.abs
// maps Integer.MIN_VALUE to 0.
func TxnStatePartition(transactionalID string, partitionCount int) int32 {
	if partitionCount <= 0 {
		return -1
	}
	return int32(javaAbs(javaStringHash(transactionalID)) % int32(partitionCount))
}

// javaStringHash is java.lang.String.hashCode: s[0]*31^(n-1) + ... + s[n-1]
// with int32 overflow, over UTF-16 code units.
func javaStringHash(s string) int32 {
	var h int32
	for _, u := range utf16.Encode([]rune(s)) {
		h = 31*h + int32(u)
	}
	return h
}

// javaAbs is org.apache.kafka.common.utils.Utils.abs.
func javaAbs(n int32) int32 {
	if n == -1<<31 {
		return 0
	}
	if n < 0 {
		return -n
	}
	return n
}

// OpenTxns lists the transactions partition's leader holds open
// (DescribeProducers: producers whose current transaction has a first
// offset and no marker yet), each joined with what its coordinator says
// (ListTransactions by producer id, DescribeTransactions by id), and judged
// as `kafka-transactions.sh find-hanging` judges it (Hanging). OpenMS is
// how long before the answer the producer last appended there.
func (c *Client) OpenTxns(ctx context.Context, topic string, partition int32) ([]histories.OpenTxn, error) {
	described, err := c.adm.DescribeProducers(ctx, kadm.TopicsSet{topic: {partition: {}}})
	if err != nil {
		return nil, fmt.Errorf("describe producers of %s-%d: %w", topic, partition, err)
	}
	now := time.Now().UnixMilli()
	var out []histories.OpenTxn
	var pids []int64
	for _, p := range described.SortedPartitions() {
		if p.Err != nil {
			return nil, fmt.Errorf("describe producers of %s-%d: %w", topic, partition, p.Err)
		}
		for _, d := range p.ActiveProducers.Sorted() {
			if d.CurrentTxnStartOffset < 0 {
				continue // idempotent, or between transactions
			}
			out = append(out, histories.OpenTxn{ProducerID: d.ProducerID, ProducerEpoch: d.ProducerEpoch,
				CoordinatorEpoch: d.CoordinatorEpoch, FirstOffset: d.CurrentTxnStartOffset,
				LastTimestamp: d.LastTimestamp, OpenMS: max(0, now-d.LastTimestamp)})
			pids = append(pids, d.ProducerID)
		}
	}
	if len(out) == 0 {
		return out, nil
	}
	c.coordinatorView(ctx, topic, partition, pids, out)
	return out, nil
}

// coordinatorView fills in each open txn's transactional id, its state at
// the coordinator and whether find-hanging would list it: the partition
// holds the transaction open while its coordinator does not (no id lists
// the producer, or the id's current transaction is another epoch, is not
// Ongoing, or lacks the partition). An error leaves the coordinator's view
// unknown (Error) and the txn not judged hanging.
func (c *Client) coordinatorView(ctx context.Context, topic string, partition int32, pids []int64, out []histories.OpenTxn) {
	listed, err := c.adm.ListTransactions(ctx, pids, nil)
	if err != nil {
		for i := range out {
			out[i].Error = "list transactions: " + err.Error()
		}
		return
	}
	byPID := map[int64]string{}
	for _, l := range listed.Sorted() {
		byPID[l.ProducerID] = l.TxnID
	}
	var ids []string
	for _, id := range byPID {
		ids = append(ids, id)
	}
	var desc kadm.DescribedTransactions
	if len(ids) > 0 {
		if desc, err = c.adm.DescribeTransactions(ctx, ids...); err != nil && desc == nil {
			for i := range out {
				out[i].Error = "describe transactions: " + err.Error()
			}
			return
		}
	}
	for i := range out {
		o := &out[i]
		id, ok := byPID[o.ProducerID]
		if !ok {
			o.Hanging = true // no coordinator knows this producer
			continue
		}
		o.TransactionalID = id
		d, err := desc.On(id, nil)
		if err != nil || d.Err != nil {
			o.Error = fmt.Sprintf("describe transaction %q: %v", id, errors.Join(err, d.Err))
			continue
		}
		epoch := d.ProducerEpoch
		o.CoordinatorState, o.CoordinatorProducerEpoch, o.TimeoutMS = d.State, &epoch, int64(d.TimeoutMillis)
		_, has := d.Topics[topic][partition]
		o.CoordinatorHasPartition = has
		o.Hanging = d.ProducerID != o.ProducerID || d.State != "Ongoing" || !has
	}
}

// AbortTxn ends an open transaction on one partition with an abort marker,
// as `kafka-transactions.sh abort` does (Admin.abortTransaction, KIP-664):
// WriteTxnMarkers to the partition's leader with the producer id, epoch
// and coordinator epoch DescribeProducers gave.
func (c *Client) AbortTxn(ctx context.Context, topic string, partition int32, t histories.OpenTxn) error {
	resp, err := c.adm.WriteTxnMarkers(ctx, kadm.TxnMarkers{ProducerID: t.ProducerID, ProducerEpoch: t.ProducerEpoch,
		CoordinatorEpoch: t.CoordinatorEpoch, Topics: kadm.TopicsSet{topic: {partition: {}}}})
	if err != nil {
		return fmt.Errorf("write txn markers: %w", err)
	}
	for _, m := range resp {
		for _, tr := range m.Topics {
			for _, pr := range tr.Partitions {
				if pr.Err != nil {
					return fmt.Errorf("abort marker on %s-%d: %w", pr.Topic, pr.Partition, pr.Err)
				}
			}
		}
	}
	return nil
}
