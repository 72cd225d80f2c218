package workloads

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"

	kafka "github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/protocol"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kchaos/kchaos/histories"
)

func TestClassifySend(t *testing.T) {
	dialRefused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	readReset := &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
	cases := []struct {
		name    string
		err     error
		acks    Acks
		retried bool
		want    histories.Type
		errName string
	}{
		// Definite: raised before the append.
		{"franz NOT_ENOUGH_REPLICAS", kerr.NotEnoughReplicas, AcksAll, false, histories.Fail, "NOT_ENOUGH_REPLICAS"},
		{"kafka-go NOT_ENOUGH_REPLICAS", kafka.NotEnoughReplicas, AcksAll, false, histories.Fail, "NOT_ENOUGH_REPLICAS"},
		{"wrapped kafka-go code", fmt.Errorf("write: %w", kafka.Error(19)), AcksAll, false, histories.Fail, "NOT_ENOUGH_REPLICAS"},
		{"CORRUPT_MESSAGE", kerr.CorruptMessage, AcksLeader, false, histories.Fail, "CORRUPT_MESSAGE"},
		{"MESSAGE_TOO_LARGE", kerr.MessageTooLarge, AcksAll, false, histories.Fail, "MESSAGE_TOO_LARGE"},
		{"RECORD_LIST_TOO_LARGE", kerr.RecordListTooLarge, AcksAll, false, histories.Fail, "RECORD_LIST_TOO_LARGE"},
		{"INVALID_RECORD", kerr.InvalidRecord, AcksAll, false, histories.Fail, "INVALID_RECORD"},
		{"TOPIC_AUTHORIZATION_FAILED", kerr.TopicAuthorizationFailed, AcksAll, false, histories.Fail, "TOPIC_AUTHORIZATION_FAILED"},
		{"OUT_OF_ORDER_SEQUENCE_NUMBER", kerr.OutOfOrderSequenceNumber, AcksAll, false, histories.Fail, "OUT_OF_ORDER_SEQUENCE_NUMBER"},
		{"LEADER_NOT_AVAILABLE from metadata", kerr.LeaderNotAvailable, AcksAll, false, histories.Fail, "LEADER_NOT_AVAILABLE"},
		// Leadership: definite with acks 0/1, maybe with acks=all.
		{"NOT_LEADER acks=1", kerr.NotLeaderForPartition, AcksLeader, false, histories.Fail, "NOT_LEADER_OR_FOLLOWER"},
		{"NOT_LEADER acks=all", kerr.NotLeaderForPartition, AcksAll, false, histories.Info, "NOT_LEADER_OR_FOLLOWER"},
		{"kafka-go NOT_LEADER acks=all", kafka.NotLeaderForPartition, AcksAll, false, histories.Info, "NOT_LEADER_OR_FOLLOWER"},
		{"UNKNOWN_TOPIC_OR_PARTITION acks=1", kerr.UnknownTopicOrPartition, AcksLeader, false, histories.Fail, "UNKNOWN_TOPIC_OR_PARTITION"},
		{"UNKNOWN_TOPIC_OR_PARTITION acks=all", kerr.UnknownTopicOrPartition, AcksAll, false, histories.Info, "UNKNOWN_TOPIC_OR_PARTITION"},
		// Maybe appended.
		{"NOT_ENOUGH_REPLICAS_AFTER_APPEND", kerr.NotEnoughReplicasAfterAppend, AcksAll, false, histories.Info, "NOT_ENOUGH_REPLICAS_AFTER_APPEND"},
		{"kafka-go NOT_ENOUGH_REPLICAS_AFTER_APPEND", kafka.NotEnoughReplicasAfterAppend, AcksAll, false, histories.Info, "NOT_ENOUGH_REPLICAS_AFTER_APPEND"},
		{"REQUEST_TIMED_OUT", kerr.RequestTimedOut, AcksAll, false, histories.Info, "REQUEST_TIMED_OUT"},
		{"NETWORK_EXCEPTION", kerr.NetworkException, AcksAll, false, histories.Info, "NETWORK_EXCEPTION"},
		{"KAFKA_STORAGE_ERROR", kerr.KafkaStorageError, AcksLeader, false, histories.Info, "KAFKA_STORAGE_ERROR"},
		{"DUPLICATE_SEQUENCE_NUMBER", kerr.DuplicateSequenceNumber, AcksAll, false, histories.Info, "DUPLICATE_SEQUENCE_NUMBER"},
		{"UNKNOWN_SERVER_ERROR", kerr.UnknownServerError, AcksAll, false, histories.Info, "UNKNOWN_SERVER_ERROR"},
		{"code not in the table", kerr.ThrottlingQuotaExceeded, AcksAll, false, histories.Info, "THROTTLING_QUOTA_EXCEEDED"},
		// After a retry nothing is definite.
		{"NOT_ENOUGH_REPLICAS after retries", kerr.NotEnoughReplicas, AcksAll, true, histories.Info, "NOT_ENOUGH_REPLICAS"},
		{"NOT_LEADER acks=1 after retries", kerr.NotLeaderForPartition, AcksLeader, true, histories.Info, "NOT_LEADER_OR_FOLLOWER"},
		{"connection refused after retries", dialRefused, AcksAll, true, histories.Info, CauseConnectionRefused},
		// ... except what never left the client.
		{"max buffered after retries", kgo.ErrMaxBuffered, AcksAll, true, histories.Fail, CauseMaxBuffered},
		// Client-side causes.
		{"franz record timeout while buffered", kgo.ErrRecordTimeout, AcksAll, false, histories.Info, CauseTimeout},
		{"franz record timeout with last error", fmt.Errorf("%w, last err: %w", kgo.ErrRecordTimeout, kerr.NotLeaderForPartition), AcksLeader, false, histories.Info, CauseTimeout},
		{"franz retries exhausted", kgo.ErrRecordRetries, AcksAll, false, histories.Info, CauseRetriesExhausted},
		{"franz client closed", kgo.ErrClientClosed, AcksAll, false, histories.Info, CauseClientClosed},
		{"context deadline", context.DeadlineExceeded, AcksAll, false, histories.Info, CauseTimeout},
		{"wrapped context deadline", fmt.Errorf("produce: %w", context.DeadlineExceeded), AcksAll, false, histories.Info, CauseTimeout},
		{"socket i/o timeout", &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}, AcksAll, false, histories.Info, CauseTimeout},
		{"canceled", context.Canceled, AcksAll, false, histories.Info, CauseCanceled},
		{"dial refused", dialRefused, AcksAll, false, histories.Fail, CauseConnectionRefused},
		{"dial refused acks=0", dialRefused, AcksNone, false, histories.Fail, CauseConnectionRefused},
		// What franz-go wrote during the send (MaybeWritten): an earlier
		// write may have landed whatever the last attempt's error.
		{"dial refused, nothing written before", MaybeWritten(dialRefused, 0), AcksAll, false, histories.Fail, CauseConnectionRefused},
		{"dial refused after one write (s13, 4.4.0)", MaybeWritten(dialRefused, 1), AcksAll, false, histories.Info, CauseConnectionRefused},
		{"NOT_ENOUGH_REPLICAS, its own attempt the one write", MaybeWritten(kerr.NotEnoughReplicas, 1), AcksAll, false, histories.Fail, "NOT_ENOUGH_REPLICAS"},
		{"NOT_ENOUGH_REPLICAS after two writes", MaybeWritten(kerr.NotEnoughReplicas, 2), AcksAll, false, histories.Info, "NOT_ENOUGH_REPLICAS"},
		{"NOT_LEADER acks=1 after two writes", MaybeWritten(kerr.NotLeaderForPartition, 2), AcksLeader, false, histories.Info, "NOT_LEADER_OR_FOLLOWER"},
		{"max buffered after writes", MaybeWritten(kgo.ErrMaxBuffered, 3), AcksAll, false, histories.Fail, CauseMaxBuffered},
		{"reset while reading", readReset, AcksAll, false, histories.Info, CauseConnectionReset},
		{"broken pipe", &net.OpError{Op: "write", Err: os.NewSyscallError("write", syscall.EPIPE)}, AcksAll, false, histories.Info, CauseBrokenPipe},
		{"EOF", io.ErrUnexpectedEOF, AcksAll, false, histories.Info, CauseConnectionClosed},
		{"kafka-go writer closed", io.ErrClosedPipe, AcksAll, false, histories.Info, CauseClientClosed},
		{"kafka-go no leader", protocol.NewErrNoLeader("t", 0), AcksAll, false, histories.Fail, CauseNoLeader},
		{"kafka-go no topic", protocol.NewErrNoTopic("t"), AcksAll, false, histories.Fail, CauseNoMetadata},
		{"unknown error", errors.New("something odd"), AcksAll, false, histories.Info, CauseUnknown},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := ClassifySend(tc.err, tc.acks, tc.retried)
			if got.Type != tc.want || got.Name != tc.errName {
				t.Errorf("ClassifySend(%v, acks=%s, retried=%v) = %s %q, want %s %q (rule: %s)",
					tc.err, tc.acks, tc.retried, got.Type, got.Name, tc.want, tc.errName, got.Rule.Why)
			}
		})
	}
}

// The tables are documentation: every row gives its reason, names are
// unique, and each Kafka row's code is the code Kafka gives that name.
func TestErrorTablesAreDocumented(t *testing.T) {
	renamed := map[int16]string{6: "NOT_LEADER_OR_FOLLOWER"} // kerr keeps the pre-2.6 name
	seen := map[string]bool{}
	for _, r := range append(append([]ErrorRule{}, ProduceErrors...), clientErrors...) {
		if r.Why == "" {
			t.Errorf("%s: no reason", r.Name)
		}
		if seen[r.Name] {
			t.Errorf("%s: listed twice", r.Name)
		}
		seen[r.Name] = true
	}
	for _, r := range ProduceErrors {
		if r.Code == 0 {
			t.Errorf("%s: Kafka row without a code", r.Name)
			continue
		}
		want := renamed[r.Code]
		if want == "" {
			want = kerr.ErrorForCode(r.Code).(*kerr.Error).Message
		}
		if r.Name != want {
			t.Errorf("code %d is %s in Kafka, table says %s", r.Code, want, r.Name)
		}
	}
	for _, r := range clientErrors {
		if r.Code != 0 {
			t.Errorf("%s: a client-side cause has Kafka code %d", r.Name, r.Code)
		}
	}
}
