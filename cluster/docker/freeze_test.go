package docker

import (
	"context"
	"errors"
	"testing"
)

// TestRetryFreeze: a freeze runc could not finish is tried again, up to
// freezeTries times; another error, or success, ends it at once.
func TestRetryFreeze(t *testing.T) {
	freeze := errors.New("Error response from daemon: Cannot pause container x: OCI runtime pause failed: unable to freeze: unknown")
	other := errors.New("Error response from daemon: container x is not running")
	for _, tc := range []struct {
		name      string
		results   []error
		wantCalls int
		wantErr   error
	}{
		{"succeeds at once", []error{nil}, 1, nil},
		{"succeeds on the second try", []error{freeze, nil}, 2, nil},
		{"succeeds on the last try", []error{freeze, freeze, nil}, 3, nil},
		{"gives up after freezeTries", []error{freeze, freeze, freeze, nil}, freezeTries, freeze},
		{"another error at once", []error{other, nil}, 1, other},
		{"another error after a freeze", []error{freeze, other}, 2, other},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			err := retryFreeze(context.Background(), func() error {
				calls++
				return tc.results[calls-1]
			})
			if calls != tc.wantCalls || !errors.Is(err, tc.wantErr) && err != tc.wantErr {
				t.Errorf("%d calls, error %v; want %d, %v", calls, err, tc.wantCalls, tc.wantErr)
			}
		})
	}
}
