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

// TestDescribeEither: the group's final description comes from the API of
// the type the coordinator holds it as, whichever is asked first (a mixed
// group is asked as a consumer group, and is a classic one after its
// downgrade).
func TestDescribeEither(t *testing.T) {
	classicD := GroupDescription{Type: "classic", State: "Stable"}
	deadD := GroupDescription{Type: "classic", State: "Dead"}
	consumerD := GroupDescription{Type: "consumer", State: "Stable"}
	notFound := fmt.Errorf("consumer group describe g: %w", kerr.GroupIDNotFound)
	denied := fmt.Errorf("describe group g: %w", kerr.GroupAuthorizationFailed)
	type answer struct {
		d   GroupDescription
		err error
	}
	for _, tc := range []struct {
		name              string
		protocol          string
		classic, consumer answer
		want              GroupDescription
		wantErr           error
		wantClassicAsked  bool
		wantConsumerAsked bool
	}{
		{"classic group, classic first", "classic", answer{classicD, nil}, answer{GroupDescription{}, notFound}, classicD, nil, true, false},
		{"consumer group, consumer first", "consumer", answer{deadD, nil}, answer{consumerD, nil}, consumerD, nil, false, true},
		{"downgraded mixed group: consumer first, not found", "consumer", answer{classicD, nil}, answer{GroupDescription{}, notFound}, classicD, nil, true, true},
		{"consumer group asked as classic: Dead, then consumer", "classic", answer{deadD, nil}, answer{consumerD, nil}, consumerD, nil, true, true},
		{"unknown group, classic first: Dead", "classic", answer{deadD, nil}, answer{GroupDescription{}, notFound}, deadD, nil, true, true},
		{"unknown group, consumer first: Dead", "consumer", answer{deadD, nil}, answer{GroupDescription{}, notFound}, deadD, nil, true, true},
		{"other error: no fallback", "consumer", answer{classicD, nil}, answer{GroupDescription{}, denied}, GroupDescription{}, kerr.GroupAuthorizationFailed, false, true},
		{"both not found: the first's error", "consumer", answer{GroupDescription{}, notFound}, answer{GroupDescription{}, notFound}, GroupDescription{}, kerr.GroupIDNotFound, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var askedClassic, askedConsumer bool
			d, err := describeEither(tc.protocol,
				func() (GroupDescription, error) { askedClassic = true; return tc.classic.d, tc.classic.err },
				func() (GroupDescription, error) { askedConsumer = true; return tc.consumer.d, tc.consumer.err })
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err %v, want %v", err, tc.wantErr)
				}
			} else if err != nil || d.Type != tc.want.Type || d.State != tc.want.State {
				t.Fatalf("got %+v, %v; want %+v", d, err, tc.want)
			}
			if askedClassic != tc.wantClassicAsked || askedConsumer != tc.wantConsumerAsked {
				t.Errorf("asked classic %v consumer %v, want %v %v", askedClassic, askedConsumer, tc.wantClassicAsked, tc.wantConsumerAsked)
			}
		})
	}
}
