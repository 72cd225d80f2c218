package admin

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
)

// The group coordinator's state read back at the end of a run
// (docs/HISTORY.md, "group-final"): what it holds of a group's committed
// offsets and membership, so that the checker can hold it against what
// the group's members were told (an acknowledged commit the coordinator
// later forgot shows only here, and in no member's view).

// CommittedOffset is one partition's committed offset as the group
// coordinator answers OffsetFetch.
type CommittedOffset struct {
	Offset      int64
	LeaderEpoch int32 // -1: committed without one
	Metadata    string
	// Err is the partition's own error; Offset means nothing then.
	Err error
}

// CommittedOffsets reads group's committed offsets on topic from its
// coordinator (OffsetFetch of every topic of the group, the topic's
// partitions kept): a partition absent from the map has no committed
// offset. The error is the request's or the group's: a coordinator
// loading its partition of __consumer_offsets answers
// COORDINATOR_LOAD_IN_PROGRESS, one that moved NOT_COORDINATOR
// (Retriable says to ask again).
func (c *Client) CommittedOffsets(ctx context.Context, group, topic string) (map[int32]CommittedOffset, error) {
	got, err := c.adm.FetchOffsets(ctx, group)
	if err != nil {
		return nil, fmt.Errorf("offset fetch of group %s: %w", group, err)
	}
	out := map[int32]CommittedOffset{}
	for p, o := range got[topic] {
		out[p] = CommittedOffset{Offset: o.At, LeaderEpoch: o.LeaderEpoch, Metadata: o.Metadata, Err: o.Err}
	}
	return out, nil
}

// GroupMember is one member of a group as its coordinator describes it.
type GroupMember struct {
	MemberID   string
	InstanceID string
	ClientID   string
	ClientHost string
	// Epoch is the member's epoch (KIP-848); -1 under the classic
	// protocol, whose DescribeGroups does not tell it.
	Epoch int32
	// Assigned is the member's assignment on the topic asked about.
	Assigned []int32
}

// GroupDescription is a group as its coordinator describes it.
type GroupDescription struct {
	// Type is the group's type on the coordinator: "classic"
	// (DescribeGroups answered) or "consumer" (KIP-848's
	// ConsumerGroupDescribe answered).
	Type string
	// State is the coordinator's state of the group (Stable, Empty,
	// PreparingRebalance, ... ; Dead for a group it does not know).
	State string
	// Protocol is the classic group's assignor (range, cooperative-sticky,
	// ...) or the consumer group's assignor name.
	Protocol string
	// Generation is the consumer group's epoch; -1 for a classic group
	// (DescribeGroups does not return the generation).
	Generation      int32
	AssignmentEpoch int32 // consumer groups; -1 otherwise
	Coordinator     int32
	Members         []GroupMember
}

// DescribeGroup describes group through the API of its protocol
// (histories.ProtocolConsumer: ConsumerGroupDescribe, Kafka 4.0+;
// otherwise DescribeGroups), and through the other when the first says
// the group is not of its type (a group converted between protocols: a
// mixed group, consumer-protocol and classic members, is a consumer group
// until its last consumer-protocol member leaves and the coordinator
// downgrades it to a classic one; or a broker without KIP-848). topic
// selects the assignments reported. See describeEither.
func (c *Client) DescribeGroup(ctx context.Context, group, protocol, topic string) (GroupDescription, error) {
	return describeEither(protocol,
		func() (GroupDescription, error) { return c.describeClassic(ctx, group, topic) },
		func() (GroupDescription, error) { return c.describeConsumer(ctx, group, topic) })
}

// describeEither asks classic or consumer first by protocol, then the
// other when the first's answer says the group is not of its type:
//   - an error of GROUP_ID_NOT_FOUND (ConsumerGroupDescribe of a classic
//     group; DescribeGroups v6+ of a consumer group), UNSUPPORTED_VERSION
//     (no KIP-848) or errWrongType: the other's answer if it has one, else
//     the first's error;
//   - DescribeGroups' state Dead without an error (what versions before
//     v6 answer for a group the coordinator holds as a consumer group, as
//     for one it does not know): the consumer description if
//     ConsumerGroupDescribe has one, else the Dead one.
func describeEither(protocol string, classic, consumer func() (GroupDescription, error)) (GroupDescription, error) {
	first, second := classic, consumer
	if protocol == "consumer" {
		first, second = second, first
	}
	d, err := first()
	if err == nil && !deadClassic(d) {
		return d, nil
	}
	if err != nil && !errors.Is(err, kerr.GroupIDNotFound) && !errors.Is(err, kerr.UnsupportedVersion) && !errors.Is(err, errWrongType) {
		return d, err
	}
	if d2, err2 := second(); err2 == nil && (err != nil || !deadClassic(d2)) {
		return d2, nil
	}
	return d, err
}

// deadClassic: DescribeGroups answered Dead, a group it does not hold.
func deadClassic(d GroupDescription) bool { return d.Type == "classic" && d.State == "Dead" }

// errWrongType: the describe API answered for a group of the other type.
var errWrongType = errors.New("group of the other protocol")

func (c *Client) describeClassic(ctx context.Context, group, topic string) (GroupDescription, error) {
	ds, err := c.adm.DescribeGroups(ctx, group)
	if err != nil {
		return GroupDescription{}, fmt.Errorf("describe group %s: %w", group, err)
	}
	g, ok := ds[group]
	switch {
	case !ok:
		return GroupDescription{}, fmt.Errorf("describe group %s: no answer", group)
	case g.Err != nil:
		return GroupDescription{}, fmt.Errorf("describe group %s: %w", group, g.Err)
	}
	d := GroupDescription{Type: "classic", State: g.State, Protocol: g.Protocol, Generation: -1, AssignmentEpoch: -1,
		Coordinator: g.Coordinator.NodeID}
	for _, m := range g.Members {
		gm := GroupMember{MemberID: m.MemberID, ClientID: m.ClientID, ClientHost: m.ClientHost, Epoch: -1}
		if m.InstanceID != nil {
			gm.InstanceID = *m.InstanceID
		}
		if a, ok := m.Assigned.AsConsumer(); ok {
			for _, t := range a.Topics {
				if t.Topic == topic {
					gm.Assigned = append(gm.Assigned, t.Partitions...)
				}
			}
		}
		slices.Sort(gm.Assigned)
		d.Members = append(d.Members, gm)
	}
	return d, nil
}

func (c *Client) describeConsumer(ctx context.Context, group, topic string) (GroupDescription, error) {
	ds, err := c.adm.DescribeConsumerGroups(ctx, group)
	if err != nil {
		return GroupDescription{}, fmt.Errorf("consumer group describe %s: %w", group, err)
	}
	g, ok := ds[group]
	switch {
	case !ok:
		return GroupDescription{}, fmt.Errorf("consumer group describe %s: no answer", group)
	case g.Err != nil:
		return GroupDescription{}, fmt.Errorf("consumer group describe %s: %w", group, g.Err)
	}
	d := GroupDescription{Type: "consumer", State: g.State, Protocol: g.AssignorName, Generation: g.Epoch,
		AssignmentEpoch: g.AssignmentEpoch, Coordinator: g.Coordinator.NodeID}
	for _, m := range g.Members {
		gm := GroupMember{MemberID: m.MemberID, ClientID: m.ClientID, ClientHost: m.ClientHost, Epoch: m.MemberEpoch}
		for p := range m.Assignment[topic] {
			gm.Assigned = append(gm.Assigned, p)
		}
		slices.Sort(gm.Assigned)
		if m.InstanceID != nil {
			gm.InstanceID = *m.InstanceID
		}
		d.Members = append(d.Members, gm)
	}
	return d, nil
}

// Retriable reports whether a group read failed only because the
// coordinator could not answer yet: loading its partition of
// __consumer_offsets after a move, moved, or not reachable. Asking again
// may succeed; any other error will not change.
func Retriable(err error) bool {
	for _, e := range []error{kerr.CoordinatorLoadInProgress, kerr.NotCoordinator, kerr.CoordinatorNotAvailable} {
		if errors.Is(err, e) {
			return true
		}
	}
	var ke *kerr.Error
	return !errors.As(err, &ke) // a network error, a timeout: ask again
}
