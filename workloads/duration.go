package workloads

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Duration is a time.Duration that YAML and JSON spell as "5s" or "1m30s".
//
// Its YAML methods use the yaml.v2-style Unmarshaler signature, which both
// gopkg.in/yaml.v3 and go.yaml.in/yaml/v3 still honour: the scenario loader
// may use either fork, and a yaml.Node-based method would be silently
// ignored by the other one.
type Duration time.Duration

// Std is d as a time.Duration.
func (d Duration) Std() time.Duration { return time.Duration(d) }

func (d Duration) String() string { return time.Duration(d).String() }

// MarshalYAML writes d as "5s".
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

// UnmarshalYAML reads "5s". A bare number other than 0 is refused: users
// write `duration: 30` meaning seconds as often as nanoseconds.
func (d *Duration) UnmarshalYAML(unmarshal func(any) error) error {
	var s string
	if err := unmarshal(&s); err != nil {
		return fmt.Errorf("want a duration like 5s")
	}
	v, err := parseDuration(s)
	if err != nil {
		return err
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
		if strings.TrimSpace(string(b)) == "0" {
			*d = 0
			return nil
		}
		return fmt.Errorf("want a duration string like \"5s\", got %s", b)
	}
	v, err := parseDuration(s)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

func parseDuration(s string) (Duration, error) {
	s = strings.TrimSpace(s)
	if s == "0" || s == "" {
		return 0, nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q: want a duration like 5s or 1m30s", s)
	}
	return Duration(v), nil
}

// Acks is the producer's required acknowledgements: "0", "1" or "all".
// It reads YAML/JSON numbers (0, 1, -1) as well as strings, since users
// write `acks: 1` as often as `acks: "1"`.
type Acks string

// The three acks settings.
const (
	AcksNone   Acks = "0"
	AcksLeader Acks = "1"
	AcksAll    Acks = "all"
)

// normalize maps "-1" to "all" and lowercases.
func (a Acks) normalize() Acks {
	s := strings.ToLower(strings.TrimSpace(string(a)))
	if s == "-1" {
		s = "all"
	}
	return Acks(s)
}

// Valid reports whether a is one of the three settings.
func (a Acks) Valid() bool {
	switch a.normalize() {
	case AcksNone, AcksLeader, AcksAll:
		return true
	}
	return false
}

// Int is the protocol value: 0, 1 or -1.
func (a Acks) Int() int16 {
	switch a.normalize() {
	case AcksNone:
		return 0
	case AcksLeader:
		return 1
	}
	return -1
}

// UnmarshalYAML accepts `acks: all`, `acks: 1` and `acks: "0"`.
func (a *Acks) UnmarshalYAML(unmarshal func(any) error) error {
	var s string
	if err := unmarshal(&s); err != nil {
		return fmt.Errorf("want 0, 1 or all")
	}
	*a = Acks(s).normalize()
	return nil
}

// UnmarshalJSON accepts "all", "1" and the numbers 0, 1, -1.
func (a *Acks) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		n, nerr := strconv.Atoi(strings.TrimSpace(string(b)))
		if nerr != nil {
			return fmt.Errorf("want 0, 1 or \"all\", got %s", b)
		}
		s = strconv.Itoa(n)
	}
	*a = Acks(s).normalize()
	return nil
}
