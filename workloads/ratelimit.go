package workloads

import (
	"context"
	"sync"
	"time"

	"github.com/kchaos/kchaos/internal/ctxsleep"
)

// pacer spaces sends evenly at a global rate shared by every producer slot.
// A nil pacer (rate 0) never waits.
type pacer struct {
	mu       sync.Mutex
	interval time.Duration
	next     time.Time
}

func newPacer(rate float64) *pacer {
	if rate <= 0 {
		return nil
	}
	return &pacer{interval: time.Duration(float64(time.Second) / rate)}
}

// wait blocks until the caller's turn, or ctx ends (then it returns
// ctx.Err()). Turns are reserved under the lock, so concurrent callers get
// distinct, evenly spaced times; a caller that falls behind does not earn
// a burst beyond one interval.
func (p *pacer) wait(ctx context.Context) error {
	if p == nil {
		return ctx.Err()
	}
	p.mu.Lock()
	now := time.Now()
	if p.next.Before(now) {
		p.next = now
	}
	at := p.next
	p.next = p.next.Add(p.interval)
	p.mu.Unlock()
	return ctxsleep.Sleep(ctx, time.Until(at))
}
