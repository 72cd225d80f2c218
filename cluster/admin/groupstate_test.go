package admin

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
)

// TestRetriable: the group read-back asks again only while the
// coordinator cannot answer yet (loading, moved, unreachable), never on
// an answer that asking again will not change.
func TestRetriable(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{kerr.CoordinatorLoadInProgress, true},
		{fmt.Errorf("offset fetch of group g: %w", kerr.NotCoordinator), true},
		{kerr.CoordinatorNotAvailable, true},
		{context.DeadlineExceeded, true},
		{errors.New("dial tcp: connection refused"), true},
		{kerr.GroupAuthorizationFailed, false},
		{fmt.Errorf("offset fetch of group g: %w", kerr.GroupIDNotFound), false},
	} {
		if got := Retriable(tc.err); got != tc.want {
			t.Errorf("%v: %v, want %v", tc.err, got, tc.want)
		}
	}
}
