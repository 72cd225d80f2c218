// Package image holds the Kafka image build (build.sh, mirror.sh); this
// test covers the one piece of logic that can run without building: which
// Debian mirror the build takes.
package image

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Fake apt sources. The host names are placeholders under .invalid (RFC
// 2606), never a real mirror: the repo names none.
const (
	deb822Main = `Types: deb
# a comment
URIs: http://main.mirror.invalid/debian
Suites: bookworm bookworm-updates
Components: main

Types: deb
URIs: http://main.mirror.invalid/debian-security
Suites: bookworm-security
Components: main
`
	deb822SecurityFirst = `Types: deb
URIs: http://sec.mirror.invalid/debian-security
Suites: bookworm-security
Components: main

Types: deb-src
URIs: http://src.mirror.invalid/debian
Suites: bookworm

Types: deb
Enabled: no
URIs: http://off.mirror.invalid/debian
Suites: bookworm

Types: deb
URIs: http://second.mirror.invalid/debian/ http://third.mirror.invalid/debian
Suites: bookworm
`
	classic = `# deb http://commented.mirror.invalid/debian bookworm main
deb-src http://src.mirror.invalid/debian bookworm main
deb http://sec.mirror.invalid/debian-security bookworm-security main
deb [arch=amd64 signed-by=/usr/share/keyrings/k.gpg] http://classic.mirror.invalid/debian bookworm main
`
)

func TestDebianMirror(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string // path under the fake root -> content
		env     string            // DEBIAN_MIRROR
		want    string            // "" = must fail
		wantErr string
	}{
		{"deb822", map[string]string{"etc/apt/sources.list.d/debian.sources": deb822Main}, "", "http://main.mirror.invalid/debian", ""},
		{"deb822 skips security, deb-src, disabled; first URI; no trailing slash",
			map[string]string{"etc/apt/sources.list.d/debian.sources": deb822SecurityFirst}, "", "http://second.mirror.invalid/debian", ""},
		{"classic sources.list with options", map[string]string{"etc/apt/sources.list": classic}, "", "http://classic.mirror.invalid/debian", ""},
		{"classic .list in sources.list.d", map[string]string{"etc/apt/sources.list.d/x.list": classic}, "", "http://classic.mirror.invalid/debian", ""},
		{"deb822 before classic", map[string]string{"etc/apt/sources.list.d/debian.sources": deb822Main,
			"etc/apt/sources.list": classic}, "", "http://main.mirror.invalid/debian", ""},
		{"only security in deb822: classic next", map[string]string{
			"etc/apt/sources.list.d/debian.sources": "Types: deb\nURIs: http://sec.mirror.invalid/s\nSuites: bookworm-security\n",
			"etc/apt/sources.list":                  classic}, "", "http://classic.mirror.invalid/debian", ""},
		{"DEBIAN_MIRROR wins", map[string]string{"etc/apt/sources.list": classic}, "http://env.mirror.invalid/debian", "http://env.mirror.invalid/debian", ""},
		{"disabled files ignored", map[string]string{"etc/apt/sources.list.d/debian.sources.disabled": deb822Main}, "", "", "set DEBIAN_MIRROR"},
		{"nothing", nil, "", "", "no Debian mirror"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.MkdirAll(filepath.Join(root, "etc/apt/sources.list.d"), 0o755); err != nil {
				t.Fatal(err)
			}
			for p, c := range tt.files {
				if err := os.WriteFile(filepath.Join(root, p), []byte(c), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command("bash", "mirror.sh")
			cmd.Env = append(os.Environ(), "APT_ROOT="+root, "DEBIAN_MIRROR="+tt.env)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			got := strings.TrimSpace(string(out))
			if tt.want == "" {
				if err == nil {
					t.Fatalf("want a failure, got %q", got)
				}
				if !strings.Contains(stderr.String(), tt.wantErr) || !strings.Contains(stderr.String(), "DEBIAN_MIRROR") {
					t.Errorf("message %q does not say %q and how to set a mirror", stderr.String(), tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %q (%v, %s), want %q", got, err, stderr.String(), tt.want)
			}
		})
	}
}
