package cluster

import (
	"fmt"
	"strings"
	"testing"
)

// TestResolveVersion: the grammar (issue 37 item 2), every form and every
// malformed spelling an adversarial user tried.
func TestResolveVersion(t *testing.T) {
	newest := Releases[len(Releases)-1]
	const malformed = "is not a Kafka version (want X.Y.Z, X.Y.x, latest or local:NAME)"
	for _, tc := range []struct{ in, want, err string }{
		{"4.1.x", "4.1.2", ""},
		{"3.9.x", "3.9.2", ""},
		{"4.3.x", "4.3.2", ""},
		{"4.4.x", "4.4.0", ""},
		{"latest", newest, ""},
		{"4.0.1", "4.0.1", ""},
		{"4.3.2", "4.3.2", ""},
		// New patches and lines need no change to kchaos: the image build
		// resolves them.
		{"4.4.1", "4.4.1", ""},
		{"4.1.9", "4.1.9", ""},
		{"5.0.0", "5.0.0", ""},
		{"local:4.5.0-SNAPSHOT", "local:4.5.0-SNAPSHOT", ""},
		{"local:4.4.0-my_fix.2", "local:4.4.0-my_fix.2", ""},
		// Refused.
		{"4.4", "", `"4.4" ` + malformed},
		{"04.04.00", "", `"04.04.00" ` + malformed},
		{"4.04.0", "", `"4.04.0" ` + malformed},
		{"4.4.0-rc1", "", `"4.4.0-rc1" ` + malformed},
		{"3.9.2-4.4.0", "", `"3.9.2-4.4.0" ` + malformed},
		{"banana", "", `"banana" ` + malformed},
		{"v4.4.0", "", malformed},
		{"4.4.0 ", "", malformed},
		{"", "", `"" ` + malformed},
		{"4.4.X", "", malformed},
		{"4.x", "", malformed},
		{"+4.4.0", "", malformed},
		{"4.4.0.1", "", malformed},
		{"Latest", "", malformed},
		{"5.0.x", "", "kchaos knows no 5.0 release"},
		{"3.8.1", "", `"3.8.1": kchaos supports 3.9 and later`},
		{"3.8.x", "", "kchaos knows no 3.8 release"},
		{"local:3.8.0-x", "", "kchaos supports 3.9 and later"},
		{"local:4.5.0", "", "a local build is local:X.Y.Z-SUFFIX"},
		{"local:trunk", "", "a local build is local:X.Y.Z-SUFFIX"},
		{"local:4.5.0-a/b", "", "a local build is local:X.Y.Z-SUFFIX"},
		{"local:" + "4.5.0-" + strings.Repeat("a", 200), "", "a local build"},
	} {
		got, err := ResolveVersion(tc.in)
		if got != tc.want || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("ResolveVersion(%q) = %q, %v; want %q, %q", tc.in, got, err, tc.want, tc.err)
		}
	}
	if DefaultKafkaVersion != newest {
		t.Errorf("DefaultKafkaVersion %s is not the newest release %s", DefaultKafkaVersion, newest)
	}
	for i := 1; i < len(Releases); i++ {
		a, _ := ParseVersion(Releases[i-1])
		b, _ := ParseVersion(Releases[i])
		if !a.Less(b) || a.Major == b.Major && a.Minor == b.Minor {
			t.Errorf("Releases not one per line, oldest first, at %s, %s", Releases[i-1], Releases[i])
		}
	}
}

func TestResolveVersions(t *testing.T) {
	flag := func(int) string { return "--kafka" }
	field := func(i int) string { return fmt.Sprintf("kafka[%d]", i) }
	for _, tc := range []struct {
		in    []string
		label func(int) string
		want  string // joined, or the error's text
		err   bool
	}{
		{[]string{"3.9.x", "4.4.x", "4.1.2"}, flag, "3.9.2 4.4.0 4.1.2", false},
		{[]string{"latest", "4.4.0"}, flag, `--kafka: "4.4.0" is 4.4.0, as "latest" (--kafka) is`, true},
		{[]string{"4.4.x", "4.4.0"}, field, `kafka[1]: "4.4.0" is 4.4.0, as "4.4.x" (kafka[0]) is`, true},
		{[]string{"4.1.2", "4.1.2"}, field, `kafka[1]: "4.1.2" is 4.1.2`, true},
		{[]string{"banana", "4.4", "4.4.0"}, field, `kafka[0]: "banana" is not a Kafka version`, true},
		{[]string{"banana", "4.4", "4.4.0"}, field, `kafka[1]: "4.4" is not a Kafka version`, true},
		// A local build is not its release.
		{[]string{"local:4.4.0-fix", "4.4.0"}, flag, "local:4.4.0-fix 4.4.0", false},
	} {
		got, err := ResolveVersions(tc.in, tc.label)
		switch {
		case tc.err && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("ResolveVersions(%q) = %v; want an error with %q", tc.in, err, tc.want)
		case !tc.err && (err != nil || strings.Join(got, " ") != tc.want):
			t.Errorf("ResolveVersions(%q) = %q, %v; want %s", tc.in, got, err, tc.want)
		}
	}
}

func TestLocalBuilds(t *testing.T) {
	v, err := ParseVersion("local:4.5.0-SNAPSHOT")
	if err != nil || v != (Version{4, 5, 0}) {
		t.Errorf("ParseVersion(local:4.5.0-SNAPSHOT) = %v, %v", v, err)
	}
	for _, bad := range []string{"4.4", "04.04.00", "4.4.0-rc1", "local:4.5.0", "x.y.z"} {
		if _, err := ParseVersion(bad); err == nil {
			t.Errorf("ParseVersion(%q) accepted", bad)
		}
	}
	for v, img := range map[string]string{"4.4.0": "kchaos/kafka:4.4.0", "local:4.5.0-SNAPSHOT": "kchaos/kafka:4.5.0-SNAPSHOT"} {
		if got := Image(v); got != img {
			t.Errorf("Image(%s) = %s, want %s", v, got, img)
		}
	}
	for in, want := range map[string]string{"latest": DefaultKafkaVersion, "4.1.x": "4.1.2", "local:4.5.0-SNAPSHOT": "local:4.5.0-SNAPSHOT"} {
		c := Config{KafkaVersion: in}
		c.Defaults()
		if c.KafkaVersion != want || c.Image != Image(want) {
			t.Errorf("Defaults of kafka %s: %s, image %s; want %s", in, c.KafkaVersion, c.Image, want)
		}
		if err := c.Validate(); err != nil {
			t.Errorf("Validate of kafka %s: %v", in, err)
		}
	}
	c := Config{KafkaVersion: "4.4"}
	c.Defaults()
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), `kafka: "4.4" is not a Kafka version`) {
		t.Errorf("Validate of kafka 4.4: %v", err)
	}
}
