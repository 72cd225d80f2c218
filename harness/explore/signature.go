package explore

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/checker"
	"github.com/kchaos/kchaos/harness/explore/states"
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
)

// A campaign (issue 40, item 4) runs explorations over many cells, and
// the same bug is found again and again: in several cells, on several
// shards, with other seeds, node ids and timings. A Signature is what
// stays of a finding when those are taken away, so that findings can be
// counted by bug rather than by run, and a bug kchaos already has a
// regression cell for (harness/suites/findings.yaml) is told from a new
// one.

// Signature is a finding's: its anomaly class, the fault kinds and the
// roles they struck that are left in its reproduction, and the abstract
// transition of the last fault before the anomaly (where a run's
// coverage has one).
type Signature struct {
	Class string `json:"class"`
	// Faults are "kind@role", distinct and sorted, heals left out: the
	// kind as a random mix names it (kill, partition-leader-followers),
	// the role coarsened (CoarseRole) so that a recorded run and a
	// scenario's written targets spell the same strike the same way.
	Faults []string `json:"faults"`
	// Transition is the transition before the anomaly on the partition
	// the faults aim at (partition 0) in the reproducing run, as
	// coverage spells it ("before | fault@role | after"): the first fault
	// transition into an unclean election or a truncation below the high
	// watermark, else the last fault's; "" when the signature comes from
	// a scenario alone.
	Transition string `json:"transition,omitempty"`
	// Source says where the faults were read: repro-run, original-run
	// (a run's history and its states), or repro.yaml (its written
	// targets, when no run of it is kept).
	Source string `json:"source"`
}

// shape is the class and the faults: what a findings cell is matched on
// (a cell has no run, so no transition).
func (s Signature) shape() string { return s.Class + " :: " + orDash(strings.Join(s.Faults, ", ")) }

// key is the signature as one stable string: Shape, then the transition
// ("-" when none). Findings with one Key are one bug to a campaign.
func (s Signature) key() string { return s.shape() + " :: " + orDash(s.Transition) }

// coarseRole is a states role as a signature keeps it: the leader, the
// leader with others, controllers, links (of a role), or "others" for
// every other broker. The finer roles (followers, out-of-isr, isr, elr)
// depend on how far the ISR had shrunk when the fault struck, which a
// scenario's written targets cannot say: s13 kills "nodes [1, 2]", which
// its run sees as out-of-isr after the cut.
func coarseRole(role string) string {
	if r, ok := strings.CutPrefix(role, "links-of-"); ok {
		return "links-of-" + coarseRole(r)
	}
	switch role {
	case states.RoleLeader, states.RoleLeaderPlus, states.RoleController, states.RoleNone, states.RoleAll, states.RoleLinks, states.Unknown:
		return role
	}
	return "others"
}

// runSignature is the signature of class from a run folder: its history
// abstracted (ReadRunEvidence, states.Abstract), the fault transitions
// on partition 0 (or the lowest partition sampled).
func runSignature(dir, class, source string) (Signature, error) {
	in, err := readRunEvidence(dir)
	if err != nil {
		return Signature{}, err
	}
	sig := Signature{Class: class, Source: source}
	res := states.Abstract(in)
	part := int32(-1)
	for _, t := range res.Transitions {
		if part < 0 || t.Partition < part {
			part = t.Partition
		}
		if t.Partition == 0 {
			part = 0
			break
		}
	}
	loss := false
	for _, t := range res.Transitions {
		if _, heal := states.HealedKind(t.Fault); t.Partition != part || heal {
			continue
		}
		role := coarseRole(t.Role)
		if t.Role == states.Unknown {
			role = writtenRole(in.Events, t.Time)
		}
		sig.Faults = append(sig.Faults, t.Fault+"@"+role)
		if !loss {
			sig.Transition = t.Key()
			loss = losing(t)
		}
	}
	sig.Faults = sortedSet(sig.Faults)
	return sig, nil
}

// writtenRole is the role of the fault invoked at time (ns) as its
// target was written, for a fault the states could not place (struck
// before the observer's first sample): a role aimed at partition 0
// (links-of-<role> for a link fault) as ScenarioFaults spells it, so
// that a run whose first sample came late signs as one whose sample came
// in time. Explicit nodes say nothing without a sample: unknown.
func writtenRole(events []histories.Event, time int64) string {
	for _, e := range events {
		if e.Time != time || e.Process != histories.NemesisProcess || e.Type != histories.Invoke {
			continue
		}
		var v histories.NemesisValue
		if e.Decode(&v) != nil {
			break
		}
		target, _ := v.Details["target"].(map[string]any)
		role, _ := target["role"].(string)
		part, _ := target["partition"].(float64)
		if role == "" || role == nemesis.RoleNodes {
			break
		}
		_, link := v.Details["shape"]
		return staticRole(&nemesis.Target{Role: role, Partition: int32(part)}, -1, link)
	}
	return states.Unknown
}

// losing reports whether t is where a loss shows in the states: an
// unclean election or a truncation below the high watermark that the
// state before did not have. The signature's transition is the first
// such fault transition (the one before the anomaly), else the last
// fault's: a fault after the loss is not the bug's.
func losing(t states.Transition) bool {
	return t.After.Election == states.ElectionUnclean && t.Before.Election != states.ElectionUnclean ||
		t.After.Truncation == states.TruncSeen && t.Before.Truncation != states.TruncSeen
}

// scenarioFaults are a scripted scenario's fault steps as a signature
// spells them, from their written targets: a role as written
// (coarsened), explicit nodes against partition 0's assignment (its
// first replica is the leader), a link fault as links-of-<role> when
// aimed at partition 0 by role, else links.
func scenarioFaults(s *scenario.Scenario) []string {
	var leader int32 = -1
	if a := s.Topic.Assignment; len(a) > 0 && len(a[0]) > 0 {
		leader = a[0][0]
	}
	var out []string
	for _, st := range s.Nemesis.Steps {
		if st.Fault == "" {
			continue
		}
		kind, link := st.Fault, false
		if shape := stepShape(st); shape != "" {
			kind, link = kind+"-"+shape, true
		}
		out = append(out, kind+"@"+staticRole(st.Target, leader, link))
	}
	return sortedSet(out)
}

// staticRole is a written target's role (ScenarioFaults).
func staticRole(t *nemesis.Target, leader int32, link bool) string {
	switch {
	case t == nil || t.Role == "":
		if link {
			return states.RoleLinks
		}
		return states.RoleNone
	case link:
		if t.Role == nemesis.RoleNodes || t.Partition != 0 {
			return states.RoleLinks
		}
		return coarseRole("links-of-" + t.Role)
	case t.Role == nemesis.RoleNodes:
		has := slices.Contains(t.Nodes, leader)
		switch {
		case has && len(t.Nodes) == 1:
			return states.RoleLeader
		case has:
			return states.RoleLeaderPlus
		}
		return "others"
	case t.Role == states.RoleLeader && t.Partition != 0:
		return "others"
	}
	return coarseRole(t.Role)
}

// stepShape is a link fault's shape ("" for any other step), read as
// the step's codec writes it.
func stepShape(st nemesis.Step) string {
	b, err := json.Marshal(st)
	if err != nil {
		return ""
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return ""
	}
	shape, _ := m["shape"].(string)
	return shape
}

// findingSignature is the signature of the finding in dir (a finding
// folder: finding.json, original-run/, repro.yaml, repro-run/): read off
// the run of its shrunk repro (repro-run/) when one is kept, else off the
// original run when it was not shrunk (no repro.yaml), else off
// repro.yaml's written targets.
func findingSignature(dir string) (Signature, FindingRecord, error) {
	var f FindingRecord
	b, err := os.ReadFile(filepath.Join(dir, findingFile))
	if err != nil {
		return Signature{}, f, err
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return Signature{}, f, fmt.Errorf("%s: %v", filepath.Join(dir, findingFile), err)
	}
	repro := filepath.Join(dir, "repro.yaml")
	_, rerr := os.Stat(repro)
	shrunk := rerr == nil
	for _, sub := range []string{"repro-run", "original-run"} {
		if sub == "original-run" && shrunk {
			break
		}
		if _, err := os.Stat(filepath.Join(dir, sub, checker.HistoryFile)); err == nil {
			return must(runSignature(filepath.Join(dir, sub), f.Class, sub))(f)
		}
	}
	if !shrunk {
		if errors.Is(rerr, fs.ErrNotExist) {
			return Signature{}, f, fmt.Errorf("%s: neither a run nor repro.yaml to read a signature from", dir)
		}
		return Signature{}, f, rerr
	}
	s, err := scenario.Load(repro, nil)
	if err != nil {
		return Signature{}, f, err
	}
	return Signature{Class: f.Class, Faults: scenarioFaults(s), Source: "repro.yaml"}, f, nil
}

func must(s Signature, err error) func(FindingRecord) (Signature, FindingRecord, error) {
	return func(f FindingRecord) (Signature, FindingRecord, error) { return s, f, err }
}

func sortedSet(xs []string) []string {
	slices.Sort(xs)
	return slices.Compact(xs)
}
