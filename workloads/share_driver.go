package workloads

import (
	"context"
	"errors"
	"time"

	"github.com/kchaos/kchaos/histories"
)

// SharePollWait bounds a share member's poll, so that the member answers
// its faults. In the seam for the driver packages (workloads/franz,
// workloads/java), whose share members' polls it bounds, and for the
// share loop (workloads/shares), whose idle member waits as long.
const SharePollWait = 500 * time.Millisecond

// ShareDriver is a Driver that can make share-group members (KIP-932):
// franz-go's share consumer (workloads/franz/share.go) and Apache Kafka's
// KafkaShareConsumer (workloads/java/share.go). The share loop
// (workloads/shares) owns the
// history, the faults and the drain; a member only polls and acks, so
// every driver writes the same share ops.
type ShareDriver interface {
	// NewShareMember returns the client of share member name, subscribed
	// to cfg.Topic in cfg.Shares.Group. It has joined nothing yet: the
	// group learns of it at its first poll.
	NewShareMember(cfg Config, bootstrap []string, name string) (ShareMember, error)
}

// isShareDriver reports whether d is a ShareDriver, for the refusal that
// names the drivers a share group can run on (driversWith).
func isShareDriver(d Driver) bool {
	_, ok := d.(ShareDriver)
	return ok
}

// ShareMember is one share consumer's client, used by one goroutine.
type ShareMember interface {
	// Poll asks for at most max records, waiting up to SharePollWait, and
	// returns those it was delivered, each with its delivery count.
	// ErrShareClosed: the client was closed under it.
	Poll(ctx context.Context, max int) ([]histories.ShareRecord, error)
	// AcquiresInPoll reports whether what a Poll returns was always
	// acquired during that call. franz-go's is (it fetches only while a
	// poll runs); the Java client's is not: a ShareFetch that outlives
	// its poll's timeout is kept and handed out by a later poll. When
	// false, the share loop keeps a share-poll op open across empty polls
	// until records come, so that its invoke precedes their acquisition.
	AcquiresInPoll() bool
	// Ack acknowledges the last poll's records, the i-th with sts[i]
	// (histories.AckAccept, AckRelease, AckReject, AckRenew), sends them
	// and waits up to ctx for the broker's answers. A nil error means the
	// send finished: every partition's results are in hand. An error
	// means it did not: a result may be missing or another ack's.
	Ack(ctx context.Context, sts []string) (ShareAckResult, error)
	// Leave closes the client as a service would: what it holds is
	// released. Kill ends it as a crash does: its connections close
	// first, so no release is sent; the broker frees the locks when it
	// notices (or when they expire).
	Leave()
	Kill()
}

// ShareAckResult is what one acknowledgement round learned: the client's
// results per partition of the topic (nil: the broker applied the acks
// it carried), and, where the driver reads its own connections, the
// broker's answer for each record (Wire nil: not read).
type ShareAckResult struct {
	Results map[int32][]error
	Wire    func(p int32, off int64) *histories.ShareAckWire
}

// ErrShareClosed is a share member's Poll on a client that was closed.
var ErrShareClosed = errors.New("client closed")
