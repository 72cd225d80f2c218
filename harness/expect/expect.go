// Package expect is the machine-checkable part of a scenario's expected
// outcome: checks such as `lost-write == 0` or `offline_seconds <= 60`
// (or against a bound derived from the run's own settings, derived.go:
// `offline_seconds < isr_shrink_bound_seconds`), each optionally conditional on the settings a matrix or suite varies
// (`when: {unclean: "true"}`). A suite judges each cell by them: a cell
// matches when every check that applies holds, differs when one does not,
// and cannot be judged when a check names a metric the run did not measure.
//
// The scenario's `expect` field stays free prose for people; this package
// reads only the separate `outcome` list, so prose never changes a verdict.
//
// The package is pure: it judges a Metrics map (built from a run folder by
// the harness) against Checks parsed from the scenario.
package expect

import (
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Op is a comparison.
type Op string

// The comparisons a check may use.
const (
	EQ Op = "=="
	NE Op = "!="
	LT Op = "<"
	LE Op = "<="
	GT Op = ">"
	GE Op = ">="
)

// ops is longest first, so that "<=" is not read as "<".
var ops = []Op{EQ, NE, LE, GE, LT, GT}

// Check is one expected fact about a run: Metric Op Value (or Metric Op
// Bound, a bound derived from the run's settings: derived.go), applying
// only to runs whose settings match every entry of When.
type Check struct {
	Metric string
	Op     Op
	Value  float64
	// Bound names a derived metric (DerivedMetrics) the metric is compared
	// against instead of Value; "" for a fixed number.
	Bound string
	// When maps a setting name (the matrix's names: unclean, elr, acks,
	// min.insync, kafka, idempotent, or a scenario path) to the value it
	// must have for the check to apply.
	When map[string]string
}

// String is the check as written: "lost-write > 0 when unclean=true".
func (c Check) String() string {
	right := strconv.FormatFloat(c.Value, 'f', -1, 64)
	if c.Bound != "" {
		right = c.Bound
	}
	s := fmt.Sprintf("%s %s %s", c.Metric, c.Op, right)
	if len(c.When) > 0 {
		var w []string
		for _, k := range slices.Sorted(maps.Keys(c.When)) {
			w = append(w, k+"="+c.When[k])
		}
		s += " when " + strings.Join(w, ",")
	}
	return s
}

var exprRE = regexp.MustCompile(`^\s*([A-Za-z][A-Za-z0-9_.\-]*)\s*(==|!=|<=|>=|<|>)\s*(\S+)\s*$`)

// Parse reads "metric op number" (for example "errors.NOT_ENOUGH_REPLICAS > 0")
// or "metric op bound" with a derived bound ("offline_seconds <
// isr_shrink_bound_seconds"). The metric must be one Known accepts.
func Parse(expr string, when map[string]string) (Check, error) {
	m := exprRE.FindStringSubmatch(expr)
	if m == nil {
		return Check{}, fmt.Errorf("%q: want `metric op number` or `metric op bound`, op one of == != < <= > >= (e.g. `lost-write == 0`)", expr)
	}
	c := Check{Metric: m[1], Op: Op(m[2])}
	if isDerived(m[3]) {
		c.Bound = m[3]
	} else {
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return Check{}, fmt.Errorf("%q: %q is not a number, nor a bound derived from the run's settings (%s)", expr, m[3], derivedNames())
		}
		c.Value = v
	}
	if isDerived(m[1]) {
		return Check{}, fmt.Errorf("%q: %s is a bound derived from the run's settings, not a measurement: write it on the right (e.g. `offline_seconds < %s`)", expr, m[1], m[1])
	}
	if err := known(m[1]); err != nil {
		return Check{}, fmt.Errorf("%q: %v", expr, err)
	}
	if len(when) > 0 {
		c.When = make(map[string]string, len(when))
		for k, x := range when {
			c.When[strings.TrimSpace(k)] = strings.TrimSpace(x)
		}
	}
	return c, nil
}

// Applies says whether the check concerns a run with these settings: every
// When entry must equal the run's setting. A setting the run does not name
// never matches, so a condition cannot pass by omission.
func (c Check) Applies(settings map[string]string) bool {
	for k, want := range c.When {
		got, ok := settings[k]
		if !ok || !sameSetting(got, want) {
			return false
		}
	}
	return true
}

// sameSetting compares setting values the way a user writes them:
// case-insensitively, "on"/"true" and "off"/"false" alike.
func sameSetting(a, b string) bool {
	norm := func(s string) string {
		switch s = strings.ToLower(strings.TrimSpace(s)); s {
		case "on", "yes":
			return "true"
		case "off", "no":
			return "false"
		}
		return s
	}
	return norm(a) == norm(b)
}

// Invariant reports whether the check bounds what must hold under any
// faults rather than tells a story: it holds on a run where nothing
// happened (its metric measured 0: no anomaly, no error, no offline
// time). "lost-write == 0" and "offline_seconds <= 60" are invariants;
// "lost-write > 0" or "leader_after_fault == 1" expect a story's scripted
// faults to do something, and a run under other faults (kchaos explore)
// that does not is no failure of Kafka's. A derived bound is a positive
// time or count, so a check against one is an invariant when it bounds
// from above.
func (c Check) Invariant() bool {
	if c.Bound != "" {
		return c.Op == LT || c.Op == LE
	}
	return c.holds(0, c.Value)
}

// holds reports whether got Op limit.
func (c Check) holds(got, limit float64) bool {
	switch c.Op {
	case EQ:
		return got == limit
	case NE:
		return got != limit
	case LT:
		return got < limit
	case LE:
		return got <= limit
	case GT:
		return got > limit
	case GE:
		return got >= limit
	}
	return false
}
