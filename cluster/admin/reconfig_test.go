package admin

import (
	"fmt"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestMembersFrom: voters and observers in id order with their directory
// ids written as Kafka writes Uuids; an answer below version 2 (no
// directory ids) and an error code are refused, naming why.
func TestMembersFrom(t *testing.T) {
	dir := func(b byte) [16]byte { var u [16]byte; u[0], u[15] = 0x40, b; return u }
	resp := func(version int16, code int16) *kmsg.DescribeQuorumResponse {
		r := kmsg.NewPtrDescribeQuorumResponse()
		r.Version = version
		tp := kmsg.NewDescribeQuorumResponseTopic()
		tp.Topic = metadataTopic
		p := kmsg.NewDescribeQuorumResponseTopicPartition()
		p.ErrorCode, p.LeaderID, p.LeaderEpoch = code, 1001, 7
		for _, id := range []int32{1002, 1000, 1001} {
			s := kmsg.NewDescribeQuorumResponseTopicPartitionReplicaState()
			s.ReplicaID, s.ReplicaDirectoryID, s.LogEndOffset = id, dir(byte(id-1000)), 90
			p.CurrentVoters = append(p.CurrentVoters, s)
		}
		s := kmsg.NewDescribeQuorumResponseTopicPartitionReplicaState()
		s.ReplicaID, s.ReplicaDirectoryID, s.LogEndOffset = 1003, dir(3), 80
		p.Observers = append(p.Observers, s)
		tp.Partitions = append(tp.Partitions, p)
		r.Topics = append(r.Topics, tp)
		return r
	}
	for _, tc := range []struct {
		name          string
		version, code int16
		want, err     string
	}{
		{name: "v2", version: 2, want: "leader 1001 epoch 7 voters [1000 1001 1002] observer 1003 QAAAAAAAAAAAAAAAAAAAAw 80; dir of 1002 QAAAAAAAAAAAAAAAAAAAAg"},
		{name: "v1 has no directory ids", version: 1, err: "version 1 answers no directory ids"},
		{name: "partition error", version: 2, code: 6, err: "NOT_LEADER_FOR_PARTITION"},
	} {
		m, err := membersFrom(resp(tc.version, tc.code))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		o, _ := m.Observer(1003)
		v, _ := m.Voter(1002)
		got := fmt.Sprintf("leader %d epoch %d voters %v observer %d %s %d; dir of 1002 %s", m.LeaderID, m.LeaderEpoch, m.VoterIDs(), o.ID, o.DirectoryID, o.LogEndOffset, v.DirectoryID)
		if err != nil || got != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.name, got, err, tc.want)
		}
		if u, err := parseUUID(o.DirectoryID); err != nil || u != dir(3) {
			t.Errorf("%s: ParseUUID(%q) = %v, %v", tc.name, o.DirectoryID, u, err)
		}
	}
}

// TestAnswer: Kafka's error codes become their names, with Kafka's
// retriability; NONE is success.
func TestAnswer(t *testing.T) {
	msg := "Request timed out waiting for leader to handle previous voter change request"
	for _, tc := range []struct {
		code      int16
		msg       *string
		want      Answer
		ok, retry bool
	}{
		{0, nil, Answer{Code: "NONE"}, true, false},
		{7, &msg, Answer{Code: "REQUEST_TIMED_OUT", Message: msg, Retriable: true}, false, true},
		{126, nil, Answer{Code: "DUPLICATE_VOTER"}, false, false},
		{127, nil, Answer{Code: "VOTER_NOT_FOUND"}, false, false},
		{35, nil, Answer{Code: "UNSUPPORTED_VERSION"}, false, false},
	} {
		a := answer(tc.code, tc.msg)
		if a != tc.want || a.OK() != tc.ok || a.Retriable != tc.retry {
			t.Errorf("code %d: %+v (ok %v), want %+v (ok %v, retriable %v)", tc.code, a, a.OK(), tc.want, tc.ok, tc.retry)
		}
	}
	if _, err := parseUUID("short"); err == nil {
		t.Error("ParseUUID took a short string")
	}
}
