package kafkago

import (
	"testing"

	kafka "github.com/segmentio/kafka-go"

	"github.com/kchaos/kchaos/workloads"
)

// TestGroupBalancers: kafka-go's defaults without metadata_bytes; with
// it, the range balancer whose user data is the workload's.
func TestGroupBalancers(t *testing.T) {
	if bs := groupBalancers(workloads.GroupConfig{ID: "g"}); bs != nil {
		t.Fatalf("without metadata_bytes: %v, want kafka-go's defaults", bs)
	}
	bs := groupBalancers(workloads.GroupConfig{ID: "g", MetadataBytes: 5000})
	if len(bs) != 1 || bs[0].ProtocolName() != (kafka.RangeGroupBalancer{}).ProtocolName() {
		t.Fatalf("balancers %v, want range alone", bs)
	}
	d, err := bs[0].UserData()
	if err != nil || string(d) != string(workloads.SubscriptionUserData(5000)) {
		t.Errorf("user data of %d bytes, %v", len(d), err)
	}
}
