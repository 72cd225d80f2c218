package java

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/workloads"
)

// javaDriver is Apache Kafka's own Java client (org.apache.kafka:
// kafka-clients), run in one JVM per workload run (and one per group
// member, so that a member can crash alone: group.go) and driven over
// a line protocol (proc.go). Where the JVM runs: where the cluster
// runs clients (Config.Runner; on Docker, the default there, a container
// of the run's own beside the brokers, on the run's network with an
// address of its own, as a service's client runs beside its brokers),
// else on the kchaos host (SSH). Either way its stdin and stdout are
// attached to kchaos, which stamps each event as its line arrives: the
// history's time line is one clock. Producers, consumers,
// transactional producers (txn.go), group members and the metadata
// workload's admin client (admin.go) are handles in it. Only records cross the
// protocol: the Go loops record the history with the host's clock, so the
// history is the one the Go drivers write.
type javaDriver struct{}

func init() { workloads.RegisterDriver(javaDriver{}) }

// Prepare builds the driver for cfg's client version unless it is built:
// the first build resolves kafka-clients through Maven, minutes that a
// caller timing a run (the seam's integration tests and benchmarks) keeps
// off its clock by calling Prepare first. A run needs no Prepare: its
// first client builds as well.
func (javaDriver) Prepare(ctx context.Context, cfg workloads.Config) error {
	v, err := javaClientVersion(cfg)
	if err != nil {
		return err
	}
	_, err = javaBuild(ctx, v)
	return err
}

func (javaDriver) Name() string { return workloads.DriverJava }

// Capabilities: kafka-clients comes in Kafka's releases (client_version
// picks one: javaClientVersion), takes the Java properties kchaos does not
// map as written (javaProducerProps, javaConsumerProps: withProps), and its
// KafkaShareConsumer has the implicit acknowledgement mode (share.go).
func (javaDriver) Capabilities() workloads.Capabilities {
	return workloads.Capabilities{ClientVersion: true, VerbatimProps: true, ImplicitShareAck: true}
}

// Refuse: a client version it cannot resolve or that lacks what the
// workload asks (javaShareRefusals), and a host without the JDK (java to
// run; javac and mvn too until the driver is built for the version).
func (javaDriver) Refuse(cfg workloads.Config) []workloads.FieldError {
	var out []workloads.FieldError
	v, err := javaClientVersion(cfg)
	if err != nil {
		out = append(out, workloads.FieldError{Path: "client_version", Msg: err.Error()})
	} else {
		out = append(out, javaShareRefusals(cfg, v)...)
	}
	if _, err := javaTool("java"); err != nil {
		out = append(out, workloads.FieldError{Path: "driver", Msg: "java: " + err.Error()})
	} else if v != "" {
		for _, m := range javaBuildTools(v) {
			out = append(out, workloads.FieldError{Path: "driver", Msg: "java: " + m})
		}
	}
	return out
}

// javaClientVersion is the kafka-clients version (Maven's) the driver
// runs: workload.client_version, else the cluster's Kafka version
// (Config.ClusterVersion, which the harness sets). Either is resolved as
// cluster.ResolveVersion resolves the cluster's (X.Y.Z from 3.9 on, X.Y.x,
// latest; local:NAME is kafka-clients NAME from the local Maven
// repository, as publishToMavenLocal leaves it).
func javaClientVersion(cfg workloads.Config) (string, error) {
	v, from := cfg.ClientVersion, "client_version"
	if v == "" {
		v, from = cfg.ClusterVersion, "the cluster's version"
	}
	if v == "" {
		return "", errors.New("driver java needs the client's version: set workload.client_version (X.Y.Z), or run under the harness, which passes the cluster's Kafka version")
	}
	r, err := cluster.ResolveVersion(v)
	if err != nil {
		return "", fmt.Errorf("%s: %w", from, err)
	}
	return strings.TrimPrefix(r, cluster.LocalPrefix), nil
}

// ms is d in milliseconds, as a Java client property.
func ms(d time.Duration) string {
	return strconv.FormatInt(min(d.Milliseconds(), math.MaxInt32), 10)
}

// javaCommon are the properties every kchaos Java client shares, as
// workloads.FranzCommon's: quick metadata refresh after a leader moves, and bounded
// connection set-up, so that a paused broker costs a timeout, not a hang.
func javaCommon(cfg workloads.Config, bootstrap []string, clientID string) map[string]string {
	dial := ms(min(cfg.RequestTimeout.Std(), 5*time.Second))
	return map[string]string{
		"bootstrap.servers":                      strings.Join(bootstrap, ","),
		"client.id":                              clientID,
		"metadata.max.age.ms":                    "10000",
		"retry.backoff.ms":                       "100",
		"retry.backoff.max.ms":                   "1000",
		"reconnect.backoff.ms":                   "50",
		"reconnect.backoff.max.ms":               "1000",
		"socket.connection.setup.timeout.ms":     dial,
		"socket.connection.setup.timeout.max.ms": dial,
	}
}

// javaProducerProps maps Config onto KafkaProducer properties:
//   - acks; enable.idempotence always set (the client's default is true
//     since 3.0, kchaos's is false);
//   - retries (the client's default is MAX_INT; kchaos's 0 keeps a
//     definite broker error definite);
//   - request.timeout.ms: the produce request's broker-side timeout and
//     the client's wait for its response alike; delivery.timeout.ms
//     bounds a record's whole life in the client, every try plus a second,
//     as franz-go's RecordDeliveryTimeout; max.block.ms the same, for a
//     send() waiting for metadata;
//   - max.in.flight.requests.per.connection: max_in_flight, at most 5 for
//     an idempotent producer (the Java client refuses more; the slots
//     beyond it still send concurrently and batch, as with franz-go), as
//     written without idempotence (the Java client takes any count there,
//     and a service's file that writes 10 means 10);
//   - linger.ms 0 and no compression, as the Go drivers;
//   - then the service's own ProducerProps (--producer-config), which win.
func javaProducerProps(cfg workloads.Config, bootstrap []string, id int) map[string]string {
	rt := cfg.RequestTimeout.Std()
	delivery := time.Duration(cfg.Retries+1)*rt + time.Second
	p := javaCommon(cfg, bootstrap, workloads.ProducerClientID(id))
	set := map[string]string{
		"acks":                                  string(cfg.Acks.Normalize()),
		"enable.idempotence":                    strconv.FormatBool(cfg.Idempotent),
		"retries":                               strconv.Itoa(cfg.Retries),
		"request.timeout.ms":                    ms(rt),
		"delivery.timeout.ms":                   ms(delivery),
		"max.block.ms":                          ms(delivery),
		"max.in.flight.requests.per.connection": strconv.Itoa(javaMaxInFlight(cfg)),
		"linger.ms":                             "0",
		"compression.type":                      "none",
	}
	for k, v := range set {
		p[k] = v
	}
	return withProps(p, cfg.ProducerProps)
}

// javaMaxInFlight is the producer's max.in.flight.requests.per.connection:
// an idempotent producer (transactions included) takes at most
// workloads.IdempotentMaxInFlight, which the Java client enforces; without
// idempotence, max_in_flight itself.
func javaMaxInFlight(cfg workloads.Config) int {
	if cfg.IdempotentInEffect() {
		return min(cfg.MaxInFlight, workloads.IdempotentMaxInFlight)
	}
	return cfg.MaxInFlight
}

// javaConsumerProps: an assigned consumer without a group (no commits),
// auto.offset.reset none (OFFSET_OUT_OF_RANGE comes back to the workload,
// which resets by its own rule and records the assign), the configured
// isolation level, and 500 ms fetch waits as the Go drivers; then the
// service's own ConsumerProps (--consumer-config), which win.
func javaConsumerProps(cfg workloads.Config, bootstrap []string, id int) map[string]string {
	p := javaCommon(cfg, bootstrap, workloads.ConsumerClientID(id))
	p["enable.auto.commit"] = "false"
	p["auto.offset.reset"] = "none"
	p["isolation.level"] = histories.ReadUncommitted
	if histories.IsReadCommitted(cfg.Isolation) {
		p["isolation.level"] = histories.ReadCommitted
	}
	p["fetch.max.wait.ms"] = "500"
	p["request.timeout.ms"] = "10000"
	return withProps(p, cfg.ConsumerProps)
}

// javaOpen opens a client handle in the run's JVM.
func javaOpen(cfg workloads.Config, bootstrap []string, op string, props map[string]string) (*jvm, int, error) {
	return javaOpenWith(cfg, bootstrap, op, map[string]any{"props": props})
}

// javaOpenWith opens a client handle in the run's JVM with the open's
// fields.
func javaOpenWith(cfg workloads.Config, bootstrap []string, op string, fields map[string]any) (*jvm, int, error) {
	v, err := javaClientVersion(cfg)
	if err != nil {
		return nil, 0, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute) // a first build resolves jars
	defer cancel()
	j, err := acquireJVM(ctx, v, bootstrap, cfg.Runner)
	if err != nil {
		return nil, 0, err
	}
	h, err := javaOpenOn(ctx, j, op, fields)
	if err != nil {
		releaseJVM(j)
		return nil, 0, err
	}
	return j, h, nil
}

// javaOpenOn opens a client handle in j.
func javaOpenOn(ctx context.Context, j *jvm, op string, fields map[string]any) (int, error) {
	octx, ocancel := context.WithTimeout(ctx, 30*time.Second)
	defer ocancel()
	r, err := j.call(octx, op, fields)
	if err != nil {
		return 0, fmt.Errorf("java client: %s: %w", op, err)
	}
	return r.Handle, nil
}

// javaHandle is one client in the JVM; Close closes it and lets the JVM go.
type javaHandle struct {
	j    *jvm
	h    int
	once sync.Once
}

func (c *javaHandle) Close() {
	c.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		_, _ = c.j.call(ctx, "close", map[string]any{"handle": c.h})
		releaseJVM(c.j)
	})
}

// javaProducer is one KafkaProducer.
type javaProducer struct {
	javaHandle
	topic string
}

func (javaDriver) NewProducer(cfg workloads.Config, bootstrap []string, id int) (workloads.Producer, error) {
	j, h, err := javaOpen(cfg, bootstrap, "open-producer", javaProducerProps(cfg, bootstrap, id))
	if err != nil {
		return nil, err
	}
	return &javaProducer{javaHandle: javaHandle{j: j, h: h}, topic: cfg.Topic}, nil
}

// Send hands the record to KafkaProducer.send and waits for its callback.
// When ctx ends first the outcome is unknown (info): the callback's late
// answer is dropped.
func (p *javaProducer) Send(ctx context.Context, m workloads.Message) (int64, error) {
	f := map[string]any{"handle": p.h, "topic": p.topic, "partition": m.Partition, "value": m.Value}
	if m.Key != "" {
		f["key"] = m.Key
	}
	r, err := p.j.call(ctx, "send", f)
	if err != nil {
		return -1, err
	}
	return r.Offset, nil
}

// javaConsumer is one KafkaConsumer (a thread of its own in the JVM).
type javaConsumer struct {
	javaHandle
	topic string
	// A poll whose ctx ended before its answer: the answer is still
	// wanted, since the consumer's position moved past its records.
	late   chan javaResp
	lateID int64
}

func (javaDriver) NewConsumer(cfg workloads.Config, bootstrap []string, id int) (workloads.Consumer, error) {
	j, h, err := javaOpen(cfg, bootstrap, "open-consumer", javaConsumerProps(cfg, bootstrap, id))
	if err != nil {
		return nil, err
	}
	return &javaConsumer{javaHandle: javaHandle{j: j, h: h}, topic: cfg.Topic}, nil
}

// timeoutMS is what is left of ctx for the JVM to use, less margin for
// the answer to come back; def without a deadline.
func timeoutMS(ctx context.Context, def, margin time.Duration) int64 {
	d := def
	if dl, ok := ctx.Deadline(); ok {
		d = time.Until(dl) - margin
	}
	return max(d.Milliseconds(), 0)
}

// Offsets: KafkaConsumer.beginningOffsets (earliest) or endOffsets
// (latest: the last stable offset at read_committed, else the high
// watermark).
func (c *javaConsumer) Offsets(ctx context.Context, partitions []int32, rule string) (map[int32]int64, error) {
	r, err := c.j.call(ctx, "offsets", map[string]any{"handle": c.h, "topic": c.topic, "partitions": partitions,
		"rule": rule, "timeout_ms": timeoutMS(ctx, 5*time.Second, 100*time.Millisecond)})
	if err != nil {
		return nil, err
	}
	out, err := partitionMap(r.Offsets)
	if err == nil && len(out) < len(partitions) {
		err = fmt.Errorf("offsets answered for %d of %d partitions", len(out), len(partitions))
	}
	return out, err
}

// Assign: assign then seek each partition. A poll still unanswered is
// answered first (the JVM runs a consumer's requests in order); its
// records are of the old positions and were never returned, so the
// workload never saw them.
func (c *javaConsumer) Assign(ctx context.Context, offsets map[int32]int64) error {
	c.dropLate(ctx)
	offs := map[string]int64{}
	for p, o := range offsets {
		offs[strconv.Itoa(int(p))] = o
	}
	_, err := c.j.call(ctx, "assign", map[string]any{"handle": c.h, "topic": c.topic, "offsets": offs})
	return err
}

func (c *javaConsumer) dropLate(ctx context.Context) {
	if c.late != nil {
		_, _ = c.j.wait(ctx, c.lateID, c.late, true)
		c.late = nil
	}
}

// Poll: KafkaConsumer.poll for what is left of ctx. The JVM may answer
// after ctx ended (a poll can overrun its timeout): then this poll is
// empty and the next Poll returns that answer, since its records are
// consumed in the JVM and must not go unrecorded.
func (c *javaConsumer) Poll(ctx context.Context) (workloads.Fetch, error) {
	r, err := c.pollResp(ctx)
	if err != nil || r.ID == 0 {
		return workloads.Fetch{}, err
	}
	return javaFetch(r)
}

// pollResp is Poll's answer as the JVM gave it; ID 0 (and no error): an
// empty poll whose answer comes with the next.
func (c *javaConsumer) pollResp(ctx context.Context) (javaResp, error) {
	id, ch := c.lateID, c.late
	if ch == nil {
		var err error
		id, ch, err = c.j.start("poll", map[string]any{"handle": c.h,
			"timeout_ms": timeoutMS(ctx, workloads.PollWait, 50*time.Millisecond)})
		if err != nil {
			return javaResp{}, err
		}
	}
	r, err := c.j.wait(ctx, id, ch, true)
	if err != nil && ctx.Err() != nil && r.ID == 0 {
		c.late, c.lateID = ch, id
		return javaResp{}, nil // an empty poll; the answer comes with the next
	}
	c.late = nil
	return r, err
}

// javaFetch turns a poll's answer into a Fetch.
func javaFetch(r javaResp) (workloads.Fetch, error) {
	var f workloads.Fetch
	for _, rec := range r.Records {
		f.Records = append(f.Records, histories.Record{Partition: rec.P, Offset: rec.O, Value: rec.V, LeaderEpoch: rec.E})
	}
	sort.SliceStable(f.Records, func(i, j int) bool { return f.Records[i].Partition < f.Records[j].Partition })
	for _, pe := range r.Errors {
		if pe.Error != nil {
			f.Errors = append(f.Errors, workloads.PartitionError{Partition: pe.Partition, Err: pe.Error})
		}
	}
	var err error
	if len(r.Resets) > 0 {
		if f.Resets, err = partitionMap(r.Resets); err != nil {
			return workloads.Fetch{}, err
		}
	}
	if len(r.Next) > 0 {
		if f.Next, err = partitionMap(r.Next); err != nil {
			return workloads.Fetch{}, err
		}
	}
	return f, nil
}

// partitionMap reads the protocol's {"partition": offset} objects.
func partitionMap(m map[string]int64) (map[int32]int64, error) {
	out := make(map[int32]int64, len(m))
	for k, v := range m {
		p, err := strconv.ParseInt(k, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("java client: partition %q: %w", k, err)
		}
		out[int32(p)] = v
	}
	return out, nil
}

// withProps applies a file's verbatim keys over the properties kchaos set
// (the java driver, after its own settings: the service's word wins).
func withProps(p, props map[string]string) map[string]string {
	maps.Copy(p, props)
	return p
}
