package bounds

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCut(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"short", "short"},
		{strings.Repeat("a", Echo), strings.Repeat("a", Echo)},
		{strings.Repeat("a", 1000), strings.Repeat("a", Echo) + "… (1000 bytes)"},
		// Whole characters: é is two bytes, cut before it, not in it.
		{strings.Repeat("a", Echo-1) + strings.Repeat("é", 100), strings.Repeat("a", Echo-1) + "… (279 bytes)"},
	} {
		if got := Cut(c.in); got != c.want {
			t.Errorf("Cut(%d bytes) = %q, want %q", len(c.in), got, c.want)
		}
	}
}

func TestCutWords(t *testing.T) {
	path := "/tmp/" + strings.Repeat("p", 200) + "/s.yaml:" // a long path stays whole
	long := strings.Repeat("x", 100_000)
	for _, c := range []struct {
		in       string
		want     []string
		maxBytes int
	}{
		{path + " name: \"" + long + "\": bad", []string{path, "\"xxxx", "… (100003 bytes) bad"}, 400},
		{strings.Repeat("a ", 50_000), []string{"… (100000 bytes)"}, 16*Echo + 40},
		{"line 1\nline 2", []string{"line 1\nline 2"}, 20},
	} {
		got := CutWords(c.in)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("CutWords lacks %q: %q", w, got)
			}
		}
		if len(got) > c.maxBytes {
			t.Errorf("CutWords: %d bytes, want at most %d: %q", len(got), c.maxBytes, got)
		}
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(small, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(big, []byte("123456"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path    string
		tooBig  bool
		wantErr string
	}{
		{small, false, ""},
		{big, true, "6 bytes, want at most 5 bytes"},
		{os.DevNull, false, ""},
	} {
		b, err := ReadFile(c.path, 5)
		if c.tooBig != errors.Is(err, ErrTooLarge) || (c.wantErr != "" && !strings.Contains(err.Error(), c.wantErr)) {
			t.Errorf("%s: %v", c.path, err)
		}
		if err == nil && len(b) > 5 {
			t.Errorf("%s: read %d bytes", c.path, len(b))
		}
	}
}
