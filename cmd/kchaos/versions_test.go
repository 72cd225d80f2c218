package main

import (
	"strings"
	"testing"

	"github.com/kchaos/kchaos/cluster"
)

// TestVersions: the Makefile's image targets and the nightly matrix read
// their versions from here, so what it prints is what they build and run.
func TestVersions(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"versions"}, 0, strings.Join(cluster.Releases, "\n") + "\n"},
		// u1 starts on 3.9.2 and upgrades to "latest"; u2 the same: each once.
		{[]string{"versions", "u1", "u2"}, 0, "3.9.2\n" + cluster.Releases[len(cluster.Releases)-1] + "\n"},
		{[]string{"versions", "s1"}, 0, cluster.DefaultKafkaVersion + "\n"},
		// The Makefile's KAFKA_VERSION default.
		{[]string{"versions", "--default"}, 0, cluster.DefaultKafkaVersion + "\n"},
		{[]string{"versions", "--default", "s1"}, exitBadInput, "--default takes no scenario"},
		{[]string{"versions", "nosuch"}, exitBadInput, `"nosuch" is neither a built-in scenario`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out := runCLIErr(t, tc.args...)
			if code != tc.code || (tc.code == 0 && out != tc.want) || !strings.Contains(out, tc.want) {
				t.Fatalf("exit %d, output %q; want exit %d with %q", code, out, tc.code, tc.want)
			}
		})
	}
}
