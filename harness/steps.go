package harness

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/kchaos/kchaos/harness/progress"
)

func orDiscard(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}

// stepTracker turns the nemesis runner's steps and its "injected" and
// "healed" log lines into progress events ("nemesis step 3 of 8: kill:
// nodes [0]") and the run's phase.
type stepTracker struct {
	r   *run
	ctx context.Context

	mu        sync.Mutex
	step, n   int
	name      string
	inHeal    bool
	healBegun bool
}

func newStepTracker(r *run, ctx context.Context) *stepTracker { return &stepTracker{r: r, ctx: ctx} }

func (t *stepTracker) onStep(i, n int, name string) {
	t.mu.Lock()
	t.step, t.n, t.name = i+1, n, name
	heal := i >= n
	t.inHeal, t.healBegun = heal, t.healBegun || heal
	t.mu.Unlock()
	if heal {
		t.r.setPhase(t.ctx, progress.Heal)
		t.r.ev.Event(progress.Event{Phase: progress.Heal, Text: "resuming, healing and starting every node; waiting for leaders"})
		return
	}
	t.r.setPhase(t.ctx, progress.Workload, fmt.Sprintf("nemesis step %d of %d: %s", i+1, n, name))
	t.r.ev.Event(progress.Event{Phase: progress.Nemesis, Step: i + 1, Steps: n, Text: name})
}

// healed ends the heal phase once the runner returned.
func (t *stepTracker) healed(err error) {
	t.mu.Lock()
	begun := t.healBegun
	t.mu.Unlock()
	if !begun {
		return
	}
	if err != nil && strings.Contains(err.Error(), "final heal") {
		t.r.ev.Event(progress.Event{Phase: progress.Heal, Text: err.Error(), Done: true, Failed: true})
	} else {
		t.r.ev.Event(progress.Event{Phase: progress.Heal, Text: "every partition has a leader", Done: true})
	}
	t.r.ev.Event(progress.Event{Phase: progress.Nemesis, Text: "schedule done", Done: true})
	t.r.setPhase(t.ctx, progress.Workload, "after the schedule")
}

// detail is called for each nemesis log record that reports a fault.
func (t *stepTracker) detail(text string) {
	t.mu.Lock()
	step, n, name, heal := t.step, t.n, t.name, t.inHeal
	t.mu.Unlock()
	if heal {
		t.r.ev.Event(progress.Event{Phase: progress.Heal, Text: text})
		return
	}
	t.r.ev.Event(progress.Event{Phase: progress.Nemesis, Step: step, Steps: n, Text: name + ": " + text})
}

// logger passes every record on to l and reports the fault ones.
func (t *stepTracker) logger(l *slog.Logger) *slog.Logger {
	return slog.New(&faultHandler{next: l.Handler(), t: t})
}

type faultHandler struct {
	next slog.Handler
	t    *stepTracker
}

func (h *faultHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *faultHandler) Handle(ctx context.Context, r slog.Record) error {
	if text, ok := faultText(r); ok {
		h.t.detail(text)
	}
	if h.next.Enabled(ctx, r.Level) {
		return h.next.Handle(ctx, r)
	}
	return nil
}

func (h *faultHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &faultHandler{next: h.next.WithAttrs(as), t: h.t}
}

func (h *faultHandler) WithGroup(name string) slog.Handler {
	return &faultHandler{next: h.next.WithGroup(name), t: h.t}
}

// faultText renders the nemesis's "injected", "healed" and "condition
// holds" records as "injected on nodes [0]: shape leader-followers, ...".
func faultText(r slog.Record) (string, bool) {
	verb, ok := strings.CutPrefix(r.Message, "nemesis: ")
	switch {
	case !ok:
		return "", false
	case verb == "injected", verb == "healed", verb == "condition holds",
		verb == "optional condition did not hold", verb == "inject failed", verb == "heal failed":
	default:
		return "", false
	}
	var b strings.Builder
	b.WriteString(verb)
	var rest []string
	r.Attrs(func(a slog.Attr) bool {
		v := a.Value.Resolve().Any()
		switch a.Key {
		case "fault", "what":
		case "nodes":
			if s := progress.Readable(v); s != "[]" && s != "-" {
				fmt.Fprintf(&b, " on nodes %s", s)
			}
		case "details":
			if m, ok := v.(map[string]any); ok {
				for _, k := range slices.Sorted(maps.Keys(m)) {
					rest = append(rest, k+" "+progress.Readable(m[k]))
				}
			} else if s := progress.Readable(v); s != "-" {
				rest = append(rest, s)
			}
		default:
			rest = append(rest, a.Key+" "+progress.Readable(v))
		}
		return true
	})
	if len(rest) > 0 {
		b.WriteString(": ")
		b.WriteString(strings.Join(rest, ", "))
	}
	return b.String(), true
}
