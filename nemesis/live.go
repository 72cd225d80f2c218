package nemesis

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// Chooser decides a live schedule's steps as the run goes: explore's
// guided strategy chooses each strike in the state the observer shows
// when it is struck, where a schedule planned before the run has to
// guess that state (docs/measured/strategies.md: 60 % of the planned
// strikes were aimed at a state no run had seen). Next returns the steps
// to play next, given those played so far, or none to end the schedule.
//
// A chooser is set by code (Schedule.Live), never read from a scenario
// file; the steps it chose are recorded (Runner.Played), and a scripted
// schedule of them replays the run, so a live run is shrunk and
// reproduced as any other.
type Chooser interface {
	Next(ctx context.Context, e *Env, played []Step) []Step
}

// runLive plays the steps ch chooses, one batch at a time, until it
// chooses none. A step that fails is recorded and the schedule goes on,
// as a random one does (a strike aimed at a role nobody holds any more);
// faults that did not take effect are returned at the end. A step the
// chooser built wrong (Validate's rules) ends the schedule: a bug, not a
// fault's outcome.
func (r *Runner) runLive(ctx context.Context, ch Chooser) error {
	r.announce(map[string]any{"mode": "live", "seed": r.Env.Seed}, -1)
	var noEffect []error
	for {
		if err := ctx.Err(); err != nil {
			return errors.Join(append(noEffect, fmt.Errorf("nemesis: stopped before step %d: %w", len(r.Played), err))...)
		}
		next := ch.Next(ctx, r.Env, slices.Clone(r.Played))
		if len(next) == 0 {
			return errors.Join(noEffect...)
		}
		for _, st := range next {
			i := len(r.Played)
			if err := checkLiveStep(i, st, r.struckSet); err != nil {
				return errors.Join(append(noEffect, err)...)
			}
			if err := ctx.Err(); err != nil {
				return errors.Join(append(noEffect, fmt.Errorf("nemesis: stopped before step %d: %w", i, err))...)
			}
			r.Played = append(r.Played, st)
			r.steps = len(r.Played)
			if err := r.play(ctx, i, i+1, st, true, &noEffect); err != nil {
				return errors.Join(append(noEffect, err)...)
			}
		}
	}
}

// checkLiveStep holds a chosen step to the rules a scripted one is held
// to at load (struck: a fault step came before it).
func checkLiveStep(i int, st Step, struck bool) error {
	var errs []error
	p := fmt.Sprintf("nemesis.live[%d]", i)
	validateStep(p, &st, func(path, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...)))
	})
	if st.Until != nil && st.Until.Struck != "" && !struck {
		errs = append(errs, fmt.Errorf("%s.until.struck: no fault step before this until", p))
	}
	if len(errs) > 0 {
		return fmt.Errorf("nemesis: the live schedule chose a step that is not valid: %w", errors.Join(errs...))
	}
	return nil
}
