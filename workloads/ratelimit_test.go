package workloads

import (
	"context"
	"sync"
	"testing"
	"time"
)

// TestLimiterSpacesTurns: 20 turns at 200/s shared by 4 callers take at
// least 19 intervals (the first is free), and no caller gets a burst.
func TestLimiterSpacesTurns(t *testing.T) {
	l := newLimiter(200)
	begin := time.Now()
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				if err := l.Wait(context.Background()); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if took := time.Since(begin); took < 19*5*time.Millisecond-5*time.Millisecond {
		t.Errorf("20 turns at 200/s took %s, want at least 95ms", took)
	}
}

func TestLimiterUnlimitedAndCancelled(t *testing.T) {
	l := newLimiter(0)
	begin := time.Now()
	for range 10000 {
		if err := l.Wait(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if took := time.Since(begin); took > time.Second {
		t.Errorf("rate 0 (unlimited) waited: 10000 turns took %s", took)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := l.Wait(ctx); err == nil {
		t.Error("Wait on an ended context returned nil")
	}
	if err := newLimiter(1).Wait(ctx); err == nil {
		t.Error("Wait on an ended context returned nil")
	}
}
