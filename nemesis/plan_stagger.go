package nemesis

import (
	"fmt"
	"slices"
	"time"
)

// period is the planned length of one period of a periods-mode schedule:
// active + quiet, plus, staggered, the mean gaps between its injections
// (subset - 1 of them).
func (rs RandomSchedule) period() Duration {
	return rs.Active + rs.Quiet + Duration(max(rs.Subset, 1)-1)*rs.Stagger
}

// periodText is period's sum in words, for a message.
func (rs RandomSchedule) periodText() string {
	s := fmt.Sprintf("active %s + quiet %s", rs.Active, rs.Quiet)
	if rs.Stagger > 0 && rs.Subset > 1 {
		s += fmt.Sprintf(" + %d stagger gaps of %s", rs.Subset-1, rs.Stagger)
	}
	return s
}

// staggerEvent is one step of a staggered period at its planned offset.
type staggerEvent struct {
	at   Duration
	step Step
}

// planStaggered is the periods mode with staggered faults, Jepsen's
// overlapping nemeses: each period draws Subset distinct faults of the
// mix, injects them one by one with a gap drawn between half and one and
// a half of Stagger, holds each for Active from its own injection, heals
// each heal kind when the last of its faults ends (a heal undoes every
// fault of its kind), and stays quiet for Quiet after the last heal.
// Faults thus overlap and start and end at different times: a sequence
// that needs one fault to strike seconds after another took effect (cut
// the leader from its followers, let the ISR shrink to it, then kill it)
// is drawn, where planPeriods injects everything at once.
func planStaggered(r *prng, rs RandomSchedule, ids []int32) Planned {
	names := distinctFaults(rs)
	subset := max(rs.Subset, 1)
	var out Planned
	for range int(rs.Duration / rs.period()) {
		p := Period{FirstStep: len(out.Steps)}
		var events []staggerEvent
		ends := map[string]Duration{}
		var heals []string
		var at Duration
		for k, i := range r.draw(len(names), subset) {
			if k > 0 {
				at += staggerGap(r, rs.Stagger)
			}
			st := planStep(r, rs, names[i], ids)
			p.Faults = append(p.Faults, names[i])
			events = append(events, staggerEvent{at: at, step: st})
			if h := healFor(st.Fault); h != "" {
				if !slices.Contains(heals, h) {
					heals = append(heals, h)
				}
				ends[h] = at + rs.Active
			} else {
				ends[""] = max(ends[""], at+rs.Active)
			}
		}
		last := ends[""]
		for _, h := range heals {
			events = append(events, staggerEvent{at: ends[h], step: Step{Heal: h}})
			last = max(last, ends[h])
		}
		// Stable: at the same offset injections (drawn first) go first.
		slices.SortStableFunc(events, func(a, b staggerEvent) int { return int(a.at - b.at) })
		var now Duration
		for _, e := range events {
			if e.at > now {
				out.Steps = append(out.Steps, Step{Wait: e.at - now})
				now = e.at
			}
			out.Steps = append(out.Steps, e.step)
		}
		if last > now {
			out.Steps = append(out.Steps, Step{Wait: last - now})
		}
		if rs.Quiet > 0 {
			out.Steps = append(out.Steps, Step{Wait: rs.Quiet})
		}
		out.Periods = append(out.Periods, p)
	}
	return out
}

// staggerGap draws a gap between half and one and a half of mean, to the
// millisecond.
func staggerGap(r *prng, mean Duration) Duration {
	ms := int(time.Duration(mean) / time.Millisecond)
	return Duration(ms/2+r.intn(ms+1)) * Duration(time.Millisecond)
}
