package workloads

import (
	"strings"
	"testing"
)

// namedDriver is a Driver of a given name, for the registry's refusals.
type namedDriver struct {
	franzDriver
	name string
}

func (d namedDriver) Name() string { return d.name }

// TestRegisterDriverRefuses: a second driver of a name already registered
// (the seam's own franz, here) and a driver without a name panic, and
// neither changes the registry.
func TestRegisterDriverRefuses(t *testing.T) {
	before := DriverNames()
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
	if d, _ := DriverFor(DriverFranz); d != (franzDriver{}) {
		t.Errorf("driver franz is %T after a refused registration", d)
	}
	if after := DriverNames(); strings.Join(after, ",") != strings.Join(before, ",") {
		t.Errorf("drivers %v after refused registrations, want %v", after, before)
	}
}
