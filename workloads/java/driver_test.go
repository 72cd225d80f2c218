package java

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/workloads"
	"github.com/kchaos/kchaos/workloads/workloadstest"
)

// TestJavaErrorMapping: the Java client's exceptions, as the JVM reports
// them, get the error names and fail/info classes the Go drivers' errors
// get (errors.go), so the checker cannot tell which client ran.
func TestJavaErrorMapping(t *testing.T) {
	je := func(class, msg, kafka string, retriable, timeout bool) *JavaError {
		return &JavaError{Class: class, Message: msg, Kafka: kafka, Retriable: retriable, Timeout: timeout}
	}
	const errs = "org.apache.kafka.common.errors."
	for _, c := range []struct {
		name      string
		err       error
		acks      workloads.Acks
		retried   bool
		wantName  string
		wantType  histories.Type
		sameAsGo  error // a Go driver's error that must classify alike
		wantCode  int16
		wantKafka bool
	}{
		{"delivery timeout", je(errs+"TimeoutException", "Expiring 1 record(s) for t-0:3001 ms has passed since batch creation", "REQUEST_TIMED_OUT", true, true),
			workloads.AcksAll, false, workloads.CauseTimeout, histories.Info, context.DeadlineExceeded, 7, true},
		{"metadata wait", je(errs+"TimeoutException", "Topic t not present in metadata after 2000 ms.", "REQUEST_TIMED_OUT", true, true),
			workloads.AcksLeader, false, workloads.CauseTimeout, histories.Info, nil, 7, true},
		{"buffer full", je("org.apache.kafka.clients.producer.BufferExhaustedException", "Failed to allocate memory", "REQUEST_TIMED_OUT", true, true),
			workloads.AcksAll, true, workloads.CauseMaxBuffered, histories.Fail, nil, 7, true},
		{"not leader acks=1", je(errs+"NotLeaderOrFollowerException", "not leader", "NOT_LEADER_OR_FOLLOWER", true, false),
			workloads.AcksLeader, false, "NOT_LEADER_OR_FOLLOWER", histories.Fail, kerr.NotLeaderForPartition, 6, true},
		{"not leader acks=all", je(errs+"NotLeaderOrFollowerException", "not leader", "NOT_LEADER_OR_FOLLOWER", true, false),
			workloads.AcksAll, false, "NOT_LEADER_OR_FOLLOWER", histories.Info, kerr.NotLeaderForPartition, 6, true},
		{"not enough replicas", je(errs+"NotEnoughReplicasException", "isr too small", "NOT_ENOUGH_REPLICAS", true, false),
			workloads.AcksAll, false, "NOT_ENOUGH_REPLICAS", histories.Fail, kerr.NotEnoughReplicas, 19, true},
		{"not enough replicas, retried", je(errs+"NotEnoughReplicasException", "isr too small", "NOT_ENOUGH_REPLICAS", true, false),
			workloads.AcksAll, true, "NOT_ENOUGH_REPLICAS", histories.Info, nil, 19, true},
		{"after append", je(errs+"NotEnoughReplicasAfterAppendException", "", "NOT_ENOUGH_REPLICAS_AFTER_APPEND", true, false),
			workloads.AcksAll, false, "NOT_ENOUGH_REPLICAS_AFTER_APPEND", histories.Info, kerr.NotEnoughReplicasAfterAppend, 20, true},
		{"disconnected", je(errs+"NetworkException", "Disconnected from node 1", "NETWORK_EXCEPTION", true, false),
			workloads.AcksAll, false, "NETWORK_EXCEPTION", histories.Info, nil, 13, true},
		{"too large", je(errs+"RecordTooLargeException", "too big", "MESSAGE_TOO_LARGE", false, false),
			workloads.AcksAll, false, "MESSAGE_TOO_LARGE", histories.Fail, kerr.MessageTooLarge, 10, true},
		{"sequence", je(errs+"OutOfOrderSequenceException", "", "OUT_OF_ORDER_SEQUENCE_NUMBER", false, false),
			workloads.AcksAll, false, "OUT_OF_ORDER_SEQUENCE_NUMBER", histories.Fail, kerr.OutOfOrderSequenceNumber, 45, true},
		{"unknown server error", je(errs+"UnknownServerException", "boom", "UNKNOWN_SERVER_ERROR", false, false),
			workloads.AcksLeader, false, "UNKNOWN_SERVER_ERROR", histories.Info, kerr.UnknownServerError, -1, true},
		{"closed forcefully", je("org.apache.kafka.common.KafkaException", "Producer is closed forcefully.", "UNKNOWN_SERVER_ERROR", false, false),
			workloads.AcksLeader, false, workloads.CauseClientClosed, histories.Info, nil, 0, false},
		{"send after close", je("java.lang.IllegalStateException", "Cannot perform operation after producer has been closed", "UNKNOWN_SERVER_ERROR", false, false),
			workloads.AcksLeader, false, workloads.CauseClientClosed, histories.Info, nil, 0, false},
		{"wakeup", je(errs+"WakeupException", "", "UNKNOWN_SERVER_ERROR", false, false),
			workloads.AcksLeader, false, workloads.CauseClientClosed, histories.Info, nil, 0, false},
		{"any other exception", je("java.lang.NullPointerException", "oops", "UNKNOWN_SERVER_ERROR", false, false),
			workloads.AcksLeader, false, workloads.CauseUnknown, histories.Info, nil, 0, false},
		{"consumer offset out of range", je("org.apache.kafka.clients.consumer.OffsetOutOfRangeException", "out of range", "OFFSET_OUT_OF_RANGE", false, false),
			workloads.AcksAll, false, "OFFSET_OUT_OF_RANGE", histories.Info, nil, kerr.OffsetOutOfRange.Code, true},
		{"JVM gone", errJVMGone, workloads.AcksLeader, false, workloads.CauseClientClosed, histories.Info, nil, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := workloads.ClassifySend(c.err, c.acks, c.retried)
			if got.Name != c.wantName || got.Type != c.wantType {
				t.Errorf("ClassifySend = %s %s, want %s %s", got.Type, got.Name, c.wantType, c.wantName)
			}
			code, ok := workloads.KafkaCode(c.err)
			if ok != c.wantKafka || code != c.wantCode {
				t.Errorf("KafkaCode = %d %v, want %d %v", code, ok, c.wantCode, c.wantKafka)
			}
			if c.sameAsGo != nil {
				if g := workloads.ClassifySend(c.sameAsGo, c.acks, c.retried); g.Name != got.Name || g.Type != got.Type {
					t.Errorf("the Go drivers' %v is %s %s; the Java client's %s %s", c.sameAsGo, g.Type, g.Name, got.Type, got.Name)
				}
			}
		})
	}
	// Every Kafka error name maps to the code the Go drivers give it. (A
	// timeout keeps its code, REQUEST_TIMED_OUT, but is named by how the
	// client gave up, as RuleFor names franz-go's.)
	for _, r := range workloads.ProduceErrors {
		if c, ok := javaCode(&JavaError{Class: "org.apache.kafka.common.errors.UnknownServerException", Kafka: r.Name}); !ok || c != r.Code {
			t.Errorf("%s: code %d %v, want %d", r.Name, c, ok, r.Code)
		}
	}
}

// TestJavaProps: the Config's producer settings become the Java client's
// properties, with the client's own defaults (idempotence on, retries
// MAX_INT, linger 5 ms) always overridden.
func TestJavaProps(t *testing.T) {
	cfg := workloads.Config{Acks: workloads.AcksLeader, Retries: 2, MaxInFlight: 16, RequestTimeout: workloads.Duration(3 * time.Second)}
	cfg.Defaults()
	p := javaProducerProps(cfg, []string{"a:9092", "b:9092"}, 3)
	for k, want := range map[string]string{
		"bootstrap.servers": "a:9092,b:9092", "client.id": "kchaos-producer-3", "acks": "1",
		"enable.idempotence": "false", "retries": "2", "request.timeout.ms": "3000",
		"delivery.timeout.ms": "10000", "max.block.ms": "10000", "linger.ms": "0",
		"max.in.flight.requests.per.connection": "16", // no idempotence: as written
	} {
		if p[k] != want {
			t.Errorf("producer %s = %q, want %q", k, p[k], want)
		}
	}
	cfg = workloads.Config{Idempotent: true, Retries: 3, Isolation: "READ_COMMITTED"}
	cfg.Defaults()
	p = javaProducerProps(cfg, []string{"a:1"}, 0)
	if p["acks"] != "all" || p["enable.idempotence"] != "true" || p["max.in.flight.requests.per.connection"] != "1" {
		t.Errorf("idempotent producer: %v", p)
	}
	for _, tc := range []struct {
		name string
		cfg  workloads.Config
		want string
	}{
		{"idempotent, pipelined", workloads.Config{Idempotent: true, Retries: 3, MaxInFlight: 16}, "5"},
		{"idempotent, five", workloads.Config{Idempotent: true, Retries: 3, MaxInFlight: 5}, "5"},
		{"not idempotent, ten", workloads.Config{Retries: 3, MaxInFlight: 10}, "10"},
	} {
		tc.cfg.Defaults()
		if got := javaProducerProps(tc.cfg, []string{"a:1"}, 0)["max.in.flight.requests.per.connection"]; got != tc.want {
			t.Errorf("%s: max.in.flight.requests.per.connection = %s, want %s", tc.name, got, tc.want)
		}
	}
	c := javaConsumerProps(cfg, []string{"a:1"}, 2)
	if c["isolation.level"] != "read_committed" || c["auto.offset.reset"] != "none" || c["enable.auto.commit"] != "false" || c["group.id"] != "" {
		t.Errorf("consumer: %v", c)
	}
}

// fields returns the paths of a validation error's problems.
func fields(err error) map[string]string {
	out := map[string]string{}
	var ve *workloads.ValidationError
	if errors.As(err, &ve) {
		for _, p := range ve.Problems {
			out[p.Path] += p.Msg + ";"
		}
	}
	return out
}

// TestJavaRefuse: what the java driver cannot do is refused by name.
func TestJavaRefuse(t *testing.T) {
	empty := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	valid := func(mod func(*workloads.Config)) map[string]string {
		c := workloads.Config{Driver: "java", ClusterVersion: "4.1.2"}
		mod(&c)
		c.Defaults()
		return fields(c.Validate())
	}

	// No JDK at all.
	t.Setenv("JAVA_HOME", "")
	t.Setenv("PATH", empty)
	if got := valid(func(*workloads.Config) {}); !strings.Contains(got["driver"], "no java on PATH") {
		t.Errorf("no java: %v", got)
	}
	// A JRE without javac and no mvn, driver not built yet.
	jdk := t.TempDir()
	for _, n := range []string{"java", "javac"} {
		_ = os.MkdirAll(filepath.Join(jdk, "bin"), 0o755)
		_ = os.WriteFile(filepath.Join(jdk, "bin", n), []byte("#!/bin/sh\n"), 0o755)
	}
	t.Setenv("JAVA_HOME", jdk)
	if got := valid(func(*workloads.Config) {}); !strings.Contains(got["driver"], "no mvn") || strings.Contains(got["driver"], "javac") {
		t.Errorf("no mvn: %v", got)
	}
	// Built already (the stamp matches): nothing more is needed.
	dir, _ := javaBuildDir("4.1.2")
	_ = os.MkdirAll(dir, 0o755)
	_ = os.WriteFile(filepath.Join(dir, "built"), []byte(javaStamp("4.1.2")), 0o644)
	if got := valid(func(*workloads.Config) {}); len(got) != 0 {
		t.Errorf("built: %v", got)
	}
	for _, c := range []struct {
		name string
		mod  func(*workloads.Config)
		path string
		msg  string
	}{
		{"malformed client version", func(c *workloads.Config) { c.ClientVersion = "4.1" }, "client_version", "not a Kafka version"},
		{"too old", func(c *workloads.Config) { c.ClientVersion = "3.8.1" }, "client_version", "3.9 and later"},
		{"no version at all", func(c *workloads.Config) { c.ClusterVersion = "" }, "client_version", "needs the client's version"},
		{"shares with a client before share groups", func(c *workloads.Config) { c.Consumers = 0; c.Shares.Group = "s"; c.ClientVersion = "4.0.2" },
			"client_version", "need a client of 4.1 or later"},
		{"renew with a 4.1 client", func(c *workloads.Config) { c.Consumers = 0; c.Shares = workloads.ShareConfig{Group: "s", Renew: true} },
			"shares.renew", "4.2 or later"},
		{"implicit acks with a release mix", func(c *workloads.Config) {
			c.Consumers = 0
			c.Shares = workloads.ShareConfig{Group: "s", AckMode: workloads.ShareAckImplicit, Ack: workloads.ShareAckMix{Accept: 1, Release: 1}}
		}, "shares.ack_mode", "accept only"},
		{"implicit acks with franz-go", func(c *workloads.Config) {
			c.Driver, c.Consumers = workloads.DriverFranz, 0
			c.Shares = workloads.ShareConfig{Group: "s", AckMode: workloads.ShareAckImplicit}
		}, "shares.ack_mode", "acknowledges explicitly"},
		{"an unknown ack mode", func(c *workloads.Config) {
			c.Consumers = 0
			c.Shares = workloads.ShareConfig{Group: "s", AckMode: "auto"}
		},
			"shares.ack_mode", "want explicit or implicit"},
		{"shares with kafka-go", func(c *workloads.Config) { c.Driver, c.Consumers = workloads.DriverKafkaGo, 0; c.Shares.Group = "s" },
			"driver", "has no share consumer"},
		{"client version without java", func(c *workloads.Config) { c.Driver = workloads.DriverFranz; c.ClientVersion = "4.1.2" }, "client_version", "only with driver java"},
	} {
		got := valid(c.mod)
		if !strings.Contains(got[c.path], c.msg) {
			t.Errorf("%s: %v, want %s: ...%s...", c.name, got, c.path, c.msg)
		}
	}
	// Transactions, groups (both protocols, both commit modes) and the
	// metadata workload (the Java Admin client, NewMetaAdmin) run.
	for name, mod := range map[string]func(*workloads.Config){
		"metadata": func(c *workloads.Config) { c.Metadata.Clients = 1 },
		"shares":   func(c *workloads.Config) { c.Consumers = 0; c.Shares.Group = "s" },
		"shares implicit": func(c *workloads.Config) {
			c.Consumers = 0
			c.Shares = workloads.ShareConfig{Group: "s", AckMode: workloads.ShareAckImplicit}
		},
		"transactions":       func(c *workloads.Config) { c.Transactions.Enabled = true; c.Acks = workloads.AcksAll },
		"group classic auto": func(c *workloads.Config) { c.Consumers = 0; c.Group.ID = "g" },
		"group consumer manual": func(c *workloads.Config) {
			c.Consumers = 0
			c.Group = workloads.GroupConfig{ID: "g", Protocol: histories.ProtocolConsumer, Commit: workloads.CommitManual}
		},
	} {
		if got := valid(mod); len(got) != 0 {
			t.Errorf("%s refused: %v", name, got)
		}
	}
	if got := valid(func(c *workloads.Config) { c.ClientVersion = "4.0.x"; c.ClusterVersion = "" }); got["client_version"] != "" {
		// 4.0.x resolves to 4.0.2 (not built here: mvn is missing, but the
		// version is fine).
		t.Errorf("4.0.x: %v", got)
	}
}

// TestJavaWorkloadOverFakeJVM runs the produce/consume workload and the
// final read through the java driver against a fake JVM: every ok send is
// in the log at its offset, a refused send is fail, an expired one info,
// the consumer sees the records with their leader epochs, the final read
// completes, and the whole run used one JVM.
func TestJavaWorkloadOverFakeJVM(t *testing.T) {
	fake := &fakeJVM{sendErr: func(n int, _ map[string]any) *JavaError {
		switch n {
		case 5:
			return &JavaError{Class: "org.apache.kafka.common.errors.NotEnoughReplicasException", Kafka: "NOT_ENOUGH_REPLICAS", Retriable: true}
		case 9:
			return &JavaError{Class: "org.apache.kafka.common.errors.TimeoutException", Message: "Expiring 1 record(s)", Kafka: "REQUEST_TIMED_OUT", Timeout: true}
		}
		return nil
	}}
	var starts atomic.Int32
	startFakeJVM(t, fake)
	inner := javaRegistry.startJVM
	javaRegistry.startJVM = func(ctx context.Context, v string) (*jvm, error) {
		starts.Add(1)
		return inner(ctx, v)
	}
	cfg := workloads.Config{Driver: workloads.DriverJava, ClientVersion: "4.1.2", Producers: 2, MaxInFlight: 4, Partitions: 2,
		Consumers: 1, Duration: workloads.Duration(time.Minute)}
	cfg.Defaults()
	var buf bytes.Buffer
	rec := histories.NewRecorder(&buf)
	w, err := workloads.NewWithDriver(cfg, javaDriver{}, []string{"fake:9092"}, rec, 200)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := w.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fake.mu.Lock()
	hw := map[int32]int64{0: int64(len(fake.log[0])), 1: int64(len(fake.log[1]))}
	logs := map[int32][]string{0: fake.log[0], 1: fake.log[1]}
	fake.mu.Unlock()
	view := &fakeView{parts: []admin.PartitionState{{Partition: 0, Leader: 0}, {Partition: 1, Leader: 1}}, hw: hw}
	fr, err := w.FinalRead(ctx, view)
	if err != nil || !fr.Complete() {
		t.Fatalf("final read: %+v %v", fr, err)
	}
	evs := workloadstest.ReadBack(t, rec, &buf)
	if st.Sends != 200 || st.Acked != 198 || st.Failed != 1 || st.Indeterminate != 1 {
		t.Errorf("stats %+v", st)
	}
	if st.Errors["NOT_ENOUGH_REPLICAS"] != 1 || st.Errors[workloads.CauseTimeout] != 1 {
		t.Errorf("errors %v", st.Errors)
	}
	polled := 0
	for _, e := range evs {
		switch {
		case e.F == histories.FSend && e.Type == histories.OK:
			var v histories.SendValue
			if err := json.Unmarshal(e.Value, &v); err != nil || v.Offset == nil {
				t.Fatalf("send %s: %v", e.Value, err)
			}
			if l := logs[v.Partition]; *v.Offset >= int64(len(l)) || l[*v.Offset] != v.Value {
				t.Errorf("ok send %s is not in the log at its offset", e.Value)
			}
		case e.F == histories.FPoll && e.Type == histories.OK:
			var r histories.ReadResult
			_ = json.Unmarshal(e.Value, &r)
			for _, rec := range r.Records {
				if rec.LeaderEpoch != 3 || logs[rec.Partition][rec.Offset] != rec.Value {
					t.Errorf("polled %+v", rec)
				}
			}
			polled += len(r.Records)
		}
	}
	if polled == 0 || polled > 198 { // at most the acked ones: the fake appends no send it fails
		t.Errorf("polled %d records, want 1..198", polled)
	}
	if n := starts.Load(); n != 1 {
		t.Errorf("%d JVMs for one run, want 1", n)
	}
	if p := fake.opened["open-producer"]; p["client.id"] != "kchaos-producer-1" && p["client.id"] != "kchaos-producer-0" {
		t.Errorf("producer props %v", p)
	}
}

// TestJavaLatePollIsKept: a poll the JVM answers after its ctx ended is an
// empty poll, and its records come with the next Poll: the JVM consumed
// them, so dropping them would hide them from the history.
func TestJavaLatePollIsKept(t *testing.T) {
	release := make(chan struct{})
	fake := &fakeJVM{pollHook: func(n int, reply func(map[string]any)) bool {
		if n != 0 {
			return false
		}
		go func() {
			<-release
			reply(map[string]any{"records": []any{map[string]any{"p": 0, "o": 7, "v": "late", "e": 2}}, "next": map[string]any{"0": 8}})
		}()
		return true
	}}
	startFakeJVM(t, fake)
	cfg := workloads.Config{Driver: workloads.DriverJava, ClientVersion: "4.1.2"}
	cfg.Defaults()
	c, err := javaDriver{}.NewConsumer(cfg, []string{"fake:9092"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Assign(context.Background(), map[int32]int64{0: 7}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	f, err := c.Poll(ctx)
	cancel()
	if err != nil || len(f.Records) != 0 {
		t.Fatalf("first poll: %+v %v, want an empty poll", f, err)
	}
	close(release)
	f, err = c.Poll(context.Background())
	if err != nil || len(f.Records) != 1 || f.Records[0].Value != "late" || f.Records[0].LeaderEpoch != 2 || f.Next[0] != 8 {
		t.Fatalf("second poll: %+v %v, want the late record", f, err)
	}
	fake.mu.Lock()
	polls := fake.polls
	fake.mu.Unlock()
	if polls != 1 {
		t.Errorf("%d polls sent, want 1 (the second Poll takes the first's answer)", polls)
	}
}

// TestJavaPollErrors: per-partition offset errors come back as
// OFFSET_OUT_OF_RANGE (the consumer loop resets those), truncation resets
// as Resets.
func TestJavaPollErrors(t *testing.T) {
	fake := &fakeJVM{pollHook: func(_ int, reply func(map[string]any)) bool {
		reply(map[string]any{"records": []any{},
			"errors": []any{map[string]any{"partition": 1, "error": JavaError{Class: "org.apache.kafka.clients.consumer.OffsetOutOfRangeException", Kafka: "OFFSET_OUT_OF_RANGE"}}},
			"resets": map[string]any{"0": 4}})
		return true
	}}
	startFakeJVM(t, fake)
	cfg := workloads.Config{Driver: workloads.DriverJava, ClientVersion: "4.1.2"}
	cfg.Defaults()
	c, err := javaDriver{}.NewConsumer(cfg, []string{"fake:9092"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	f, err := c.Poll(context.Background())
	if err != nil || len(f.Errors) != 1 || f.Resets[0] != 4 {
		t.Fatalf("poll: %+v %v", f, err)
	}
	if code, ok := workloads.KafkaCode(f.Errors[0].Err); !ok || code != kerr.OffsetOutOfRange.Code || f.Errors[0].Partition != 1 {
		t.Errorf("partition error %+v: code %d", f.Errors[0], code)
	}
}

// TestJavaJVMExit: a JVM that dies ends the sends in flight as a closed
// client's (info), and the next client starts another JVM.
func TestJavaJVMExit(t *testing.T) {
	fake := &fakeJVM{}
	fake.sendErr = func(n int, _ map[string]any) *JavaError {
		if n == 1 {
			_ = fake.stdout.Close() // the JVM dies with the send in flight
			_ = fake.stdin.Close()
		}
		return nil
	}
	startFakeJVM(t, fake)
	cfg := workloads.Config{Driver: workloads.DriverJava, ClientVersion: "4.1.2"}
	cfg.Defaults()
	p, err := javaDriver{}.NewProducer(cfg, []string{"fake:9092"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if off, err := p.Send(context.Background(), workloads.Message{Value: "a"}); err != nil || off != 0 {
		t.Fatalf("first send: %d %v", off, err)
	}
	_, err = p.Send(context.Background(), workloads.Message{Value: "b"})
	if cl := workloads.ClassifySend(err, workloads.AcksLeader, false); cl.Type != histories.Info || cl.Name != workloads.CauseClientClosed {
		t.Errorf("send in flight when the JVM died: %v is %s %s, want info %s", err, cl.Type, cl.Name, workloads.CauseClientClosed)
	}
	p.Close()
	// A new JVM for the next client.
	fake2 := &fakeJVM{}
	startFakeJVM(t, fake2)
	p2, err := javaDriver{}.NewProducer(cfg, []string{"fake:9092"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer p2.Close()
	if _, err := p2.Send(context.Background(), workloads.Message{Value: "c"}); err != nil {
		t.Errorf("send on the new JVM: %v", err)
	}
}

// TestJavaLinger: the JVM outlives its last client for javaLinger (the
// final read reuses it), then exits.
func TestJavaLinger(t *testing.T) {
	fake := &fakeJVM{}
	startFakeJVM(t, fake)
	javaLinger = 50 * time.Millisecond
	j1, err := acquireJVM(context.Background(), "4.1.2", []string{"x:1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	releaseJVM(j1)
	j2, err := acquireJVM(context.Background(), "4.1.2", []string{"x:1"}, nil)
	if err != nil || j2 != j1 {
		t.Fatalf("reacquired within the linger: %p %v, want %p", j2, err, j1)
	}
	releaseJVM(j2)
	select {
	case <-j1.done:
	case <-time.After(5 * time.Second):
		t.Fatal("the JVM did not exit after the linger")
	}
}
