package states

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"

	"github.com/kchaos/kchaos/internal/owned"
)

// CoverageFile is the coverage record a run folder (one run's) and an
// exploration folder (the sum of its runs') hold.
const CoverageFile = "coverage.json"

// Covered is one distinct transition and how often it was seen.
type Covered struct {
	Before string `json:"before"`
	Fault  string `json:"fault"`
	Role   string `json:"role"`
	After  string `json:"after"`
	Count  int    `json:"count"`
}

// Key is the transition's coverage key (Transition.Key).
func (c Covered) Key() string { return c.Before + " | " + c.Fault + "@" + c.Role + " | " + c.After }

// Sampled says the transition started from a state the observer had
// sampled (State.Sampled; a text that is no state counts as one). One
// that did not, a fault struck before the partition's first sample, is
// kept in the record, since what was struck is never lost, but it is not
// coverage: "unknown" is the absence of evidence rather than one of
// Kafka's states, and the same strike made a second later would count
// again under the state it really struck. Counted, it rewarded a schedule
// for striking early, before anything was seen (issue 40: random's
// explorations held about five each, guided's none).
func (c Covered) Sampled() bool {
	st, err := Parse(c.Before)
	return err != nil || st.Sampled()
}

// Coverage is a set of transitions, counted: a run's, or an
// exploration's sum. Its zero value is empty and ready.
type Coverage struct {
	// Runs is how many runs were summed in.
	Runs int `json:"runs"`
	// Transitions are sorted by key.
	Transitions []Covered `json:"transitions"`
	index       map[string]int
}

// Of is one run's coverage.
func Of(r Abstraction) *Coverage {
	c := &Coverage{Runs: 1}
	for _, t := range r.Transitions {
		c.add(Covered{Before: t.Before.String(), Fault: t.Fault, Role: t.Role, After: t.After.String(), Count: 1})
	}
	c.sort()
	return c
}

// Distinct is how many distinct transitions c covers: those from a
// sampled state (Covered.Sampled).
func (c *Coverage) Distinct() int { return c.count(Covered.Sampled) }

// DistinctFaults is how many of c's distinct transitions (Distinct) a
// fault made, the heals apart: what a strategy chooses, where a heal is
// owed by every strike whoever chose it.
func (c *Coverage) DistinctFaults() int {
	return c.count(func(t Covered) bool {
		_, heal := HealedKind(t.Fault)
		return t.Sampled() && !heal
	})
}

// count is how many of c's distinct transitions keep holds for.
func (c *Coverage) count(keep func(Covered) bool) int {
	if c == nil {
		return 0
	}
	n := 0
	for _, t := range c.Transitions {
		if keep(t) {
			n++
		}
	}
	return n
}

// Unsampled is how many distinct transitions c holds from before a
// partition's first sample: recorded, not counted by Distinct.
func (c *Coverage) Unsampled() int {
	if c == nil {
		return 0
	}
	return len(c.Transitions) - c.Distinct()
}

// has reports whether c holds the transition of key.
func (c *Coverage) has(key string) bool {
	if c == nil {
		return false
	}
	c.reindex()
	_, ok := c.index[key]
	return ok
}

// Add sums o into c and returns the transitions of o that c did not hold
// (sorted by key) and that count as coverage (Covered.Sampled): what o
// covered anew.
func (c *Coverage) Add(o *Coverage) []Covered {
	if o == nil {
		return nil
	}
	c.reindex()
	var fresh []Covered
	for _, t := range o.Transitions {
		if _, ok := c.index[t.Key()]; !ok && t.Sampled() {
			fresh = append(fresh, t)
		}
		c.add(t)
	}
	c.Runs += o.Runs
	c.sort()
	return fresh
}

func (c *Coverage) add(t Covered) {
	c.reindex()
	if i, ok := c.index[t.Key()]; ok {
		c.Transitions[i].Count += t.Count
		return
	}
	c.index[t.Key()] = len(c.Transitions)
	c.Transitions = append(c.Transitions, t)
}

func (c *Coverage) reindex() {
	if c.index != nil && len(c.index) == len(c.Transitions) {
		return
	}
	c.index = make(map[string]int, len(c.Transitions))
	for i, t := range c.Transitions {
		c.index[t.Key()] = i
	}
}

func (c *Coverage) sort() {
	slices.SortFunc(c.Transitions, func(a, b Covered) int { return cmp.Compare(a.Key(), b.Key()) })
	c.index = nil
	c.reindex()
}

// faults is how many transitions each fault@role caused (a page's
// summary).
func (c *Coverage) faults() map[string]int {
	out := map[string]int{}
	for _, t := range c.Transitions {
		out[t.Fault+"@"+t.Role]++
	}
	return out
}

// Write writes c as path (owned.Write, as every file kchaos writes).
func (c *Coverage) Write(path string) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return owned.Write(path, append(b, '\n'))
}

// Read reads a coverage file.
func Read(path string) (*Coverage, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var c Coverage
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	c.sort()
	return &c, nil
}

// keysOf is c's keys, sorted (tests).
func keysOf(c *Coverage) []string {
	c.reindex()
	return slices.Sorted(maps.Keys(c.index))
}
