package workloads

import (
	"context"
	"errors"
	"testing"
	"time"
)

// slowOpenDriver is a fakeDriver whose producers open when release is
// closed (a JVM starting), or fail to open with err.
type slowOpenDriver struct {
	fakeDriver
	release chan struct{}
	err     error
}

func (d *slowOpenDriver) NewProducer(cfg Config, bs []string, id int) (Producer, error) {
	<-d.release
	if d.err != nil {
		return nil, d.err
	}
	return d.fakeDriver.NewProducer(cfg, bs, id)
}

// TestOpened: Opened stays open while the clients open (the harness's
// schedule waits for it) and closes before the first send, or when
// opening failed, so that a waiter never hangs.
func TestOpened(t *testing.T) {
	for _, c := range []struct {
		name    string
		openErr error
	}{
		{"opens", nil},
		{"fails to open", errors.New("no JVM")},
	} {
		t.Run(c.name, func(t *testing.T) {
			var w *Workload
			sentBeforeOpened := make(chan bool, 1)
			d := &slowOpenDriver{release: make(chan struct{}), err: c.openErr}
			d.send = func(n int, m Message) (int64, error) {
				if n == 0 {
					select {
					case <-w.Opened():
						sentBeforeOpened <- false
					default:
						sentBeforeOpened <- true
					}
				}
				return int64(n), nil
			}
			w, _, _ = newTestWorkload(t, Config{Producers: 2, Partitions: 1, Duration: Duration(300 * time.Millisecond)}, d)
			done := make(chan error, 1)
			go func() {
				_, err := w.Run(context.Background())
				done <- err
			}()
			time.Sleep(50 * time.Millisecond)
			select {
			case <-w.Opened():
				t.Fatal("Opened closed while the producers were still opening")
			default:
			}
			close(d.release)
			select {
			case <-w.Opened():
			case <-time.After(5 * time.Second):
				t.Fatal("Opened not closed after the producers opened")
			}
			err := <-done
			if c.openErr != nil {
				if !errors.Is(err, c.openErr) {
					t.Errorf("Run: %v, want the open's error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if <-sentBeforeOpened {
				t.Error("the first send went before Opened closed")
			}
		})
	}
}
