package franz

import (
	"bytes"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kchaos/kchaos/workloads"
)

// TestUserDataBalancer: the subscription a classic member sends with
// metadata_bytes n decodes as the range balancer's, with n bytes of user
// data; the rest is the range balancer's.
func TestUserDataBalancer(t *testing.T) {
	inner := kgo.RangeBalancer()
	topics := []string{"a", "kchaos"}
	for _, n := range []int{0, 1, 1000, 1 << 20} {
		b := newUserDataBalancer(inner, workloads.SubscriptionUserData(n))
		if b.ProtocolName() != "range" || b.IsCooperative() {
			t.Fatalf("protocol %q cooperative %v, want range, eager", b.ProtocolName(), b.IsCooperative())
		}
		var want, got kmsg.ConsumerMemberMetadata
		if err := want.ReadFrom(inner.JoinGroupMetadata(slices.Clone(topics), nil, 7)); err != nil {
			t.Fatal(err)
		}
		if err := got.ReadFrom(b.JoinGroupMetadata(slices.Clone(topics), nil, 7)); err != nil {
			t.Fatalf("n=%d: metadata does not decode: %v", n, err)
		}
		if len(got.UserData) != n || !bytes.Equal(got.UserData, workloads.SubscriptionUserData(n)) {
			t.Errorf("n=%d: user data of %d bytes", n, len(got.UserData))
		}
		if !slices.Equal(got.Topics, topics) || got.Version != want.Version || got.Generation != want.Generation ||
			len(got.OwnedPartitions) != len(want.OwnedPartitions) {
			t.Errorf("n=%d: metadata %+v, want the range balancer's %+v", n, got, want)
		}
	}
}
