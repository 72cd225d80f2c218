package explore

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
)

// waitResolution is what a realised wait is rounded to: the nemesis's
// own steps take milliseconds, and a repro reads better in tenths.
const waitResolution = 100 * time.Millisecond

// realised is the schedule a run played, as scripted steps: every fault
// and heal in the order it fired, with the time between one op's
// completion and the next one's invoke as a wait, targets resolved to the
// nodes they struck (nemesis.StepFromOp). A condition (until) the
// original waited on stays a condition (nemesis.StepFromUntil), so that
// the repro waits for the effect rather than the time it took on that run
// (a repro whose untils had become fixed waits reproduced 0 of 3 on fresh
// clusters, 2026-12-07: a guided t1 finding whose ISR shrink came later
// there). The final heal (the last heal of
// everything, which every run adds) and what follows it
// (final.abort_hanging) are left out: the repro's run adds them again.
func realised(events []histories.Event) ([]nemesis.Step, error) {
	var ops []histories.Event
	for _, e := range events {
		if e.Process == histories.NemesisProcess {
			ops = append(ops, e)
		}
	}
	end := len(ops)
	for i := len(ops) - 1; i >= 0; i-- {
		if ops[i].F == histories.FHeal && ops[i].Type == histories.Invoke && healKind(ops[i]) == histories.HealAll {
			end = i
			break
		}
	}
	var steps []nemesis.Step
	var last int64
	for i := 0; i < end; i++ {
		inv := ops[i]
		if inv.Type != histories.Invoke {
			continue
		}
		var done *histories.Event
		if i+1 < len(ops) && ops[i+1].Type != histories.Invoke && ops[i+1].F == inv.F {
			done = &ops[i+1]
		}
		if inv.F == histories.FSchedule {
			if done != nil {
				last = done.Time
			}
			continue
		}
		if histories.IsBookkeeping(inv.F) && inv.F != histories.FUntil {
			continue
		}
		if w := time.Duration(inv.Time - last).Round(waitResolution); w > 0 {
			steps = append(steps, nemesis.Step{Wait: nemesis.Duration(w)})
		}
		last = inv.Time
		if done != nil {
			last = done.Time
		}
		if inv.F == histories.FUntil {
			// A guided schedule's wait for a fault's effect, or a
			// story's condition.
			var v histories.NemesisValue
			if err := inv.Decode(&v); err != nil {
				return nil, fmt.Errorf("history line of index %d (until): %w", inv.Index, err)
			}
			u, err := histories.UntilOf(v)
			if err != nil {
				return nil, fmt.Errorf("history line of index %d: %w", inv.Index, err)
			}
			steps = append(steps, nemesis.StepFromUntil(u))
			continue
		}
		if inv.F == histories.FHeal {
			steps = append(steps, nemesis.Step{Heal: healKind(inv)})
			continue
		}
		var spec, got histories.NemesisValue
		if err := inv.Decode(&spec); err != nil {
			return nil, fmt.Errorf("history line of index %d (%s): %w", inv.Index, inv.F, err)
		}
		if done != nil {
			if err := done.Decode(&got); err != nil {
				return nil, fmt.Errorf("history line of index %d (%s): %w", done.Index, done.F, err)
			}
		}
		st, err := nemesis.StepFromOp(inv.F, spec.Details, got.Nodes)
		if err != nil {
			return nil, fmt.Errorf("history index %d: %w", inv.Index, err)
		}
		steps = append(steps, st)
	}
	return steps, nil
}

// healKind is a heal op's value.fault ("" means all).
func healKind(e histories.Event) string {
	var v histories.NemesisValue
	_ = json.Unmarshal(e.Value, &v)
	if v.Fault == "" {
		return histories.HealAll
	}
	return v.Fault
}

// readRealised is Realised of a history file.
func readRealised(historyPath string) ([]nemesis.Step, error) {
	events, _, err := histories.ReadFile(historyPath)
	if err != nil {
		return nil, err
	}
	return realised(events)
}

// repro is s with steps as its scripted schedule (a random section
// dropped) and the seed that drove the original, validated as a file
// holding it would be: what repro.yaml holds and `kchaos run` runs.
func repro(s *scenario.Scenario, steps []nemesis.Step, note string) (*scenario.Scenario, error) {
	c := *s
	c.Nemesis = nemesis.Schedule{Steps: steps}
	if note != "" {
		c.Description = note
	}
	return scenario.Derive(&c, "repro of "+s.Name, nil)
}

// withSteps is s with another schedule, unchecked (the shrinker's
// candidates are edits of a valid repro).
func withSteps(s *scenario.Scenario, steps []nemesis.Step) *scenario.Scenario {
	c := *s
	c.Nemesis = nemesis.Schedule{Steps: steps}
	return &c
}

// countFaults is how many fault steps steps holds.
func countFaults(steps []nemesis.Step) int {
	n := 0
	for _, st := range steps {
		if st.Fault != "" {
			n++
		}
	}
	return n
}
