package franz

import (
	"context"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/workloads"
)

var _ workloads.TxnDriver = franzDriver{}

// franzTxn is a kgo client that is both the transactional producer and,
// for a transaction's polls, a read_committed direct consumer: one client,
// as in Jepsen's model of a transaction by one process.
type franzTxn struct {
	cl    *kgo.Client
	topic string
	pos   map[int32]int64 // next poll offset per partition, once known
	once  sync.Once
}

// NewTxnProducer maps Config onto kgo options as NewProducer does, plus
// TransactionalID and TransactionTimeout; acks are all (Validate insists)
// and idempotence is kgo's default. As a consumer it reads at
// read_committed, keeps control records (so that positions step over
// transaction markers, which take offsets), and never resets by itself.
//
// Close does not end an open transaction (kgo sends EndTxn only from
// EndTransaction): an abandoned client is a crashed producer, whose
// transaction the coordinator aborts on timeout or when a successor
// initialises.
func (franzDriver) NewTxnProducer(cfg workloads.Config, bootstrap []string, id int) (workloads.TxnProducer, error) {
	rt := cfg.RequestTimeout.Std()
	txnID := workloads.TransactionalID(cfg.Topic, id)
	opts := append(workloads.FranzCommon(cfg, bootstrap, workloads.TxnProducerClientID(id)),
		kgo.DefaultProduceTopic(cfg.Topic),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.RecordRetries(cfg.Retries),
		kgo.ProduceRequestTimeout(rt),
		kgo.RecordDeliveryTimeout(time.Duration(cfg.Retries+1)*rt+time.Second),
		kgo.ProducerLinger(0),
		kgo.ProducerBatchCompression(kgo.NoCompression()),
		kgo.TransactionalID(txnID),
		kgo.TransactionTimeout(cfg.Transactions.Timeout.Std()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.KeepControlRecords(),
		kgo.ConsumeResetOffset(kgo.NoResetOffset()),
		kgo.FetchMaxWait(200*time.Millisecond),
	)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, err
	}
	return &franzTxn{cl: cl, topic: cfg.Topic, pos: map[int32]int64{}}, nil
}

func (t *franzTxn) Begin() error { return t.cl.BeginTransaction() }

func (t *franzTxn) ProducerID(ctx context.Context) (int64, int16, error) {
	return t.cl.ProducerID(ctx)
}

// Send produces one record and waits for its promise.
func (t *franzTxn) Send(ctx context.Context, m workloads.Message) (int64, error) {
	r := &kgo.Record{Partition: m.Partition, Value: []byte(m.Value)}
	res := t.cl.ProduceSync(ctx, r)
	return r.Offset, res.FirstErr()
}

// Poll consumes partitions for the length of one poll: it adds them at
// their positions (AtEnd, which kgo lists at read_committed, where none is
// known yet), polls until records or ctx's end, and removes them again, so
// that nothing is fetched between transactions.
func (t *franzTxn) Poll(ctx context.Context, partitions []int32) ([]histories.Record, error) {
	at := map[int32]kgo.Offset{}
	for _, p := range partitions {
		if o, ok := t.pos[p]; ok {
			at[p] = kgo.NewOffset().At(o)
		} else {
			at[p] = kgo.NewOffset().AtEnd()
		}
	}
	t.cl.AddConsumePartitions(map[string]map[int32]kgo.Offset{t.topic: at})
	defer t.cl.RemoveConsumePartitions(map[string][]int32{t.topic: partitions})
	var (
		recs []histories.Record
		errs []error
	)
	for len(recs) == 0 && !workloads.Ended(ctx) {
		fs := t.cl.PollFetches(ctx)
		if fs.IsClientClosed() {
			return nil, kgo.ErrClientClosed
		}
		fs.EachPartition(func(p kgo.FetchTopicPartition) {
			if p.Err != nil && p.Partition >= 0 {
				errs = append(errs, p.Err)
				if code, ok := workloads.KafkaCode(p.Err); ok && code == kerr.OffsetOutOfRange.Code {
					delete(t.pos, p.Partition) // the next poll starts at the end
				}
			}
			for _, r := range p.Records {
				t.pos[r.Partition] = r.Offset + 1
				if r.Attrs.IsControl() {
					continue
				}
				recs = append(recs, histories.Record{Partition: r.Partition, Offset: r.Offset,
					Value: string(r.Value), LeaderEpoch: r.LeaderEpoch})
			}
		})
		if len(errs) > 0 && len(recs) == 0 {
			return nil, errs[0]
		}
	}
	return recs, nil
}

// End ends the transaction. Sends are synchronous, so nothing is buffered
// at a commit; an abort first fails whatever might still be.
func (t *franzTxn) End(ctx context.Context, commit bool) error {
	if !commit {
		if err := t.cl.AbortBufferedRecords(ctx); err != nil {
			return err
		}
	}
	return t.cl.EndTransaction(ctx, kgo.TransactionEndTry(commit))
}

func (t *franzTxn) Close() { t.once.Do(t.cl.Close) }
