package admin

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kchaos/kchaos/histories"
)

// Controllers asks each KRaft controller for the quorum on its own
// controller listener, as `kafka-metadata-quorum.sh --bootstrap-controller`
// does (KIP-919, 3.7+; every release kchaos runs is 3.9 or newer).
//
// Why not through a broker, as Client.Quorum does: a broker forwards
// DescribeQuorum to the controller its forwarding channel has cached, and
// that channel looks for a new one only after a request to the cached one
// fails (Kafka's NodeToControllerRequestThread). When the active
// controller's host vanishes (a container killed, a power cut) the
// channel's connection attempt waits out socket.connection.setup.timeout.ms
// (10 s by default, growing to 30 s), so a broker-forwarded sample names
// the new leader 15-20 s after the controllers elected it (q2, q4, q5). And
// a forwarded answer is one controller's view: two controllers that both
// believe they lead cannot show side by side. Asked directly, only a
// controller that believes it leads answers with the quorum's state (a
// follower answers NOT_LEADER_OR_FOLLOWER: KafkaRaftClient
// handleDescribeQuorumRequest), so every answer is a leadership claim,
// stamped with who made it.
type Controllers struct {
	ids []int32
	cls []*kgo.Client
}

// claimTimeout bounds one controller's answer: a paused, cut-off or
// vanished controller must not hold up the others' (they are asked at
// once), nor the observer's tick, which waits for the quorum's sample
// beside the partitions' (every 250 ms while all answer, at most this
// long while one does not). A controller answers DescribeQuorum from its
// Raft thread in milliseconds; one slower than this loses a sample,
// never makes one.
const claimTimeout = 400 * time.Millisecond

// NewControllers connects to the controllers at addrs (id -> host:port of
// the controller listener). Nothing is dialled until the first request.
func NewControllers(addrs map[int32]string) (*Controllers, error) {
	c := &Controllers{}
	for _, id := range slices.Sorted(maps.Keys(addrs)) {
		cl, err := kgo.NewClient(
			kgo.SeedBrokers(addrs[id]),
			kgo.RequestTimeoutOverhead(time.Second),
			kgo.DialTimeout(time.Second),
			kgo.RequestRetries(0),
		)
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("controller %d at %s: %w", id, addrs[id], err)
		}
		c.ids = append(c.ids, id)
		c.cls = append(c.cls, cl)
	}
	if len(c.ids) == 0 {
		return nil, errors.New("admin: no controller to ask")
	}
	return c, nil
}

// Close releases the connections.
func (c *Controllers) Close() {
	for _, cl := range c.cls {
		cl.Close()
	}
}

// Claims asks every controller at once and returns, in controller id
// order, the answer of each that answered as the quorum's leader, with
// From set to it. A follower's refusal, a timeout and a failed dial are
// not claims; err is the last such failure when no controller claimed.
func (c *Controllers) Claims(ctx context.Context) ([]histories.QuorumValue, error) {
	type answer struct {
		q   histories.QuorumValue
		err error
	}
	answers := make([]answer, len(c.cls))
	var wg sync.WaitGroup
	for i, cl := range c.cls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			actx, cancel := context.WithTimeout(ctx, claimTimeout)
			defer cancel()
			q, err := askController(actx, cl)
			if err == nil && q.LeaderID != c.ids[i] {
				err = fmt.Errorf("controller %d answered as leader %d", c.ids[i], q.LeaderID)
			}
			q.From = c.ids[i]
			answers[i] = answer{q, err}
		}()
	}
	wg.Wait()
	var out []histories.QuorumValue
	var last error
	for i, a := range answers {
		if a.err != nil {
			last = fmt.Errorf("controller %d: %w", c.ids[i], a.err)
			continue
		}
		out = append(out, a.q)
	}
	if len(out) == 0 {
		return nil, last
	}
	return out, nil
}

// Quorum is the claim of the highest epoch (the newest leader any
// controller knows of), so that Controllers serves wherever one sample of
// the quorum is wanted.
func (c *Controllers) Quorum(ctx context.Context) (histories.QuorumValue, error) {
	claims, err := c.Claims(ctx)
	if err != nil {
		return histories.QuorumValue{}, err
	}
	return newest(claims), nil
}

// newest is the claim of the highest epoch.
func newest(claims []histories.QuorumValue) histories.QuorumValue {
	best := claims[0]
	for _, q := range claims[1:] {
		if q.LeaderEpoch > best.LeaderEpoch {
			best = q
		}
	}
	return best
}

// leader is the connection to the controller whose claim is the newest:
// the one that leads the quorum as far as any controller knows.
func (c *Controllers) leader(ctx context.Context) (*kgo.Broker, int32, error) {
	claims, err := c.Claims(ctx)
	if err != nil {
		return nil, 0, err
	}
	id := newest(claims).From
	seeds := c.cls[slices.Index(c.ids, id)].SeedBrokers()
	if len(seeds) == 0 {
		return nil, id, fmt.Errorf("controller %d: no seed", id)
	}
	return seeds[0], id, nil
}

// QuorumMembers is Client.QuorumMembers answered by the leading
// controller itself.
func (c *Controllers) QuorumMembers(ctx context.Context) (Members, error) {
	b, id, err := c.leader(ctx)
	if err != nil {
		return Members{}, err
	}
	resp, err := describeQuorumRequest().RequestWith(ctx, b)
	if err != nil {
		return Members{}, fmt.Errorf("controller %d: %w", id, err)
	}
	return membersFrom(resp)
}

// AddRaftVoter is Client.AddRaftVoter sent to the leading controller
// (reconfig.go says why not through a broker).
func (c *Controllers) AddRaftVoter(ctx context.Context, id int32, dir, host string, port uint16) (Answer, error) {
	b, _, err := c.leader(ctx)
	if err != nil {
		return Answer{}, fmt.Errorf("add raft voter %d: %w", id, err)
	}
	return addRaftVoter(ctx, b, id, dir, host, port)
}

// RemoveRaftVoter is Client.RemoveRaftVoter sent to the leading
// controller.
func (c *Controllers) RemoveRaftVoter(ctx context.Context, id int32, dir string) (Answer, error) {
	b, _, err := c.leader(ctx)
	if err != nil {
		return Answer{}, fmt.Errorf("remove raft voter %d: %w", id, err)
	}
	return removeRaftVoter(ctx, b, id, dir)
}

// askController sends DescribeQuorum to the one controller cl knows (its
// seed), never to another: the answer must be that controller's own.
func askController(ctx context.Context, cl *kgo.Client) (histories.QuorumValue, error) {
	seeds := cl.SeedBrokers()
	if len(seeds) == 0 {
		return histories.QuorumValue{}, errors.New("no seed")
	}
	resp, err := seeds[0].Request(ctx, describeQuorumRequest())
	if err != nil {
		return histories.QuorumValue{}, err
	}
	return quorumFrom(resp.(*kmsg.DescribeQuorumResponse))
}
