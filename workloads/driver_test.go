package workloads

import (
	"strings"
	"testing"
)

// namedDriver is a Driver of a given name, for the registry's refusals:
// only its name is asked.
type namedDriver struct {
	Driver
	name string
}

func (d namedDriver) Name() string { return d.name }

// TestRegisterDriverRefuses: a second driver of a name already registered
// (franz, here: workloads/franz, linked into the test binary by
// drivers_test.go) and a driver without a name panic, and neither changes
// the registry.
func TestRegisterDriverRefuses(t *testing.T) {
	before := DriverNames()
	franz, ok := DriverFor(DriverFranz)
	if !ok {
		t.Fatal("driver franz not registered: drivers_test.go links workloads/drivers")
	}
	for _, c := range []struct{ name, want string }{
		{DriverFranz, `driver "franz" registered twice`},
		{"", "a driver without a name"},
	} {
		func() {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.Contains(s, c.want) {
					t.Errorf("RegisterDriver(%q): panic %v, want %q", c.name, r, c.want)
				}
			}()
			RegisterDriver(namedDriver{name: c.name})
		}()
	}
	if d, _ := DriverFor(DriverFranz); d != franz {
		t.Errorf("driver franz is %T after a refused registration", d)
	}
	if after := DriverNames(); strings.Join(after, ",") != strings.Join(before, ",") {
		t.Errorf("drivers %v after refused registrations, want %v", after, before)
	}
}
