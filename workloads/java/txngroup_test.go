package java

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/workloads"
)

const (
	jErrs     = "org.apache.kafka.common.errors."
	jConsumer = "org.apache.kafka.clients.consumer."
)

func jerr(class, kafka string, timeout bool) *JavaError {
	return &JavaError{Class: class, Message: "m", Kafka: kafka, Timeout: timeout}
}

// TestJavaTxnOutcome: a transaction's end through the Java producer gets
// the outcome franz-go's gets (TxnOutcome): fenced is fenced, a commit the
// client refused before sending (an error state) is fail, a commit whose
// answer never came is info, never fail.
func TestJavaTxnOutcome(t *testing.T) {
	fenced := jerr(jErrs+"ProducerFencedException", "PRODUCER_FENCED", false)
	epoch := jerr(jErrs+"InvalidProducerEpochException", "INVALID_PRODUCER_EPOCH", false)
	commitTimeout := jerr(jErrs+"TimeoutException", "REQUEST_TIMED_OUT", true)
	abortable := jerr(jErrs+"TransactionAbortableException", "TRANSACTION_ABORTABLE", false)
	refused := jerr(jErrs+"NotEnoughReplicasException", "NOT_ENOUGH_REPLICAS", false)
	refused.NotAttempted = true
	refusedFenced := *fenced
	refusedFenced.NotAttempted = true
	for _, c := range []struct {
		name     string
		end      workloads.TxnEnd
		typ      histories.Type
		errName  string
		recreate bool
	}{
		{"committed", workloads.TxnEnd{CommitAsked: true}, histories.OK, "", false},
		{"commit timed out in the client", workloads.TxnEnd{CommitAsked: true, CommitErr: commitTimeout}, histories.Info, workloads.CauseTimeout, true},
		{"commit outlived the workload's ctx", workloads.TxnEnd{CommitAsked: true, CommitErr: context.DeadlineExceeded}, histories.Info, workloads.CauseTimeout, true},
		{"commit abortable (KIP-890) after sending", workloads.TxnEnd{CommitAsked: true, CommitErr: abortable}, histories.Info, "TRANSACTION_ABORTABLE", true},
		{"commit fenced, no successor known", workloads.TxnEnd{CommitAsked: true, CommitErr: fenced}, histories.Info, "PRODUCER_FENCED", true},
		{"commit fenced after a successor", workloads.TxnEnd{CommitAsked: true, CommitErr: fenced, Superseded: true}, histories.Fail, "PRODUCER_FENCED", true},
		{"commit refused in an error state", workloads.TxnEnd{CommitAsked: true, CommitErr: refused}, histories.Fail, "NOT_ENOUGH_REPLICAS", true},
		{"commit refused, fenced before", workloads.TxnEnd{CommitAsked: true, CommitErr: &refusedFenced}, histories.Fail, "PRODUCER_FENCED", true},
		{"JVM died during the commit", workloads.TxnEnd{CommitAsked: true, CommitErr: errJVMGone}, histories.Info, workloads.CauseClientClosed, true},
		{"send fenced", workloads.TxnEnd{StepErr: epoch}, histories.Fail, "INVALID_PRODUCER_EPOCH", true},
		{"send failed, aborted", workloads.TxnEnd{StepErr: refused, AbortAsked: true}, histories.Fail, "NOT_ENOUGH_REPLICAS", false},
		{"aborted on purpose", workloads.TxnEnd{AbortAsked: true}, histories.Fail, workloads.CauseAborted, false},
		{"abort failed", workloads.TxnEnd{AbortAsked: true, AbortErr: fenced}, histories.Fail, "PRODUCER_FENCED", true},
	} {
		typ, name, recreate := workloads.TxnOutcome(c.end)
		if typ != c.typ || name != c.errName || recreate != c.recreate {
			t.Errorf("%s: %s %q recreate %v, want %s %q recreate %v", c.name, typ, name, recreate, c.typ, c.errName, c.recreate)
		}
	}
	if !workloads.IsFenced(fenced) || !workloads.IsFenced(epoch) || workloads.IsFenced(commitTimeout) {
		t.Error("IsFenced does not see the Java client's fencing exceptions")
	}
	if !errors.Is(refused, kerr.OperationNotAttempted) || errors.Is(abortable, kerr.OperationNotAttempted) {
		t.Error("only a request the client refused is OPERATION_NOT_ATTEMPTED")
	}
}

// TestJavaCommitOutcome: a group member's commitSync errors are definite
// (fail) where the coordinator refused it for its generation, unknown
// (info) where the answer never came.
func TestJavaCommitOutcome(t *testing.T) {
	for _, c := range []struct {
		err  error
		typ  histories.Type
		name string
	}{
		{jerr(jConsumer+"CommitFailedException", "UNKNOWN_SERVER_ERROR", false), histories.Fail, "ILLEGAL_GENERATION"},
		{jerr(jErrs+"RebalanceInProgressException", "REBALANCE_IN_PROGRESS", false), histories.Fail, "REBALANCE_IN_PROGRESS"},
		{jerr(jErrs+"StaleMemberEpochException", "STALE_MEMBER_EPOCH", false), histories.Fail, "STALE_MEMBER_EPOCH"},
		{jerr(jErrs+"UnknownMemberIdException", "UNKNOWN_MEMBER_ID", false), histories.Fail, "UNKNOWN_MEMBER_ID"},
		{jerr(jErrs+"TimeoutException", "REQUEST_TIMED_OUT", true), histories.Info, workloads.CauseTimeout},
		{jerr(jErrs+"CoordinatorNotAvailableException", "COORDINATOR_NOT_AVAILABLE", false), histories.Info, "COORDINATOR_NOT_AVAILABLE"},
		{jerr(jErrs+"WakeupException", "UNKNOWN_SERVER_ERROR", false), histories.Info, workloads.CauseClientClosed},
		{errJVMGone, histories.Info, workloads.CauseClientClosed},
	} {
		typ, name := workloads.CommitOutcome(workloads.CommitResult{Offsets: map[int32]int64{0: 5}, Err: c.err})
		if typ != c.typ || name != c.name {
			t.Errorf("%v: %s %q, want %s %q", c.err, typ, name, c.typ, c.name)
		}
	}
}

// TestJavaMetaErrors: the Java Admin client's errors judged by
// admin.MetaOutcome as franz-go's: a controller's refusal is fail (and
// TOPIC_ALREADY_EXISTS is named in the text, as the workload looks for
// it), a timeout or a lost connection info.
func TestJavaMetaErrors(t *testing.T) {
	for _, c := range []struct {
		err    *JavaError
		typ    histories.Type
		exists bool
	}{
		{jerr(jErrs+"TopicExistsException", "TOPIC_ALREADY_EXISTS", false), histories.Fail, true},
		{jerr(jErrs+"InvalidPartitionsException", "INVALID_PARTITIONS", false), histories.Fail, false},
		{jerr(jErrs+"NotControllerException", "NOT_CONTROLLER", false), histories.Fail, false},
		{jerr(jErrs+"UnknownTopicOrPartitionException", "UNKNOWN_TOPIC_OR_PARTITION", false), histories.Fail, false},
		{jerr(jErrs+"TimeoutException", "REQUEST_TIMED_OUT", true), histories.Info, false},
		{jerr(jErrs+"NetworkException", "NETWORK_EXCEPTION", false), histories.Info, false},
		{jerr(jErrs+"DisconnectException", "UNKNOWN_SERVER_ERROR", false), histories.Info, false},
	} {
		err := javaMetaErr(c.err)
		if got := admin.MetaOutcome(err); got != c.typ {
			t.Errorf("%s: %s, want %s", c.err.Class, got, c.typ)
		}
		if got := workloads.IsTopicExists(err); got != c.exists {
			t.Errorf("%s: IsTopicExists %v (%v)", c.err.Class, got, err)
		}
		if je, ok := asJavaError(err); !ok || je != c.err {
			t.Errorf("%s: the JavaError is lost from %v", c.err.Class, err)
		}
	}
	if admin.MetaOutcome(javaMetaErr(context.DeadlineExceeded)) != histories.Info {
		t.Error("a request that outlived its ctx is not info")
	}
}

// TestJavaMemberProps: the group config becomes the member's consumer
// properties; the consumer protocol gets no session or heartbeat setting
// (the Java client refuses them there), and the client's own auto-commit
// is always off (the member loop commits).
func TestJavaMemberProps(t *testing.T) {
	cfg := workloads.Config{Driver: workloads.DriverJava, Topic: "t", Group: workloads.GroupConfig{ID: "g"}}
	cfg.Defaults()
	p := javaMemberProps(cfg, []string{"b:9092"}, 1)
	for k, v := range map[string]string{"group.id": "g", "group.protocol": "classic", "enable.auto.commit": "false",
		"session.timeout.ms": "6000", "heartbeat.interval.ms": "1000", "max.poll.interval.ms": "10000",
		"auto.offset.reset": "earliest", "client.id": "kchaos-g-member-1"} {
		if p[k] != v {
			t.Errorf("classic %s = %q, want %q", k, p[k], v)
		}
	}
	cfg.Group.Protocol = histories.ProtocolConsumer
	p = javaMemberProps(cfg, []string{"b:9092"}, 1)
	if p["group.protocol"] != "consumer" || p["session.timeout.ms"] != "" || p["heartbeat.interval.ms"] != "" {
		t.Errorf("consumer protocol: %v", p)
	}
	if (&javaMember{}).AutoCommits() {
		t.Error("the java member claims the client auto-commits")
	}
	tp := javaTxnProps(workloads.Config{Topic: "t", Acks: workloads.AcksAll, Transactions: workloads.TxnConfig{Enabled: true}}, []string{"b:9092"}, 2)
	if tp["transactional.id"] != workloads.TransactionalID("t", 2) || tp["enable.idempotence"] != "true" || tp["retries"] != "1" || tp["acks"] != "all" {
		t.Errorf("txn props: %v", tp)
	}
	if !strings.HasPrefix(javaTxnConsumerProps(workloads.Config{}, nil, 2)["isolation.level"], "read_committed") {
		t.Error("the transaction's reader is not read_committed")
	}
}

// TestJavaTxnOverFakeJVM: the transactional client's requests as the JVM
// sees them (Begin carried by the next request, the producer id and
// epoch, sends, a read_committed poll, the commit) and a commit the
// client refused in an error state coming back as definite.
func TestJavaTxnOverFakeJVM(t *testing.T) {
	var ops []string
	var opened map[string]any
	fake := &fakeJVM{hook: func(req map[string]any, reply func(map[string]any)) bool {
		op := req["op"].(string)
		switch op {
		case "open-txn":
			opened = req
			reply(map[string]any{"handle": 7})
		case "txn-id":
			ops = append(ops, fmt.Sprintf("%s begin=%v", op, req["begin"]))
			reply(map[string]any{"producer_id": 42, "epoch": 3})
		case "txn-send":
			ops = append(ops, op)
			reply(map[string]any{"offset": 11})
		case "txn-poll":
			ops = append(ops, fmt.Sprintf("%s %v", op, req["partitions"]))
			reply(map[string]any{"records": []map[string]any{{"p": 1, "o": 5, "v": "a", "e": 2}}})
		case "txn-end":
			ops = append(ops, fmt.Sprintf("%s commit=%v", op, req["commit"]))
			if len(ops) > 6 {
				reply(map[string]any{"error": map[string]any{"class": jErrs + "TransactionAbortableException",
					"message": "m", "kafka": "TRANSACTION_ABORTABLE", "not_attempted": true}})
				return true
			}
			reply(map[string]any{"ok": true})
		default:
			return false
		}
		return true
	}}
	startFakeJVM(t, fake)
	cfg := workloads.Config{Driver: workloads.DriverJava, ClusterVersion: "4.1.2", Topic: "t", Acks: workloads.AcksAll, Transactions: workloads.TxnConfig{Enabled: true}}
	cfg.Defaults()
	tp, err := javaDriver{}.NewTxnProducer(cfg, []string{"b:9092"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer tp.Close()
	if props := opened["props"].(map[string]any); props["transactional.id"] != workloads.TransactionalID("t", 1) {
		t.Errorf("producer props %v", props)
	}
	if props := opened["consumer_props"].(map[string]any); props["isolation.level"] != histories.ReadCommitted {
		t.Errorf("consumer props %v", props)
	}
	ctx := context.Background()
	if err := tp.Begin(); err != nil {
		t.Fatal(err)
	}
	if len(ops) != 0 {
		t.Errorf("Begin sent %v: it is local", ops)
	}
	id, epoch, err := tp.ProducerID(ctx)
	if err != nil || id != 42 || epoch != 3 {
		t.Errorf("producer id %d %d %v", id, epoch, err)
	}
	recs, err := tp.Poll(ctx, []int32{1})
	if err != nil || len(recs) != 1 || recs[0].Offset != 5 || recs[0].LeaderEpoch != 2 {
		t.Errorf("poll: %+v %v", recs, err)
	}
	if off, err := tp.Send(ctx, workloads.Message{Partition: 1, Value: "v"}); err != nil || off != 11 {
		t.Errorf("send: %d %v", off, err)
	}
	if err := tp.End(ctx, true); err != nil {
		t.Errorf("commit: %v", err)
	}
	// The next transaction: its begin comes with its first send.
	_ = tp.Begin()
	if _, err := tp.Send(ctx, workloads.Message{Partition: 0, Value: "w"}); err != nil {
		t.Fatal(err)
	}
	err = tp.End(ctx, true)
	typ, name, recreate := workloads.TxnOutcome(workloads.TxnEnd{CommitAsked: true, CommitErr: err})
	if typ != histories.Fail || name != "TRANSACTION_ABORTABLE" || !recreate {
		t.Errorf("refused commit: %v -> %s %s %v, want fail TRANSACTION_ABORTABLE recreate", err, typ, name, recreate)
	}
	want := []string{"txn-id begin=true", "txn-poll [1]", "txn-send", "txn-end commit=true", "txn-id begin=true", "txn-send", "txn-end commit=true"}
	if !slices.Equal(ops, want) {
		t.Errorf("requests %v, want %v", ops, want)
	}
}

// TestJavaStampCoversSources: the build's stamp (the cache key of a
// built driver) changes with any one source file, added, removed or
// edited, so that a kchaos with other Java sources never reuses a build.
func TestJavaStampCoversSources(t *testing.T) {
	names := javaSourceFiles()
	for _, want := range []string{"KchaosClient", "Json", "ConsumerHandle", "TxnHandle", "MemberHandle", "AdminHandle"} {
		if !slices.Contains(names, "javaclient/"+want+".java") {
			t.Errorf("%s.java is not among the sources built: %v", want, names)
		}
	}
	fsys := fstest.MapFS{}
	for _, n := range names {
		b, _ := javaSources.ReadFile(n)
		fsys[n] = &fstest.MapFile{Data: b}
	}
	base := javaStampOf(fsys, "4.4.0")
	if base != javaStamp("4.4.0") || base == javaStampOf(fsys, "3.9.2") {
		t.Error("the stamp is not the sources' and the version's")
	}
	fsys["javaclient/TxnHandle.java"] = &fstest.MapFile{Data: append(slices.Clone(fsys["javaclient/TxnHandle.java"].Data), ' ')}
	if javaStampOf(fsys, "4.4.0") == base {
		t.Error("an edited source file keeps the stamp")
	}
	fsys["javaclient/Extra.java"] = &fstest.MapFile{Data: []byte("final class Extra {}")}
	edited := javaStampOf(fsys, "4.4.0")
	delete(fsys, "javaclient/Extra.java")
	if edited == javaStampOf(fsys, "4.4.0") {
		t.Error("an added source file keeps the stamp")
	}
}
