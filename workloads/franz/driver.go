// Package franz is the franz-go driver (github.com/twmb/franz-go, kgo):
// producers, consumers, transactional producers (txn.go), group members
// (group.go) and share members (share.go, with the tap on their
// connections that reads the broker's answers to their acks: wire.go).
// It registers itself with the seam (workloads.RegisterDriver) at init
// and is linked by workloads/drivers, as every driver package is: the
// seam's loops own the history, the driver only moves records.
//
// The seam calls franz-go itself for needs of its own (the share group's
// admin client, reading Kafka's error codes, the metadata workload's
// admin for the Go drivers): that is not this driver, and stays there.
package franz

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kchaos/kchaos/workloads"
)

// franzDriver is github.com/twmb/franz-go (kgo).
type franzDriver struct{}

func init() { workloads.RegisterDriver(franzDriver{}) }

var _ workloads.GroupDriver = franzDriver{}

func (franzDriver) Name() string { return workloads.DriverFranz }

// Refuse: franz-go honours every setting of Config. Its idempotent producer
// needs acks=all and retries > 0, which Validate checks for every driver.
func (franzDriver) Refuse(workloads.Config) []workloads.FieldError { return nil }

// Capabilities: a member's manual commit carries the leader epoch the
// workload gives it (group.go: Commit puts each partition's epoch in its
// kgo.EpochOffset), so commit_epoch: record runs on franz-go alone; a
// classic member's subscription carries the workload's user data
// (userDataBalancer, group.metadata_bytes).
func (franzDriver) Capabilities() workloads.Capabilities {
	return workloads.Capabilities{CommitLeaderEpoch: true, SubscriptionUserData: true}
}

// franzAcks maps the setting to kgo's.
func franzAcks(a workloads.Acks) kgo.Acks {
	switch a.Normalize() {
	case workloads.AcksNone:
		return kgo.NoAck()
	case workloads.AcksLeader:
		return kgo.LeaderAck()
	}
	return kgo.AllISRAcks()
}

// franzProducer is one kgo client. Its records are pinned to the partition
// the workload chose (ManualPartitioner), and sent without lingering.
type franzProducer struct {
	cl     *kgo.Client
	once   sync.Once
	writes produceWrites
}

// NewProducer maps Config onto kgo options:
//   - acks: RequiredAcks; idempotent=false: DisableIdempotentWrite (kgo is
//     idempotent by default);
//   - retries: RecordRetries(n). With 0, a batch is tried once: a
//     retriable error fails it with the broker's error, except that after
//     REQUEST_TIMED_OUT or NOT_ENOUGH_REPLICAS_AFTER_APPEND kgo fails it
//     with ErrRecordRetries (both are info either way);
//   - request timeout: ProduceRequestTimeout (the broker's acks wait) plus
//     RequestTimeoutOverhead for the response, and RecordDeliveryTimeout
//     bounding a record's whole life in the client (every try plus a
//     second), so that a send to a partition without leader ends too;
//   - ProducerLinger(0): a one-op-in-flight process must not wait for a
//     batch to fill; in pipelined mode records still batch, because the
//     slots' concurrent records accumulate while a request is in flight.
func (franzDriver) NewProducer(cfg workloads.Config, bootstrap []string, id int) (workloads.Producer, error) {
	rt := cfg.RequestTimeout.Std()
	opts := append(workloads.FranzCommon(cfg, bootstrap, workloads.ProducerClientID(id)),
		kgo.DefaultProduceTopic(cfg.Topic),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.RequiredAcks(franzAcks(cfg.Acks)),
		kgo.RecordRetries(cfg.Retries),
		kgo.ProduceRequestTimeout(rt),
		kgo.RecordDeliveryTimeout(time.Duration(cfg.Retries+1)*rt+time.Second),
		kgo.ProducerLinger(0),
		kgo.ProducerBatchCompression(kgo.NoCompression()),
	)
	if !cfg.Idempotent {
		opts = append(opts, kgo.DisableIdempotentWrite())
	}
	p := &franzProducer{}
	opts = append(opts, kgo.WithHooks(&p.writes))
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, err
	}
	p.cl = cl
	return p, nil
}

// produceWrites counts the Produce requests a client wrote (any bytes of
// one on the wire). kgo reports a send's last error only, and it writes a
// record's batch again beyond RecordRetries: a batch whose request broke
// while its partition moved to another broker is retried there at once,
// not counted, and a batch it is unsure about (after REQUEST_TIMED_OUT or
// NOT_ENOUGH_REPLICAS_AFTER_APPEND) is retried whatever the limit (sink.go
// handleRetryBatches, handleReqResp). So an earlier write may have landed
// whatever the last error says: s13 on 4.4.0, 2026-12-02, a send failed
// "connection refused" 30 ms after its invoke, and its value was read at
// offset 11 (aborted-read). Counting the writes during a send tells when
// its error cannot be definite (Send wraps it: errMaybeWritten).
type produceWrites struct{ n atomic.Int64 }

var _ kgo.HookBrokerWrite = (*produceWrites)(nil)

// OnBrokerWrite implements kgo.HookBrokerWrite.
func (w *produceWrites) OnBrokerWrite(_ kgo.BrokerMetadata, key int16, bytesWritten int, _, _ time.Duration, _ error) {
	if key == 0 && bytesWritten > 0 { // 0: Produce
		w.n.Add(1)
	}
}

// Send produces one record synchronously.
func (p *franzProducer) Send(ctx context.Context, m workloads.Message) (int64, error) {
	r := &kgo.Record{Partition: m.Partition, Value: []byte(m.Value)}
	if m.Key != "" {
		r.Key = []byte(m.Key)
	}
	var (
		done = make(chan struct{})
		perr error
	)
	before := p.writes.n.Load()
	p.cl.Produce(ctx, r, func(_ *kgo.Record, err error) {
		perr = err
		close(done)
	})
	<-done
	if perr != nil {
		perr = workloads.MaybeWritten(perr, p.writes.n.Load()-before)
	}
	return r.Offset, perr
}

// ProducerID is the client's producer id and epoch (-1 for a producer that
// is not idempotent), loading it with InitProducerID if need be.
func (p *franzProducer) ProducerID(ctx context.Context) (int64, int16, error) {
	return p.cl.ProducerID(ctx)
}

// Close closes the client; buffered and in-flight records fail with
// ErrClientClosed.
func (p *franzProducer) Close() { p.once.Do(p.cl.Close) }
