package nemesis

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/histories"
)

// fakeReader is a fake admin client that can address brokers: each broker
// answers after its delay, or fails; calls are logged.
type fakeReader struct {
	*fakeAdmin
	mu    sync.Mutex
	delay map[int32]time.Duration
	fail  map[int32]bool
	asked []int32
}

func (r *fakeReader) answer(ctx context.Context, b int32) error {
	r.mu.Lock()
	r.asked = append(r.asked, b)
	d, fail := r.delay[b], r.fail[b]
	r.mu.Unlock()
	select {
	case <-time.After(d):
	case <-ctx.Done():
		return ctx.Err()
	}
	if fail {
		return errors.New("unable to dial")
	}
	return nil
}

func (r *fakeReader) DescribeFrom(ctx context.Context, b int32, topic string) ([]admin.PartitionState, error) {
	if err := r.answer(ctx, b); err != nil {
		return nil, err
	}
	p := r.Parts[0]
	p.Leader = b // tells which broker answered
	return []admin.PartitionState{p}, nil
}

func (r *fakeReader) LiveBrokersFrom(ctx context.Context, b int32) ([]int32, error) {
	if err := r.answer(ctx, b); err != nil {
		return nil, err
	}
	return []int32{b}, nil
}

func (r *fakeReader) calls() []int32 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.asked)
}

func TestStateReads(t *testing.T) {
	slow := 3 * time.Second
	for _, tc := range []struct {
		name    string
		delay   map[int32]time.Duration
		fail    map[int32]bool
		down    []int32 // killed
		paused  []int32
		cut     []int32 // cut off from the controller
		last    int32
		from    int32 // the broker whose answer is taken; -1: the client's own routing
		asked   string
		within  time.Duration
		wantErr bool
	}{
		{"preferred answers", nil, nil, nil, nil, nil, 0, 0, "[0]", 100 * time.Millisecond, false},
		{"sticks to the last", nil, nil, nil, nil, nil, 2, 2, "[2]", 100 * time.Millisecond, false},
		{"dead and paused skipped", nil, nil, []int32{0}, []int32{1}, nil, 0, 2, "[2]", 100 * time.Millisecond, false},
		{"preferred fails", map[int32]time.Duration{2: 50 * time.Millisecond}, map[int32]bool{0: true}, nil, nil, nil, 0, 1, "", 150 * time.Millisecond, false},
		{"preferred hangs", map[int32]time.Duration{0: slow, 2: 50 * time.Millisecond}, nil, nil, nil, nil, 0, 1, "", hedgeAfter + 200*time.Millisecond, false},
		{"cut off last", nil, nil, nil, nil, []int32{0, 1}, 0, 2, "[2]", 100 * time.Millisecond, false},
		{"all fail", nil, map[int32]bool{0: true, 1: true, 2: true}, nil, nil, nil, 0, 0, "[0 1 2]", 100 * time.Millisecond, true},
		{"every broker down", nil, nil, []int32{0, 1, 2}, nil, nil, 0, -1, "[]", 100 * time.Millisecond, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, c, a := newFakeEnv()
			r := &fakeReader{fakeAdmin: a, delay: tc.delay, fail: tc.fail}
			env.Admin = r
			env.lastReader = tc.last
			for _, id := range tc.down {
				_ = c.Kill(context.Background(), id)
			}
			for _, id := range tc.paused {
				_ = c.Pause(context.Background(), id)
			}
			// The brokers a kind says are cut off from the controller
			// (Kind.AvoidReads: a partition's, nemesis/network).
			cut := map[int32]bool{}
			for _, id := range tc.cut {
				cut[id] = true
			}
			t.Cleanup(register(Kind{Name: "test-cut", AvoidReads: func(*Env) (skip, last map[int32]bool) { return nil, cut }}))
			begin := time.Now()
			parts, err := env.State().Describe(context.Background(), "t")
			took := time.Since(begin)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err %v", err)
			}
			if took > tc.within {
				t.Errorf("took %s, want within %s", took, tc.within)
			}
			// "": the preferred broker, then the others at once (which of
			// them has logged its call by now is up to the scheduler).
			calls := r.calls()
			if got := fmt.Sprint(sortedIDs(calls)); tc.asked != "" && got != tc.asked && !(tc.asked == "[]" && got == "[]") {
				t.Errorf("asked %s, want %s", got, tc.asked)
			}
			if tc.asked == "" && (len(calls) < 2 || calls[0] != 0 || !slices.Contains(calls, tc.from)) {
				t.Errorf("asked %v, want 0 first, then the others", calls)
			}
			if tc.wantErr {
				return
			}
			if tc.from >= 0 && parts[0].Leader != tc.from {
				t.Errorf("answer from broker %d, want %d", parts[0].Leader, tc.from)
			}
			if tc.from >= 0 && env.lastReader != tc.from {
				t.Errorf("last reader %d, want %d", env.lastReader, tc.from)
			}
			if tc.from < 0 && parts[0].Leader != 0 {
				t.Errorf("fallback answer %+v, want the client's", parts[0])
			}
		})
	}
}

// TestStateCutClearedByHeal: once partitions are healed, brokers are no
// longer avoided.
func TestStateCutClearedByHeal(t *testing.T) {
	env, _, a := newFakeEnv()
	env.Admin = &fakeReader{fakeAdmin: a}
	f, err := NewFault(stepOf(t, "{fault: partition, shape: from-controller, target: {role: nodes, nodes: [0]}}"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.Inject(context.Background(), env); err != nil {
		t.Fatal(err)
	}
	if got := env.Readers(context.Background()); fmt.Sprint(got) != "[1 2 0]" {
		t.Errorf("readers while 0 is cut off: %v", got)
	}
	if err := env.Heal(context.Background(), histories.FPartition, time.Second); err != nil {
		t.Fatal(err)
	}
	if got := env.Readers(context.Background()); fmt.Sprint(got) != "[0 1 2]" {
		t.Errorf("readers after heal: %v", got)
	}
}

// TestAdminCallRetries: an election that times out on a frozen broker is
// retried after a metadata read; one that Kafka refuses for good is not.
func TestAdminCallRetries(t *testing.T) {
	timeout := &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}
	for _, tc := range []struct {
		name    string
		errs    []error
		elected int
		err     string
	}{
		{"timeouts", []error{timeout, fmt.Errorf("elect: %w", timeout)}, 1, ""},
		{"retriable kafka error", []error{fmt.Errorf("t-0: %w", kerr.EligibleLeadersNotAvailable)}, 1, ""},
		{"final kafka error", []error{fmt.Errorf("t-0: %w", kerr.TopicAuthorizationFailed), timeout}, 0, "TOPIC_AUTHORIZATION_FAILED"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, _, a := newFakeEnv()
			a.ElectErrs = tc.errs
			// elect-unclean is nemesis/quorum's, which this package
			// cannot name: built through the registry.
			f, err := NewFault(Step{Fault: histories.FElectUnclean})
			if err != nil {
				t.Fatal(err)
			}
			err = env.Inject(context.Background(), f)
			if (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("err %v, want %q", err, tc.err)
			}
			if len(a.Elections) != tc.elected {
				t.Errorf("%d elections, want %d", len(a.Elections), tc.elected)
			}
			if tc.err == "" && a.LiveCalls < len(tc.errs) {
				t.Errorf("%d metadata reads between %d attempts", a.LiveCalls, len(tc.errs)+1)
			}
		})
	}
}

// TestReadersAvoid: the state reads follow every kind's AvoidReads (a
// client cut's skip, a partition's last, nemesis/network): a skipped
// broker is not asked, a stale one last.
func TestReadersAvoid(t *testing.T) {
	env, _, _ := newFakeEnv()
	t.Cleanup(register(Kind{Name: "test-avoid", AvoidReads: func(*Env) (skip, last map[int32]bool) {
		return map[int32]bool{0: true}, map[int32]bool{1: true}
	}}))
	if got := env.Readers(context.Background()); fmt.Sprint(got) != "[2 1]" {
		t.Errorf("readers %v, want [2 1]: 0 skipped, 1 last", got)
	}
}
