// Package kafkago is the segmentio/kafka-go driver: producers, consumers
// (consumer.go) and group members (group.go); no transactional or share
// clients (Refuse says why). It registers itself with the seam
// (workloads.RegisterDriver) at init and is linked by workloads/drivers,
// as every driver package is: the seam's loops own the history, the
// driver only moves records.
package kafkago

import (
	"context"
	"errors"
	"sync"
	"time"

	kafka "github.com/segmentio/kafka-go"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/workloads"
)

// kafkaGoDriver is github.com/segmentio/kafka-go.
type kafkaGoDriver struct{}

func init() { workloads.RegisterDriver(kafkaGoDriver{}) }

var _ workloads.GroupDriver = kafkaGoDriver{}

func (kafkaGoDriver) Name() string { return workloads.DriverKafkaGo }

// Refuse lists what kafka-go cannot do: it has no idempotent producer (it
// never sends InitProducerId, so its batches carry no producer id or
// sequence numbers for the broker to deduplicate), hence no transactional
// one, and kchaos's kafka-go consumer reads at read_uncommitted only.
func (kafkaGoDriver) Refuse(cfg workloads.Config) []workloads.FieldError {
	var out []workloads.FieldError
	if cfg.Transactions.Enabled {
		out = append(out, workloads.FieldError{Path: "transactions.enabled",
			Msg: "kafka-go has no transactional producer (no InitProducerId, AddPartitionsToTxn or EndTxn); use driver franz"})
	}
	if histories.IsReadCommitted(cfg.Isolation) {
		out = append(out, workloads.FieldError{Path: "isolation",
			Msg: "the kafka-go consumer reads at read_uncommitted only; use driver franz for read_committed"})
	}
	if cfg.Group.UsesProtocol(histories.ProtocolConsumer) {
		out = append(out, workloads.FieldError{Path: cfg.Group.ProtocolPath(),
			Msg: "kafka-go has no KIP-848 consumer protocol (its ConsumerGroup speaks JoinGroup/SyncGroup only, no ConsumerGroupHeartbeat); use driver franz or protocol classic"})
	}
	if cfg.Idempotent && !cfg.Transactions.Enabled {
		out = append(out, workloads.FieldError{Path: "idempotent",
			Msg: "kafka-go has no idempotent producer (no producer id or sequence numbers); use driver franz or idempotent: false"})
	}
	return out
}

// Capabilities: a classic member's subscription carries the workload's
// user data (group.go's userDataBalancer, group.metadata_bytes).
func (kafkaGoDriver) Capabilities() workloads.Capabilities {
	return workloads.Capabilities{SubscriptionUserData: true}
}

// kafkaGoTransport is a transport of one client, so that clients share no
// connections or metadata. MetadataTTL is short because kafka-go refreshes
// its routing only on that timer, not on NOT_LEADER_OR_FOLLOWER: with the
// 6 s default a client keeps sending to a dead leader for seconds.
func kafkaGoTransport(cfg workloads.Config, clientID string) *kafka.Transport {
	return &kafka.Transport{
		DialTimeout: min(cfg.RequestTimeout.Std(), 5*time.Second),
		IdleTimeout: 30 * time.Second,
		MetadataTTL: time.Second,
		ClientID:    clientID,
	}
}

// kafkaGoProducer is one kafka.Writer. kafka-go's synchronous WriteMessages
// does not return offsets; its Completion callback does, for each batch,
// before WriteMessages returns. Values are unique in the run, so the
// callback files each offset under its value for Send to pick up.
type kafkaGoProducer struct {
	w       *kafka.Writer
	tr      *kafka.Transport
	offsets sync.Map // value -> int64
	once    sync.Once
}

// pinned is a Balancer that keeps the partition the workload chose (kafka-go
// hands the Message, with our Partition, to the balancer).
type pinned struct{}

func (pinned) Balance(msg kafka.Message, _ ...int) int { return msg.Partition }

// NewProducer maps Config onto a kafka.Writer:
//   - acks: RequiredAcks;
//   - retries: MaxAttempts = retries + 1 (kafka-go's default is 10);
//   - request timeout: WriteTimeout, which kafka-go uses as the produce
//     request's broker-side timeout and as the client deadline alike;
//   - one op in flight: BatchSize 1, so each send is its own request at
//     once; pipelined: BatchSize = max_in_flight with a 1 ms BatchTimeout,
//     so the slots' concurrent records share requests. kafka-go writes one
//     batch at a time per partition.
func (kafkaGoDriver) NewProducer(cfg workloads.Config, bootstrap []string, id int) (workloads.Producer, error) {
	tr := kafkaGoTransport(cfg, workloads.ProducerClientID(id))
	p := &kafkaGoProducer{tr: tr}
	rt := cfg.RequestTimeout.Std()
	p.w = &kafka.Writer{
		Addr:            kafka.TCP(bootstrap...),
		Topic:           cfg.Topic,
		Balancer:        pinned{},
		MaxAttempts:     cfg.Retries + 1,
		WriteBackoffMin: 100 * time.Millisecond,
		WriteBackoffMax: time.Second,
		BatchSize:       cfg.MaxInFlight,
		BatchTimeout:    time.Millisecond,
		ReadTimeout:     rt,
		WriteTimeout:    rt,
		RequiredAcks:    kafka.RequiredAcks(cfg.Acks.Int()),
		Completion:      p.completion,
		Transport:       tr,
	}
	return p, nil
}

func (p *kafkaGoProducer) completion(msgs []kafka.Message, err error) {
	if err != nil {
		return
	}
	for _, m := range msgs {
		p.offsets.Store(string(m.Value), m.Offset)
	}
}

// Send writes one message synchronously.
func (p *kafkaGoProducer) Send(ctx context.Context, m workloads.Message) (int64, error) {
	msg := kafka.Message{Partition: int(m.Partition), Value: []byte(m.Value)}
	if m.Key != "" {
		msg.Key = []byte(m.Key)
	}
	err := p.w.WriteMessages(ctx, msg)
	off, ok := p.offsets.LoadAndDelete(m.Value)
	if err != nil {
		return -1, unwrapWriteErrors(err)
	}
	if !ok {
		// Cannot happen: Completion runs before the batch completes.
		return -1, errors.New("kafka-go: write succeeded without an offset")
	}
	return off.(int64), nil
}

// unwrapWriteErrors returns the one message's error from kafka.WriteErrors,
// which does not unwrap for errors.As.
func unwrapWriteErrors(err error) error {
	var we kafka.WriteErrors
	if errors.As(err, &we) {
		for _, e := range we {
			if e != nil {
				return e
			}
		}
	}
	return err
}

// Close flushes and closes the writer, then its connections.
func (p *kafkaGoProducer) Close() {
	p.once.Do(func() {
		_ = p.w.Close()
		p.tr.CloseIdleConnections()
	})
}
