package java

import (
	"errors"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kchaos/kchaos/workloads"
)

// JavaError is an error of the Java client as the JVM reports it
// (javaclient/KchaosClient.java): the exception's class and message,
// Kafka's name for it (Errors.forException(e).name(), which is
// UNKNOWN_SERVER_ERROR for any exception that is not one of Kafka's API
// errors), and what the client says of it.
type JavaError struct {
	Class     string `json:"class"`
	Message   string `json:"message"`
	Kafka     string `json:"kafka"`
	Retriable bool   `json:"retriable"`
	Timeout   bool   `json:"timeout"`
	// NotAttempted: the client refused the request before sending it (a
	// commitTransaction in an error state: see TxnHandle.end).
	NotAttempted bool `json:"not_attempted,omitempty"`
}

// Is makes a JavaError match the franz-go error of the Kafka error it
// carries (errors.Is(err, kerr.ProducerFenced), as txn_outcome.go's
// IsFenced asks), and kerr.OperationNotAttempted when the client never
// sent the request: kgo's word for a commit it refused to send, which
// TxnOutcome counts as definite (notAttempted).
func (e *JavaError) Is(target error) bool {
	ke, ok := target.(*kerr.Error)
	if !ok {
		return false
	}
	if e.NotAttempted && ke == kerr.OperationNotAttempted {
		return true
	}
	c, ok := javaCode(e)
	return ok && c == ke.Code
}

// javaImplied are the Java client's own exceptions that carry no Kafka
// error code but mean one, named here by it:
//   - CommitFailedException: the group's coordinator refused the commit
//     because the member's generation (or KIP-848 member epoch) is no
//     longer the group's (ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID,
//     STALE_MEMBER_EPOCH), or the client refused to send it outside a
//     stable generation. Either way nothing was committed: named
//     ILLEGAL_GENERATION, a definite commit error (workloads/group_driver.go), as the
//     franz-go member's commit in the same state ends.
var javaImplied = map[string]string{
	"org.apache.kafka.clients.consumer.CommitFailedException": "ILLEGAL_GENERATION",
}

func (e *JavaError) Error() string {
	short := e.Class[strings.LastIndexByte(e.Class, '.')+1:]
	return "java " + short + ": " + e.Message
}

// javaErrorRule is one row of javaErrors: an exception (by class, and
// message where the class alone says too little) that means one of the
// client-side causes of errors.go.
type javaErrorRule struct {
	Class   string // the exception's class name; "" matches any
	Message string // a substring of its message; "" matches any
	Timeout bool   // match org.apache.kafka.common.errors.TimeoutException and its subclasses
	Cause   string // the cause (ClientErrors) it means
	Why     string
}

// javaErrors maps the Java client's own exceptions onto the causes the Go
// drivers give, first match wins. They come before the Kafka error name,
// for the reason RuleFor gives: how the client gave up decides, and a
// TimeoutException's name (REQUEST_TIMED_OUT) would hide that it may be
// the client's own delivery.timeout.ms. An exception matching no row is
// named by its Kafka error (ProduceErrors: NOT_LEADER_OR_FOLLOWER,
// NOT_ENOUGH_REPLICAS, NETWORK_EXCEPTION, ...), and when it has none
// (UNKNOWN_SERVER_ERROR from a class that is not UnknownServerException),
// is `unknown`: info, with the exception in the send's detail.
var javaErrors = []javaErrorRule{
	{Class: "org.apache.kafka.clients.producer.BufferExhaustedException", Cause: workloads.CauseMaxBuffered,
		Why: "buffer.memory was full for max.block.ms: the record was never accepted by the client (a TimeoutException, so it must come first)"},
	{Class: "org.apache.kafka.common.errors.WakeupException", Cause: workloads.CauseClientClosed,
		Why: "the consumer was woken up to close"},
	{Class: "org.apache.kafka.common.errors.InterruptException", Cause: workloads.CauseClientClosed,
		Why: "the client's thread was interrupted (the JVM is closing its clients)"},
	{Class: "java.lang.IllegalStateException", Message: "closed", Cause: workloads.CauseClientClosed,
		Why: "a call on a client that was closed"},
	{Class: "org.apache.kafka.common.KafkaException", Message: "closed forcefully", Cause: workloads.CauseClientClosed,
		Why: "KafkaProducer.close(Duration.ZERO) (a producer-crash, or the end of the run) failed the record buffered or in flight"},
	{Timeout: true, Cause: workloads.CauseTimeout,
		Why: "TimeoutException: delivery.timeout.ms expired (the batch may have been sent), max.block.ms passed waiting for metadata, or a request timed out"},
}

// javaCodes maps Kafka's error names to codes: kerr's names, and Kafka's
// current names where kerr keeps an old one (NOT_LEADER_FOR_PARTITION is
// NOT_LEADER_OR_FOLLOWER in Java's Errors since 2.7).
var javaCodes = func() map[string]int16 {
	m := map[string]int16{}
	for c := int16(-1); c < 512; c++ {
		if e, ok := kerr.ErrorForCode(c).(*kerr.Error); ok && e.Code == c {
			m[e.Message] = c
		}
	}
	for _, r := range workloads.ProduceErrors {
		m[r.Name] = r.Code
	}
	return m
}()

// javaCause is the client-side cause e means by javaErrors, or "".
func javaCause(e *JavaError) string {
	for _, r := range javaErrors {
		if r.Class != "" && r.Class != e.Class {
			continue
		}
		if r.Message != "" && !strings.Contains(e.Message, r.Message) {
			continue
		}
		if r.Timeout && !e.Timeout {
			continue
		}
		return r.Cause
	}
	return ""
}

// javaCode is the Kafka error code e carries, if it carries one.
func javaCode(e *JavaError) (int16, bool) {
	if name, ok := javaImplied[e.Class]; ok {
		return javaCodes[name], true
	}
	if e.Kafka == "" || e.Kafka == "NONE" ||
		e.Kafka == "UNKNOWN_SERVER_ERROR" && e.Class != "org.apache.kafka.common.errors.UnknownServerException" {
		return 0, false
	}
	c, ok := javaCodes[e.Kafka]
	return c, ok
}

var _ workloads.ClientError = (*JavaError)(nil)

// KafkaCode is the Kafka error code e carries, if it carries one: how
// the seam (workloads.KafkaCode, RuleFor) reads a JavaError.
func (e *JavaError) KafkaCode() (int16, bool) { return javaCode(e) }

// GivingUp is the client-side cause e means by javaErrors, or "": how the
// seam (workloads.RuleFor) reads a JavaError before its Kafka error.
func (e *JavaError) GivingUp() string { return javaCause(e) }

// asJavaError finds a *JavaError in err's chain.
func asJavaError(err error) (*JavaError, bool) {
	var je *JavaError
	ok := errors.As(err, &je)
	return je, ok
}
