// Package ctxsleep is the one context-aware sleep that the nemesis (waits
// between steps) and the workloads (backoff after a failure; the send rate
// limit is golang.org/x/time/rate) share.
package ctxsleep

import (
	"context"
	"time"
)

// Sleep waits d or until ctx ends, and returns ctx.Err() in that case.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
