package workloads

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"

	kafkago "github.com/segmentio/kafka-go"
	kafkaproto "github.com/segmentio/kafka-go/protocol"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kchaos/kchaos/histories"
)

// ErrorClass says what an error proves about a send: whether the record
// was definitely not appended or may have been (the histories' fail and
// info).
type ErrorClass int

const (
	// Fail: the record was definitely not appended.
	Fail ErrorClass = iota
	// Info: the record may have been appended.
	Info
	// FailUnlessAcksAll: definite with acks 0/1, where the broker only
	// raises the error before appending; with acks=all the same error can
	// also end a produce that was appended and then waited for the ISR.
	FailUnlessAcksAll
)

func (o ErrorClass) String() string {
	switch o {
	case Fail:
		return "fail"
	case Info:
		return "info"
	}
	return "fail unless acks=all"
}

// ErrorRule is one row of the produce error table.
type ErrorRule struct {
	Name  string // Kafka's error name (org.apache.kafka.common.protocol.Errors)
	Code  int16  // its code; 0 for client-side causes
	Class ErrorClass
	// ClientOnly: raised by the client before the record was handed to the
	// network, so it stays definite even when client retries are on.
	ClientOnly bool
	Why        string
}

// Where the reasons below cite Kafka's broker: a produce request goes
// KafkaApis.handleProduceRequest (authorization, unknown topics, record
// validation) -> ReplicaManager.appendRecords (acks check) ->
// appendToLocalLog -> Partition.appendRecordsToLeader (leadership and
// min.insync.replicas checks) -> UnifiedLog.append (size, CRC, timestamp
// and producer-state validation, then segment.append: the append itself).
// With acks=all the request then waits in DelayedProduce until the ISR has
// the record, and DelayedProduce.tryComplete may answer with an error after
// the append (checkEnoughReplicasReachOffset, getPartitionOrError).

// ProduceErrors is the table of Kafka error codes a produce can end with.
// A code not in the table is Info: unknown means maybe.
var ProduceErrors = []ErrorRule{
	{"CORRUPT_MESSAGE", 2, Fail, false, "record CRC/size checks in UnifiedLog.analyzeAndValidateRecords run before segment.append"},
	{"UNKNOWN_TOPIC_OR_PARTITION", 3, FailUnlessAcksAll, false, "acks 0/1: getPartitionOrException fails before the append; acks=all: DelayedProduce also answers it when the partition is gone after the append"},
	{"LEADER_NOT_AVAILABLE", 5, Fail, false, "a metadata error, not a produce response: the client had no leader to send to"},
	{"NOT_LEADER_OR_FOLLOWER", 6, FailUnlessAcksAll, false, "acks 0/1: Partition.appendRecordsToLeader throws it before appending; acks=all: checkEnoughReplicasReachOffset returns it when leadership moved after the append, while waiting for the ISR"},
	{"REQUEST_TIMED_OUT", 7, Info, false, "acks=all: DelayedProduce expired after the leader appended, waiting for the ISR; the record is in the leader's log"},
	{"MESSAGE_TOO_LARGE", 10, Fail, false, "RecordTooLargeException from size validation before the append (or the client refused the record)"},
	{"NETWORK_EXCEPTION", 13, Info, false, "the connection broke before a response: the request may have been processed"},
	{"INVALID_TOPIC_EXCEPTION", 17, Fail, false, "handleProduceRequest refuses internal/invalid topics before the append"},
	{"RECORD_LIST_TOO_LARGE", 18, Fail, false, "RecordBatchTooLargeException (batch > segment size) in UnifiedLog.append before segment.append"},
	{"NOT_ENOUGH_REPLICAS", 19, Fail, false, "Partition.appendRecordsToLeader checks ISR size < min.insync.replicas (acks=all) before leaderLog.appendAsLeader"},
	{"NOT_ENOUGH_REPLICAS_AFTER_APPEND", 20, Info, false, "checkEnoughReplicasReachOffset: the record was appended and the HW passed it, but the ISR shrank below min.insync.replicas"},
	{"INVALID_REQUIRED_ACKS", 21, Fail, false, "ReplicaManager.appendRecords checks acks before appending anything"},
	{"TOPIC_AUTHORIZATION_FAILED", 29, Fail, false, "authorization in handleProduceRequest, before the append"},
	{"CLUSTER_AUTHORIZATION_FAILED", 31, Fail, false, "authorization in handleProduceRequest, before the append"},
	{"INVALID_TIMESTAMP", 32, Fail, false, "LogValidator rejects the batch before the append"},
	{"UNSUPPORTED_FOR_MESSAGE_FORMAT", 43, Fail, false, "LogValidator rejects the batch before the append"},
	{"OUT_OF_ORDER_SEQUENCE_NUMBER", 45, Fail, false, "producer-state validation (analyzeAndValidateProducerState) runs before segment.append"},
	{"DUPLICATE_SEQUENCE_NUMBER", 46, Info, false, "the broker saw this sequence before: an earlier attempt was appended, at an offset it does not return"},
	{"INVALID_PRODUCER_EPOCH", 47, Fail, false, "producer-state validation before the append"},
	{"INVALID_TXN_STATE", 48, Fail, false, "transaction-state validation before the append"},
	{"TRANSACTIONAL_ID_AUTHORIZATION_FAILED", 53, Fail, false, "authorization in handleProduceRequest, before the append"},
	{"KAFKA_STORAGE_ERROR", 56, Info, false, "an I/O error of the log dir, possibly during the write itself"},
	{"UNKNOWN_PRODUCER_ID", 59, Fail, false, "producer-state validation before the append"},
	{"UNSUPPORTED_COMPRESSION_TYPE", 76, Fail, false, "LogValidator rejects the batch before the append"},
	{"INVALID_RECORD", 87, Fail, false, "RecordValidationException from LogValidator before the append"},
	{"PRODUCER_FENCED", 90, Fail, false, "producer-state validation before the append"},
	{"UNKNOWN_TOPIC_ID", 100, Fail, false, "handleProduceRequest resolves topic ids before the append"},
	{"UNKNOWN_SERVER_ERROR", -1, Info, false, "an unexpected exception in the broker, possibly after the append"},
}

// Client-side causes: errors that carry no Kafka code.
const (
	CauseTimeout           = "timeout"
	CauseCanceled          = "canceled"
	CauseRetriesExhausted  = "retries exhausted"
	CauseClientClosed      = "client closed"
	CauseCrashed           = "crashed"
	CauseConnectionRefused = "connection refused"
	CauseConnectionReset   = "connection reset"
	CauseBrokenPipe        = "broken pipe"
	CauseConnectionClosed  = "connection closed"
	CauseNoLeader          = "no leader"
	CauseNoMetadata        = "no metadata"
	CauseMaxBuffered       = "max buffered"
	CauseUnknown           = "unknown"
)

// clientErrors is the table of client-side causes.
var clientErrors = []ErrorRule{
	{CauseTimeout, 0, Info, false, "a deadline passed (context, franz-go record timeout, socket i/o timeout) while the request may have been in flight"},
	{CauseCanceled, 0, Info, false, "the send was canceled, possibly after the request was written"},
	{CauseRetriesExhausted, 0, Info, false, "franz-go's ErrRecordRetries: the batch was tried at least once (also how franz-go, with retries off, ends a REQUEST_TIMED_OUT or NOT_ENOUGH_REPLICAS_AFTER_APPEND), or was buffered behind one that was"},
	{CauseClientClosed, 0, Info, false, "the client closed with the record buffered or in flight"},
	{CauseCrashed, 0, Info, false, "the nemesis crashed the producer (producer-crash) with the send buffered or in flight: the process died not knowing"},
	{CauseConnectionRefused, 0, Fail, false, "the dial failed: nothing was written on this attempt (with retries on, or after franz-go wrote the record before, an earlier attempt may have been)"},
	{CauseConnectionReset, 0, Info, false, "the connection broke after the request may have been written"},
	{CauseBrokenPipe, 0, Info, false, "the connection broke while the request was being written"},
	{CauseConnectionClosed, 0, Info, false, "EOF before the response: the request may have been processed"},
	{CauseNoLeader, 0, Fail, false, "kafka-go found no leader in its metadata and sent nothing"},
	{CauseNoMetadata, 0, Fail, false, "kafka-go's metadata lacks the topic or partition: nothing was sent"},
	{CauseMaxBuffered, 0, Fail, true, "franz-go refused to buffer the record: it never left the client"},
	{CauseUnknown, 0, Info, false, "an error this table does not know: unknown means maybe"},
}

var (
	byCode  = map[int16]ErrorRule{}
	byCause = map[string]ErrorRule{}
)

func init() {
	for _, r := range ProduceErrors {
		byCode[r.Code] = r
	}
	for _, r := range clientErrors {
		byCause[r.Name] = r
	}
}

// Classification is what a send's error means for the history.
type Classification struct {
	Type histories.Type // Fail or Info
	Name string         // the event's error field
	Rule ErrorRule
}

// errMaybeWritten wraps a send's error when the client wrote the record's
// request before the attempt the error is about: an earlier write may
// have landed, so the error cannot prove the record absent.
type errMaybeWritten struct{ error }

func (e errMaybeWritten) Unwrap() error { return e.error }

// MaybeWritten wraps err when writes, the Produce requests the client
// wrote during the send, say an earlier attempt may have landed: two or
// more (the last answered with err, an earlier one may not have been), or
// one when err is a dial's (the last attempt wrote nothing, so the one
// write was earlier). In pipelined mode other records' writes count too:
// the wrapping is then conservative, never wrong. Exported for the driver
// that counts its client's writes (workloads/franz); ClassifySend reads
// the wrapping.
func MaybeWritten(err error, writes int64) error {
	if writes >= 2 || writes >= 1 && causeOf(err) == CauseConnectionRefused {
		return errMaybeWritten{err}
	}
	return err
}

// ClassifySend maps a send's error to fail or info. acks is the producer's
// setting; retried says whether the client may have resent the record
// (Config.RetriesEnabled), or the driver saw it written before the
// attempt the error is about (errMaybeWritten): then only ClientOnly
// causes stay definite, because an earlier attempt may have landed before
// the error that ended the send.
func ClassifySend(err error, acks Acks, retried bool) Classification {
	rule := RuleFor(err)
	out := rule.Class
	if out == FailUnlessAcksAll {
		out = Fail
		if acks.Normalize() == AcksAll {
			out = Info
		}
	}
	if (retried || errors.As(err, new(errMaybeWritten))) && !rule.ClientOnly {
		out = Info
	}
	typ := histories.Info
	if out == Fail {
		typ = histories.Fail
	}
	return Classification{Type: typ, Name: rule.Name, Rule: rule}
}

// ErrorName is the history's name for err: a Kafka error name or a cause.
func ErrorName(err error) string { return RuleFor(err).Name }

// RuleFor finds the table row for err. How the client gave up (a record
// timeout, exhausted retries, a canceled context, a closed client) comes
// first: it decides the outcome even when the error also wraps the last
// Kafka error the client saw, e.g. franz-go's "records have timed out ...,
// last err: NOT_LEADER_OR_FOLLOWER".
func RuleFor(err error) ErrorRule {
	if c := givingUp(err); c != "" {
		return byCause[c]
	}
	if code, ok := KafkaCode(err); ok {
		if r, ok := byCode[code]; ok {
			return r
		}
		return ErrorRule{Name: KafkaName(code), Code: code, Class: Info,
			Why: "not in the table: unknown means maybe"}
	}
	return byCause[causeOf(err)]
}

// KafkaCode extracts a Kafka error code from any driver's errors.
func KafkaCode(err error) (int16, bool) {
	if ce, ok := asClientError(err); ok {
		return ce.KafkaCode()
	}
	var ke *kerr.Error
	if errors.As(err, &ke) {
		return ke.Code, true
	}
	var ge kafkago.Error
	if errors.As(err, &ge) {
		return int16(ge), true
	}
	return 0, false
}

// ClientError is an error a driver's client reports in terms of its own
// that the seam cannot read (the Java client's exceptions, as its JVM
// reports them: workloads/java's JavaError). A driver's error type
// implements it so that KafkaCode and RuleFor read it as they read the
// Go clients' errors; it is asked first, before any of theirs.
type ClientError interface {
	error
	// KafkaCode is the Kafka error code the error carries, if it carries
	// one.
	KafkaCode() (int16, bool)
	// GivingUp is the client-side cause (clientErrors: CauseTimeout,
	// CauseClientClosed, ...) the error means, or "" when it means none
	// and its Kafka error names it.
	GivingUp() string
}

// asClientError finds a ClientError in err's chain.
func asClientError(err error) (ClientError, bool) {
	var ce ClientError
	ok := errors.As(err, &ce)
	return ce, ok
}

// KafkaName is Kafka's current name of code (kerr keeps some old names).
// Exported for workloads/franz, whose share member records the broker's
// answers to its acks (histories.ShareAckWire) by the names every other
// error of a history bears.
func KafkaName(code int16) string {
	if r, ok := byCode[code]; ok {
		return r.Name
	}
	if e, ok := kerr.ErrorForCode(code).(*kerr.Error); ok && (e.Code == code) {
		return e.Message
	}
	return fmt.Sprintf("KAFKA_ERROR_%d", code)
}

// givingUp names how the client gave up on a record, or "".
func givingUp(err error) string {
	if ce, ok := asClientError(err); ok {
		return ce.GivingUp() // the Java client's: JavaErrors (workloads/java/errors.go)
	}
	switch {
	case err == nil:
		return ""
	case errors.Is(err, kgo.ErrMaxBuffered):
		return CauseMaxBuffered
	case errors.Is(err, kgo.ErrRecordRetries):
		return CauseRetriesExhausted
	case errors.Is(err, kgo.ErrRecordTimeout), errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, os.ErrDeadlineExceeded):
		return CauseTimeout
	case errors.Is(err, context.Canceled):
		return CauseCanceled
	case errors.Is(err, kgo.ErrClientClosed), errors.Is(err, io.ErrClosedPipe), errors.Is(err, net.ErrClosed):
		return CauseClientClosed
	}
	return ""
}

// causeOf names any other client-side error.
func causeOf(err error) string {
	var opErr *net.OpError
	switch {
	case err == nil:
		return CauseUnknown
	case errors.Is(err, syscall.ECONNREFUSED):
		// Refused can only happen when dialing; any other refusal on a live
		// connection is treated as a broken connection.
		if errors.As(err, &opErr) && opErr.Op == "dial" {
			return CauseConnectionRefused
		}
		return CauseConnectionReset
	case errors.Is(err, syscall.ECONNRESET):
		return CauseConnectionReset
	case errors.Is(err, syscall.EPIPE):
		return CauseBrokenPipe
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return CauseConnectionClosed
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return CauseTimeout
	}
	if errors.Is(err, kafkaproto.ErrNoLeader) {
		return CauseNoLeader
	}
	if errors.Is(err, kafkaproto.ErrNoTopic) || errors.Is(err, kafkaproto.ErrNoPartition) {
		return CauseNoMetadata
	}
	return CauseUnknown
}
