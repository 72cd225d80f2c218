package workloads_test

// The seam's tests see every driver (the java runs of the integration
// tests and of BenchmarkProduce, validation that names driver java) and
// every workload kind: this external test file links every driver and
// kind package, which registers itself in the test binary before any test
// runs. The seam's own code never imports a driver or kind package.
import (
	"slices"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/workloads"
	_ "github.com/kchaos/kchaos/workloads/drivers"
	_ "github.com/kchaos/kchaos/workloads/kinds"
)

// TestDriversLinked: workloads/drivers registers every driver package's
// driver (the seam holds none of its own), under its name, and validation
// refuses a name no driver has by listing them all.
func TestDriversLinked(t *testing.T) {
	want := []string{workloads.DriverFranz, workloads.DriverJava, workloads.DriverKafkaGo}
	if got := workloads.DriverNames(); !slices.Equal(got, want) {
		t.Errorf("DriverNames() = %v, want %v", got, want)
	}
	for _, name := range want {
		if d, ok := workloads.DriverFor(name); !ok || d.Name() != name {
			t.Errorf("DriverFor(%q) = %v, %v", name, d, ok)
		}
	}
	if _, ok := workloads.DriverFor("nope"); ok {
		t.Error(`DriverFor("nope") found a driver`)
	}
	c := workloads.Config{Driver: "nope", Topic: "t"}
	c.Defaults()
	err := c.Validate()
	if err == nil || !strings.Contains(err.Error(), `driver: "nope": want franz, java or kafka-go`) {
		t.Errorf("Validate: %v, want the unknown driver refused with every known one listed", err)
	}
}

// TestDriverCapabilities: the settings only some clients take are the
// Java driver's (client_version, verbatim properties, the implicit share
// acknowledgement mode) and franz-go's (a commit's leader epoch); a
// classic member's subscription user data is franz-go's and kafka-go's.
func TestDriverCapabilities(t *testing.T) {
	for _, c := range []struct {
		name string
		want workloads.Capabilities
	}{
		{workloads.DriverFranz, workloads.Capabilities{CommitLeaderEpoch: true, SubscriptionUserData: true}},
		{workloads.DriverKafkaGo, workloads.Capabilities{SubscriptionUserData: true}},
		{workloads.DriverJava, workloads.Capabilities{ClientVersion: true, VerbatimProps: true, ImplicitShareAck: true}},
	} {
		d, ok := workloads.DriverFor(c.name)
		if !ok {
			t.Fatalf("driver %q not registered", c.name)
		}
		var got workloads.Capabilities
		if cd, ok := d.(workloads.CapableDriver); ok {
			got = cd.Capabilities()
		}
		if got != c.want {
			t.Errorf("driver %s: Capabilities %+v, want %+v", c.name, got, c.want)
		}
	}
}
