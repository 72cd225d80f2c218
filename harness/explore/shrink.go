package explore

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
)

// oracle runs a scenario once and says which anomaly classes the run
// showed (Classes). An error is a run that could not be made; the
// shrinker counts it as a try that did not reproduce. confirm says the
// run is one of the final reruns that measure the repro's rate: those
// run as `kchaos run repro.yaml` runs it, on a fresh cluster, while a
// candidate may run on the cluster the run before kept (runOracle). The
// real oracle is harness.Run; tests simulate one.
type oracle interface {
	Run(ctx context.Context, s *scenario.Scenario, confirm bool) ([]string, error)
}

// DefaultTries is K: how many times a candidate is tried before it is
// given up, and how many times the final repro is rerun for its rate.
const DefaultTries = 3

// DefaultMinWait is the shortest a wait is cut to, and MinWorkload the
// shortest workload.duration: below them a run is mostly cluster start.
const (
	defaultMinWait = time.Second
	minWorkload    = 5 * time.Second
)

// shrinkOptions tune a shrink.
type shrinkOptions struct {
	// Class is the anomaly class a candidate must still show.
	Class string
	// Tries is K (default DefaultTries).
	Tries int
	// Budget bounds the search (0: none); the final rerun is outside it,
	// because a repro without its rate is not one.
	Budget time.Duration
	// MinWait is the shortest wait (default DefaultMinWait).
	MinWait time.Duration
	// Now is the clock (tests give a fake one).
	Now func() time.Time
	// Log is told each candidate's outcome, one line each.
	Log func(line string)
}

// shrunk is a finished shrink.
type shrunk struct {
	// Scenario is the smallest candidate that reproduced.
	Scenario *scenario.Scenario
	// Reproduced of Confirmations final reruns showed the class; Failed
	// of them failed before their check, no draw either way: the rate is
	// over the others.
	Reproduced, Confirmations, Failed int
	// Runs is every oracle run the shrink made (its cost), Elapsed its
	// wall time; OutOfBudget says the search stopped at the budget.
	Runs        int
	Elapsed     time.Duration
	OutOfBudget bool
	// Trail is what each candidate was and whether it was kept.
	Trail []string
}

// rerunsFailed is how a rate says final reruns failed before their
// check (shrunk.rate; read back by SignatureRecord.rate).
const rerunsFailed = "failed before their check"

// rate is "2/3": reproduced of the final reruns that reached their check,
// then any that failed before it.
func (s *shrunk) rate() string {
	r := fmt.Sprintf("%d/%d", s.Reproduced, s.Confirmations-s.Failed)
	if s.Failed > 0 {
		r += fmt.Sprintf(" (%d more %s)", s.Failed, rerunsFailed)
	}
	return r
}

type shrinker struct {
	o       oracle
	opts    shrinkOptions
	begin   time.Time
	res     *shrunk
	stopped bool
	// refused holds the candidates no try reproduced (candidateKey).
	refused map[string]bool
}

// errBudget ends the search when the budget is spent.
var errBudget = fmt.Errorf("shrink budget spent")

// shrink cuts s (a scripted repro that showed opts.Class) down: delta
// debugging over its fault steps (drop halves, then smaller chunks down
// to single steps, ddmin), then each wait, the longest first, and the
// workload's duration by a bounded binary search (shrinkwait.go), then
// fewer target nodes. A candidate is kept when any of K tries shows the
// class, so a flaky reproduction can keep a step it did not need (the
// result is larger, never wrong): a candidate is only ever kept on a run
// that showed the class. The result is rerun K times (confirm) and its
// rate written. Only a cancelled ctx is an error.
func shrink(ctx context.Context, o oracle, s *scenario.Scenario, opts shrinkOptions) (*shrunk, error) {
	if opts.Tries <= 0 {
		opts.Tries = DefaultTries
	}
	if opts.MinWait <= 0 {
		opts.MinWait = defaultMinWait
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	sh := &shrinker{o: o, opts: opts, begin: opts.Now(), res: &shrunk{Scenario: s}}
	for _, phase := range []func(context.Context, *scenario.Scenario) (*scenario.Scenario, error){
		sh.faults, sh.waits, sh.targets,
	} {
		next, err := phase(ctx, sh.res.Scenario)
		sh.res.Scenario = next
		if err == errBudget {
			sh.res.OutOfBudget = true
			break
		}
		if err != nil {
			return sh.res, err
		}
	}
	for range opts.Tries {
		classes, err := o.Run(ctx, sh.res.Scenario, true)
		if ctx.Err() != nil {
			return sh.res, ctx.Err()
		}
		sh.res.Runs++
		sh.res.Confirmations++
		switch {
		case err != nil:
			sh.res.Failed++
		case shows(classes, opts.Class):
			sh.res.Reproduced++
		}
	}
	sh.res.Elapsed = opts.Now().Sub(sh.begin)
	return sh.res, nil
}

// try runs a candidate up to K times; true on the first run that shows
// the class. A candidate refused before (ddmin comes back to the same
// subset after it refines and coarsens the split) is refused again
// without a run: K more tries of it would cost K runs for what K runs
// already said.
func (sh *shrinker) try(ctx context.Context, c *scenario.Scenario, what string) (bool, error) {
	key := candidateKey(c)
	if key != "" && sh.refused[key] {
		sh.log(fmt.Sprintf("dropped: %s (refused before, not rerun)", what))
		return false, nil
	}
	failed := 0
	for k := range sh.opts.Tries {
		if sh.opts.Budget > 0 && sh.opts.Now().Sub(sh.begin) >= sh.opts.Budget {
			return false, errBudget
		}
		classes, err := sh.o.Run(ctx, c, false)
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		sh.res.Runs++
		if err != nil {
			failed++
		} else if shows(classes, sh.opts.Class) {
			sh.log(fmt.Sprintf("kept: %s (reproduced on try %d)", what, k+1))
			return true, nil
		}
	}
	// Dropped either way (the repro keeps the step: the safe side), but
	// the trail says where a try proved nothing.
	note := ""
	if failed > 0 {
		note = fmt.Sprintf("; %d of them %s", failed, rerunsFailed)
	}
	sh.log(fmt.Sprintf("dropped: %s (not reproduced in %d tries%s)", what, sh.opts.Tries, note))
	if key != "" {
		if sh.refused == nil {
			sh.refused = map[string]bool{}
		}
		sh.refused[key] = true
	}
	return false, nil
}

// candidateKey is what a candidate varies (its schedule and workload
// duration), as text.
func candidateKey(c *scenario.Scenario) string {
	b, err := json.Marshal(struct {
		Steps    []nemesis.Step
		Duration string
	}{c.Nemesis.Steps, c.Workload.Duration.String()})
	if err != nil {
		return "" // not cached
	}
	return string(b)
}

func (sh *shrinker) log(line string) {
	sh.res.Trail = append(sh.res.Trail, line)
	if sh.opts.Log != nil {
		sh.opts.Log(line)
	}
}

// faults is ddmin over the fault steps: the schedule split into n chunks
// of faults, each chunk's removal tried; a removal that reproduces is
// kept and the split coarsened, none grows n, until single faults were
// tried. As in ddmin, the empty schedule is not a candidate: a finding is
// a run under faults, and trying a run without any costs K runs that
// almost never reproduce (a class that does show without faults keeps
// one needless fault: larger, never wrong).
func (sh *shrinker) faults(ctx context.Context, s *scenario.Scenario) (*scenario.Scenario, error) {
	steps := s.Nemesis.Steps
	var keep []int // indexes of fault steps
	for i, st := range steps {
		if st.Fault != "" {
			keep = append(keep, i)
		}
	}
	n := 2
	for len(keep) > 1 {
		chunks := split(keep, n)
		reduced := false
		for ci, chunk := range chunks {
			rest := without(keep, chunk)
			c := withSteps(s, tidy(steps, rest))
			ok, err := sh.try(ctx, c, fmt.Sprintf("without %s (chunk %d of %d)", faultNames(steps, chunk), ci+1, len(chunks)))
			if err != nil {
				return withSteps(s, tidy(steps, keep)), err
			}
			if ok {
				keep, reduced = rest, true
				n = max(n-1, 2)
				break
			}
		}
		if !reduced {
			if n >= len(keep) {
				break
			}
			n = min(2*n, len(keep))
		}
	}
	return withSteps(s, tidy(steps, keep)), nil
}

// faultNames names fault steps for the trail: "kill (step 4), pause
// (step 7)", numbered from 1 as finding.md numbers the original's steps.
func faultNames(steps []nemesis.Step, idx []int) string {
	var out []string
	for _, i := range idx {
		out = append(out, fmt.Sprintf("%s (step %d)", stepWords(steps[i]), i+1))
	}
	return strings.Join(out, ", ")
}

// split cuts xs into n chunks as equal as they come.
func split(xs []int, n int) [][]int {
	n = max(min(n, len(xs)), 1)
	var out [][]int
	for i := range n {
		lo, hi := i*len(xs)/n, (i+1)*len(xs)/n
		out = append(out, xs[lo:hi])
	}
	return out
}

// without is xs without the items of drop.
func without(xs, drop []int) []int {
	return slices.DeleteFunc(slices.Clone(xs), func(x int) bool { return slices.Contains(drop, x) })
}

// tidy is steps with only the fault steps whose indexes are in keep; a
// heal that no remaining fault needs (none of its kind kept since the
// last heal of that kind: its faults were dropped, or healed already) is
// dropped with its fault, as is an until that waited for a dropped
// fault's effect (the last fault step before it); waits left side by side
// are joined (the time is kept, the step count goes down).
func tidy(steps []nemesis.Step, keep []int) []nemesis.Step {
	var out []nemesis.Step
	var pending []string // heal kinds of kept faults not healed yet
	lastDropped := false // the last fault step so far was dropped
	for i, st := range steps {
		switch {
		case st.Fault != "":
			lastDropped = !slices.Contains(keep, i)
			if lastDropped {
				continue
			}
			if f, _ := histories.LookupFault(st.Fault); f.Heal != "" && !slices.Contains(pending, f.Heal) {
				pending = append(pending, f.Heal)
			}
		case st.Heal == histories.HealAll:
			if len(pending) == 0 {
				continue
			}
			pending = nil
		case st.Heal != "":
			if !slices.Contains(pending, st.Heal) {
				continue
			}
			pending = slices.DeleteFunc(pending, func(h string) bool { return h == st.Heal })
		case st.Until != nil && lastDropped:
			continue
		case st.Wait > 0 && len(out) > 0 && out[len(out)-1].Wait > 0:
			out[len(out)-1].Wait += st.Wait
			continue
		}
		out = append(out, st)
	}
	return out
}

// targets drops the nodes of each fault's target one at a time while
// the class still shows (a role nodes target keeps at least one).
func (sh *shrinker) targets(ctx context.Context, s *scenario.Scenario) (*scenario.Scenario, error) {
	for i := range s.Nemesis.Steps {
		for j := 0; ; {
			t := s.Nemesis.Steps[i].Target
			if t == nil || t.Role != nemesis.RoleNodes || len(t.Nodes) < 2 || j >= len(t.Nodes) {
				break
			}
			nt := *t
			nt.Nodes = slices.Delete(slices.Clone(t.Nodes), j, j+1)
			steps := slices.Clone(s.Nemesis.Steps)
			steps[i].Target = &nt
			ok, err := sh.try(ctx, withSteps(s, steps), fmt.Sprintf("step %d (%s) without node %d", i, steps[i].Fault, t.Nodes[j]))
			if err != nil {
				return s, err
			}
			if ok {
				s = withSteps(s, steps)
				continue // the same j is now the next node
			}
			j++
		}
	}
	return s, nil
}
