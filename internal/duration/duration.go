// Package duration holds Duration, the time.Duration that scenario files
// (YAML) and results (JSON) spell as "5s" or "1m30s". workloads.Duration and
// nemesis.Duration are aliases of it.
package duration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Duration is a time.Duration that YAML and JSON spell as "5s", "1m30s".
//
// Its UnmarshalYAML takes a gopkg.in/yaml.v3 Node, for the line number in
// errors: decode it with that module (the one kchaos uses everywhere); the
// go.yaml.in/yaml/v3 fork would not call it.
type Duration time.Duration

// Std is d as a time.Duration.
func (d Duration) Std() time.Duration { return time.Duration(d) }

func (d Duration) String() string { return time.Duration(d).String() }

// MarshalYAML writes d as "5s".
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

// UnmarshalYAML reads "5s". A bare number is refused (except 0): YAML
// users write `wait: 5` meaning seconds as often as nanoseconds.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: want a duration like 5s", n.Line)
	}
	v, err := parse(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %v", n.Line, err)
	}
	*d = v
	return nil
}

// MarshalJSON writes d as "5s".
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON reads "5s" (or the number 0).
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		if string(bytes.TrimSpace(b)) == "0" {
			*d = 0
			return nil
		}
		return fmt.Errorf("duration %s: want a string like \"5s\"", b)
	}
	v, err := parse(s)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// parse reads a duration with a unit ("5s", "1m30s") or "0", surrounding
// space ignored. Negative durations are refused.
func parse(s string) (Duration, error) {
	s = strings.TrimSpace(s)
	if s == "0" {
		return 0, nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("duration %q: want a number with a unit, like 5s or 1m30s", s)
	}
	if v < 0 {
		return 0, fmt.Errorf("duration %q: must not be negative", s)
	}
	return Duration(v), nil
}
