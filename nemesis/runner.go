package nemesis

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/kchaos/kchaos/histories"
)

// Sequence is a fault that is a series of ops, each recorded on its own
// (a rolling upgrade: one op per node, one after the other,
// nemesis/quorum); the runner plays it instead of injecting it as one op.
type Sequence interface {
	Fault
	Play(ctx context.Context, e *Env) error
}

// DefaultHealTimeout bounds the final heal's wait for every broker to be
// live and every partition to have a leader again. A broker restarted
// after a power cut recovers its logs first; on two shared cores that
// takes tens of seconds.
const DefaultHealTimeout = 2 * time.Minute

// Runner runs a schedule against an Env, and always heals at the end.
type Runner struct {
	Env *Env
	// HealTimeout bounds the final heal's wait (default DefaultHealTimeout).
	HealTimeout time.Duration
	// OnStep, when set, is told before each step: step i (0-based) of n,
	// named as in errors ("kill", "until partition 0 ..."); i == n is the
	// final heal.
	OnStep func(i, n int, name string)
	// Played are the steps a live schedule (Schedule.Live) chose and the
	// runner played, in order, once Run returned: a scripted schedule of
	// them replays the run.
	Played []Step
	// HealErr is the final heal's error once Run returned (nil: every
	// fault healed, every broker live, every partition led): a cluster
	// whose heal failed is never reused for another run.
	HealErr error

	steps int
	// struck are the nodes the last fault step touched (Env.takeTouched),
	// for an until's Struck; struckSet once a fault step ran. Heals,
	// waits and untils leave them: a heal strikes nothing, and a story
	// that heals one fault may still wait on what the last strike did.
	struck    []int32
	struckSet bool
	// bootstrap: the schedule is a bootstrap one (RunBootstrap), so
	// recorded.
	bootstrap bool
}

func (r *Runner) healTimeout() time.Duration {
	if r.HealTimeout > 0 {
		return r.HealTimeout
	}
	return DefaultHealTimeout
}

// Run runs s step by step and then the final heal, which runs whatever
// happened: a failed step, a panic in a fault (turned into an error with
// its stack, so the run can still read and store its history), or ctx
// cancelled by Ctrl-C (the heal then gets a fresh, bounded context). A
// scripted schedule stops at the first failed step (a fault whose proof
// says it did not take effect is one); a random one records the failure
// and goes on, as Jepsen's nemesis does, and returns the faults that did
// not take effect at the end.
func (r *Runner) Run(ctx context.Context, s Schedule) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("nemesis: panic: %v\n%s", p, debug.Stack())
		}
		hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.healTimeout()+time.Minute)
		defer cancel()
		if r.OnStep != nil {
			r.OnStep(r.steps, r.steps, "final heal")
		}
		if herr := r.FinalHeal(hctx); herr != nil {
			r.HealErr = herr
			err = errors.Join(err, fmt.Errorf("final heal: %w", herr))
		}
	}()
	if err := s.Validate(); err != nil {
		return err
	}
	if s.Live != nil {
		return r.runLive(ctx, s.Live)
	}
	steps, random := s.Steps, s.Random != nil
	details := map[string]any{"mode": "scripted", "seed": r.Env.Seed, "steps": len(steps)}
	if r.bootstrap {
		details["mode"] = "bootstrap"
	}
	if random {
		r.Env.Seed = s.Random.Seed
		p, err := PlanRandom(*s.Random, r.Env.BrokerIDs())
		if err != nil {
			return err
		}
		steps = p.Steps
		details = randomDetails(*s.Random, p)
	}
	r.steps = len(steps)
	r.announce(details, len(steps))
	var noEffect []error // random mode: faults that did not take effect
	for i, st := range steps {
		if err := ctx.Err(); err != nil {
			return errors.Join(append(noEffect, fmt.Errorf("nemesis: stopped before step %d: %w", i, err))...)
		}
		if err := r.play(ctx, i, len(steps), st, random, &noEffect); err != nil {
			return errors.Join(append(noEffect, err)...)
		}
	}
	return errors.Join(noEffect...)
}

// announce logs and records the schedule op (details: its mode, seed and
// what else the mode says) before the schedule's first step; steps is
// how many it plays (-1: a live schedule, which does not know).
func (r *Runner) announce(details map[string]any, steps int) {
	if steps >= 0 {
		r.Env.Logger().Info("nemesis: schedule", "mode", details["mode"], "seed", r.Env.Seed, "steps", steps)
	} else {
		r.Env.Logger().Info("nemesis: schedule", "mode", details["mode"], "seed", r.Env.Seed)
	}
	v := histories.NemesisValue{Fault: histories.FSchedule, Details: details}
	r.Env.record(histories.Invoke, histories.FSchedule, v, "")
	r.Env.record(histories.OK, histories.FSchedule, v, "")
}

// play plays step i of n (OnStep told first). A step that fails ends the
// schedule (its error returned) unless goOn (a random or live schedule)
// and the run goes on: then it is logged, and a fault that did not take
// effect is added to noEffect, so that the run does not pass as if it
// had held (proof.go).
func (r *Runner) play(ctx context.Context, i, n int, st Step, goOn bool, noEffect *[]error) error {
	if r.OnStep != nil {
		r.OnStep(i, n, stepName(st))
	}
	err := r.step(ctx, st)
	if err == nil {
		return nil
	}
	err = fmt.Errorf("nemesis: step %d (%s): %w", i, stepName(st), err)
	if !goOn || ctx.Err() != nil {
		return err
	}
	r.Env.Logger().Warn("nemesis: step failed; going on", "err", err)
	if ne := (*NoEffectError)(nil); errors.As(err, &ne) {
		*noEffect = append(*noEffect, err)
	}
	return nil
}

func (r *Runner) step(ctx context.Context, st Step) error {
	e := r.Env
	switch {
	case st.Wait > 0:
		return sleep(ctx, st.Wait.Std())
	case st.Until != nil:
		return r.until(ctx, st)
	case st.Fault != "":
		f, err := NewFault(st)
		if err != nil {
			return err
		}
		e.takeTouched() // what ran before is not this step's
		defer func() { r.struck, r.struckSet = e.takeTouched(), true }()
		if seq, ok := f.(Sequence); ok {
			return seq.Play(ctx, e)
		}
		return e.Inject(ctx, f)
	case st.Heal != "":
		return e.Heal(ctx, st.Heal, r.healTimeout())
	}
	return errors.New("empty step")
}

// until waits for st's condition and records the wait as an until op
// (histories.Until): held (ok) or not within its timeout (fail), so that
// a reader of the history can tell which branch a story with a soft wait
// took. An optional until that did not hold lets the story go on (e.g.
// "until broker 0 leads" where ELR elected another).
func (r *Runner) until(ctx context.Context, st Step) error {
	e := r.Env
	limit := st.Timeout.Std()
	if limit <= 0 {
		limit = defaultUntilTimeout
	}
	c := *st.Until
	if c.Struck != "" && r.struckSet {
		c = c.WithStruck(r.struck)
	}
	u := untilRecord(c, st.Optional, limit)
	e.record(histories.Invoke, histories.FUntil, histories.NemesisValue{Fault: histories.FUntil, Details: u.Details()}, "")
	begin := time.Now()
	err := WaitFor(ctx, e.untilState(), e.Topic, c, limit)
	u.TookMS = time.Since(begin).Milliseconds()
	switch {
	case err == nil:
		u.Held = true
		e.record(histories.OK, histories.FUntil, histories.NemesisValue{Fault: histories.FUntil, Details: u.Details()}, "")
		e.Logger().Info("nemesis: condition holds", "until", c.String(), "after", time.Duration(u.TookMS)*time.Millisecond)
		return nil
	case ctx.Err() != nil:
		// Interrupted: neither held nor timed out.
		e.record(histories.Info, histories.FUntil, histories.NemesisValue{Fault: histories.FUntil, Details: u.Details()}, ctx.Err().Error())
		return err
	}
	if nw := (*notWithinError)(nil); errors.As(err, &nw) {
		u.LastSeen = nw.LastSeen
	}
	e.record(histories.Fail, histories.FUntil, histories.NemesisValue{Fault: histories.FUntil, Details: u.Details()}, err.Error())
	if st.Optional {
		// A soft wait: the story goes on either way.
		e.Logger().Info("nemesis: optional condition did not hold", "until", c.String(), "after", limit)
		return nil
	}
	return err
}

// FinalHeal puts the cluster back together: resume paused nodes, remove
// every kchaos rule, start stopped nodes, then wait (bounded) until every
// broker is live and every partition has a leader. Harnesses call it
// through Run; it is exported for a run that injects faults by hand.
func (r *Runner) FinalHeal(ctx context.Context) error {
	return r.Env.Heal(ctx, histories.HealAll, r.healTimeout())
}

// labeler is implemented by parameters that name their step more
// precisely than the fault's name ("partition racks", "upgrade to 4.4.0").
// Label is exported so that a room's parameters (nemesis/network's
// shapes, nemesis/quorum's upgrade) can name their steps too.
type labeler interface{ Label(fault string) string }

func stepName(st Step) string {
	switch {
	case st.Wait > 0:
		return "wait " + st.Wait.String()
	case st.Until != nil:
		return "until " + st.Until.String()
	case st.Fault != "":
		if l, ok := st.Params.(labeler); ok {
			return l.Label(st.Fault)
		}
		return st.Fault
	case st.Heal != "":
		return "heal " + st.Heal
	}
	return "empty"
}
