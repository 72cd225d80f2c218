package admin

import (
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// KRaft quorum reconfiguration (KIP-853), as kafka-metadata-quorum.sh's
// add-controller and remove-controller do it through the Admin API.
//
// Where the requests go: AddRaftVoter (key 80) and RemoveRaftVoter (key
// 81) are served by controllers and brokers alike (their message specs
// list both listeners); a broker forwards them to the active controller
// (KafkaApis: forwardToControllerOrFail, 3.9). franz-go does not mark them
// admin requests (kmsg: no IsAdminRequest), so Client sends them to any
// broker, which forwards them. That broker may be one a fault cut off
// (q4 isolates a partition leader while it adds a controller back): it
// holds the request until our attempt gives up, and the next attempt may
// pick it again. So where kchaos knows the controllers' listeners
// (Controllers, the Docker backend) the requests go straight to the
// controller that claims the quorum's lead, as
// `kafka-metadata-quorum.sh --bootstrap-controller` sends them; a
// controller that does not lead answers NOT_LEADER_OR_FOLLOWER
// (retriable). Both name the voter by id and metadata log directory id (a
// Kafka Uuid); AddRaftVoter also gives the new voter's endpoints, which the
// leader dials (ApiVersions, to check its kraft.version range) before it
// waits for the new voter to catch up. kadm (v1.20) has no helper for
// either. The leader answers (raft AddVoterHandler, RemoveVoterHandler):
// REQUEST_TIMED_OUT while a voter change is uncommitted, while it has no
// high watermark in its epoch, while the new voter lags, or when the new
// voter set does not commit in time; UNSUPPORTED_VERSION on kraft.version
// 0 (a static quorum); DUPLICATE_VOTER for an id already voting;
// VOTER_NOT_FOUND for a voter (id and directory) not in the set. A leader
// that removes itself resigns once the removal commits.

// Member is one replica of the metadata partition as DescribeQuorum
// (version 2, KIP-853) reports it: its id, its metadata log directory id
// (the Uuid the reconfiguration requests name it by) and its log end
// offset.
type Member struct {
	ID           int32  `json:"id"`
	DirectoryID  string `json:"directory_id"`
	LogEndOffset int64  `json:"log_end_offset"`
}

// Members is the voter set and the observers, with the leader that
// answered.
type Members struct {
	LeaderID    int32    `json:"leader_id"`
	LeaderEpoch int32    `json:"leader_epoch"`
	Voters      []Member `json:"voters"`
	Observers   []Member `json:"observers"`
}

// VoterIDs are the voters' ids in id order.
func (m Members) VoterIDs() []int32 { return ids(m.Voters) }

// Voter is the voter id, if it is one.
func (m Members) Voter(id int32) (Member, bool) { return find(m.Voters, id) }

// Observer is the observer id, if it is one.
func (m Members) Observer(id int32) (Member, bool) { return find(m.Observers, id) }

func ids(ms []Member) []int32 {
	out := make([]int32, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

func find(ms []Member, id int32) (Member, bool) {
	i := slices.IndexFunc(ms, func(m Member) bool { return m.ID == id })
	if i < 0 {
		return Member{}, false
	}
	return ms[i], true
}

// QuorumMembers describes the quorum's voters and observers with their
// directory ids (DescribeQuorum v2; 3.9 and later answer it).
func (c *Client) QuorumMembers(ctx context.Context) (Members, error) {
	resp, err := c.describeQuorum(ctx)
	if err != nil {
		return Members{}, err
	}
	return membersFrom(resp)
}

// membersFrom decodes a DescribeQuorum answer into Members (id order).
func membersFrom(resp *kmsg.DescribeQuorumResponse) (Members, error) {
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return Members{}, fmt.Errorf("describe quorum: %w%s", err, message(resp.ErrorMessage))
	}
	if resp.Version < 2 {
		return Members{}, fmt.Errorf("describe quorum: version %d answers no directory ids (KIP-853 needs version 2, Kafka 3.9+)", resp.Version)
	}
	for _, t := range resp.Topics {
		if t.Topic != metadataTopic || len(t.Partitions) == 0 {
			continue
		}
		p := t.Partitions[0]
		if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
			return Members{}, fmt.Errorf("describe quorum: %w%s", err, message(p.ErrorMessage))
		}
		return Members{LeaderID: p.LeaderID, LeaderEpoch: p.LeaderEpoch,
			Voters: members(p.CurrentVoters), Observers: members(p.Observers)}, nil
	}
	return Members{}, errors.New("describe quorum: no " + metadataTopic + " partition in the answer")
}

func members(in []kmsg.DescribeQuorumResponseTopicPartitionReplicaState) []Member {
	out := make([]Member, 0, len(in))
	for _, r := range in {
		out = append(out, Member{ID: r.ReplicaID, DirectoryID: uuidString(r.ReplicaDirectoryID), LogEndOffset: r.LogEndOffset})
	}
	slices.SortFunc(out, func(a, b Member) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// uuidString writes a Kafka Uuid as Kafka does: unpadded URL-safe base64.
func uuidString(u [16]byte) string { return base64.RawURLEncoding.EncodeToString(u[:]) }

// parseUUID reads a Kafka Uuid string.
func parseUUID(s string) ([16]byte, error) {
	var u [16]byte
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) != 16 {
		return u, fmt.Errorf("%q is not a Kafka Uuid (22 characters of URL-safe base64)", s)
	}
	copy(u[:], b)
	return u, nil
}

// Answer is what Kafka answered a reconfiguration request: its error
// code's name ("NONE" for success), message, and whether Kafka calls the
// error retriable (REQUEST_TIMED_OUT: a change in flight, no high
// watermark yet, the new voter still catching up; NOT_CONTROLLER and the
// like while the quorum elects).
type Answer struct {
	Code      string `json:"code"`
	Message   string `json:"message,omitempty"`
	Retriable bool   `json:"retriable,omitempty"`
}

// OK reports whether the request succeeded.
func (a Answer) OK() bool { return a.Code == "NONE" }

func answer(code int16, msg *string) Answer {
	a := Answer{Code: "NONE"}
	if err := kerr.TypedErrorForCode(code); err != nil {
		a.Code, a.Retriable = err.Message, err.Retriable
	}
	if msg != nil {
		a.Message = *msg
	}
	return a
}

// controllerListener is the name of the controllers' listener
// (controller.listener.names, cluster.Render).
const controllerListener = "CONTROLLER"

// reconfigTimeout is the TimeoutMs of an AddRaftVoter: how long the
// leader may wait for the new voter set to commit before it answers
// REQUEST_TIMED_OUT.
const reconfigTimeout = 15000

// AddRaftVoter asks the quorum to add controller id, whose metadata log
// directory is dir, reachable on the controller listener at host:port.
// err is a transport failure (no answer); Kafka's refusals are in the
// Answer.
func (c *Client) AddRaftVoter(ctx context.Context, id int32, dir, host string, port uint16) (Answer, error) {
	return addRaftVoter(ctx, c.cl, id, dir, host, port)
}

// RemoveRaftVoter asks the quorum to remove voter id with directory dir.
func (c *Client) RemoveRaftVoter(ctx context.Context, id int32, dir string) (Answer, error) {
	return removeRaftVoter(ctx, c.cl, id, dir)
}

// addRaftVoter sends AddRaftVoter through r: a client (any broker, which
// forwards it) or one controller (Controllers).
func addRaftVoter(ctx context.Context, r kmsg.Requestor, id int32, dir, host string, port uint16) (Answer, error) {
	u, err := parseUUID(dir)
	if err != nil {
		return Answer{}, fmt.Errorf("add raft voter %d: directory id: %w", id, err)
	}
	req := kmsg.NewPtrAddRaftVoterRequest()
	req.TimeoutMillis = reconfigTimeout
	req.VoterID, req.VoterDirectoryID = id, u
	l := kmsg.NewAddRaftVoterRequestListener()
	l.Name, l.Host, l.Port = controllerListener, host, port
	req.Listeners = append(req.Listeners, l)
	req.AckWhenCommitted = true
	resp, err := req.RequestWith(ctx, r)
	if err != nil {
		return Answer{}, fmt.Errorf("add raft voter %d: %w", id, err)
	}
	return answer(resp.ErrorCode, resp.ErrorMessage), nil
}

// removeRaftVoter sends RemoveRaftVoter through r (as addRaftVoter).
func removeRaftVoter(ctx context.Context, r kmsg.Requestor, id int32, dir string) (Answer, error) {
	u, err := parseUUID(dir)
	if err != nil {
		return Answer{}, fmt.Errorf("remove raft voter %d: directory id: %w", id, err)
	}
	req := kmsg.NewPtrRemoveRaftVoterRequest()
	req.VoterID, req.VoterDirectoryID = id, u
	resp, err := req.RequestWith(ctx, r)
	if err != nil {
		return Answer{}, fmt.Errorf("remove raft voter %d: %w", id, err)
	}
	return answer(resp.ErrorCode, resp.ErrorMessage), nil
}
