package cluster

import (
	"strings"
	"testing"
)

func TestResolveVersion(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"4.1.x", "4.1.2", ""},
		{"3.9.x", "3.9.2", ""},
		{"4.4.x", "4.4.0", ""},
		{"latest", Releases[len(Releases)-1], ""},
		{"4.0.1", "4.0.1", ""},
		{"5.0.x", "", "knows no 5.0 release"},
		{"four", "", "want MAJOR.MINOR.PATCH"},
	} {
		got, err := ResolveVersion(tc.in)
		if got != tc.want || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("ResolveVersion(%q) = %q, %v; want %q, %q", tc.in, got, err, tc.want, tc.err)
		}
	}
	if DefaultKafkaVersion != Releases[len(Releases)-1] {
		t.Errorf("DefaultKafkaVersion %s is not the newest release %s", DefaultKafkaVersion, Releases[len(Releases)-1])
	}
	for i := 1; i < len(Releases); i++ {
		a, _ := ParseVersion(Releases[i-1])
		b, _ := ParseVersion(Releases[i])
		if !a.Less(b) {
			t.Errorf("Releases not oldest first at %s, %s", Releases[i-1], Releases[i])
		}
	}
}
