package workloads

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/kchaos/kchaos/internal/duration"
)

// Duration is a time.Duration that YAML and JSON spell as "5s" or "1m30s"
// (the same type as nemesis.Duration).
type Duration = duration.Duration

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

// Normalize maps "-1" to "all" and lowercases. Exported for the driver
// packages (workloads/java), which pass the setting on to their client.
func (a Acks) Normalize() Acks {
	s := strings.ToLower(strings.TrimSpace(string(a)))
	if s == "-1" {
		s = "all"
	}
	return Acks(s)
}

// Valid reports whether a is one of the three settings.
func (a Acks) Valid() bool {
	switch a.Normalize() {
	case AcksNone, AcksLeader, AcksAll:
		return true
	}
	return false
}

// Int is the protocol value: 0, 1 or -1.
func (a Acks) Int() int16 {
	switch a.Normalize() {
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
	*a = Acks(s).Normalize()
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
	*a = Acks(s).Normalize()
	return nil
}
