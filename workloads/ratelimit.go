package workloads

import "golang.org/x/time/rate"

// newLimiter returns the send pacing shared by every producer slot:
// golang.org/x/time/rate with a burst of one, so concurrent callers get
// distinct, evenly spaced turns and a caller that falls behind earns no
// burst beyond one send. sendsPerSec 0 means unlimited (rate.Inf, whose
// Wait returns at once unless the context has ended).
func newLimiter(sendsPerSec float64) *rate.Limiter {
	if sendsPerSec <= 0 {
		return rate.NewLimiter(rate.Inf, 1)
	}
	return rate.NewLimiter(rate.Limit(sendsPerSec), 1)
}
