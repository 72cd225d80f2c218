package ssh

import (
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strings"
)

// expandHome expands a leading "~" or "~/" to the user's home folder and
// "~name/" to that user's, as a shell would: a path copied from a shell
// line must name the same file here. A user that does not exist is an
// error, never a path that starts with "~".
func expandHome(p string) (string, error) {
	if !strings.HasPrefix(p, "~") {
		return p, nil
	}
	name, rest, _ := strings.Cut(p[1:], "/")
	var dir string
	if name == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("%q: %w", p, err)
		}
		dir = h
	} else {
		u, err := user.Lookup(name)
		if err != nil {
			return "", fmt.Errorf("%q: no user %q to expand ~%s/ for", p, name, name)
		}
		dir = u.HomeDir
	}
	return filepath.Join(dir, rest), nil
}

// CheckFiles reports an SSH key or known_hosts file that does not exist,
// is not a regular file or cannot be read, each naming its field under
// prefix. Validate checks the spec's shape only; this runs before the
// first connection, so that a typo in a path is bad input at once rather
// than a failed run after the scenario was accepted.
func (s *Spec) CheckFiles(prefix string) []error {
	var errs []error
	check := func(field, p string) {
		if p == "" {
			return
		}
		full, err := expandHome(p)
		if err == nil {
			err = readable(full)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s.ssh.%s: %w", prefix, field, err))
		}
	}
	check("known_hosts", s.SSH.KnownHosts)
	check("key", s.SSH.Key)
	return errs
}

// readable: p is a regular file this process can open for reading.
func readable(p string) error {
	st, err := os.Stat(p)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%s: no such file", p)
	case err != nil:
		return err
	case !st.Mode().IsRegular():
		return fmt.Errorf("%s: not a regular file", p)
	}
	f, err := os.Open(p)
	if err != nil {
		return fmt.Errorf("%s: cannot be read: %w", p, errors.Unwrap(err))
	}
	return f.Close()
}
