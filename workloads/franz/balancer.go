package franz

import (
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// userDataBalancer is a classic member's balancer whose subscription
// carries user data of the workload's (workload.group.metadata_bytes): the
// inner balancer's JoinGroupMetadata, a ConsumerMemberMetadata, with
// UserData replaced; everything else is the inner balancer's. The
// coordinator keeps each classic member's subscription in the group's
// GroupMetadata record, so the data makes that record large
// (KAFKA-20845). The inner balancer must keep nothing of its own in
// UserData (range and round-robin do not; the sticky ones do).
type userDataBalancer struct {
	kgo.GroupBalancer
	data []byte
}

func newUserDataBalancer(inner kgo.GroupBalancer, data []byte) kgo.GroupBalancer {
	return &userDataBalancer{GroupBalancer: inner, data: data}
}

// JoinGroupMetadata is the inner balancer's with UserData set; metadata
// that does not decode is left as it is.
func (b *userDataBalancer) JoinGroupMetadata(topics []string, current map[string][]int32, generation int32) []byte {
	meta := b.GroupBalancer.JoinGroupMetadata(topics, current, generation)
	var m kmsg.ConsumerMemberMetadata
	if err := m.ReadFrom(meta); err != nil {
		return meta
	}
	m.UserData = b.data
	return m.AppendTo(nil)
}
