package nemesis

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kchaos/kchaos/cluster/admin"
)

// timeline is a StateSource whose state changes at given times after its
// first read: a cluster in which a fault takes effect.
type timeline struct {
	begin  time.Time
	events []moment
}

type moment struct {
	after time.Duration
	part  admin.PartitionState
	live  []int32
	hw    int64
	lso   *int64 // nil: at the high watermark
	err   error
}

func (tl *timeline) now() moment {
	if tl.begin.IsZero() {
		tl.begin = time.Now()
	}
	m := tl.events[0]
	for _, e := range tl.events {
		if time.Since(tl.begin) >= e.after {
			m = e
		}
	}
	return m
}

func (tl *timeline) Describe(context.Context, string) ([]admin.PartitionState, error) {
	m := tl.now()
	return []admin.PartitionState{m.part}, m.err
}
func (tl *timeline) LiveBrokers(context.Context) ([]int32, error) { return tl.now().live, tl.now().err }
func (tl *timeline) HighWatermark(context.Context, int32, string, int32) (int64, error) {
	return tl.now().hw, nil
}
func (tl *timeline) LastStableOffset(context.Context, int32, string, int32) (int64, error) {
	if m := tl.now(); m.lso != nil {
		return *m.lso, nil
	}
	return tl.now().hw, nil
}
func (tl *timeline) ActiveController(context.Context) (int32, error) { return 1000, nil }

func state(leader int32, isr ...int32) admin.PartitionState {
	return admin.PartitionState{Topic: "t", Leader: leader, Replicas: []int32{0, 1, 2}, ISR: isr}
}

func TestWaitFor(t *testing.T) {
	healthy := moment{part: state(0, 0, 1, 2), live: []int32{0, 1, 2}, hw: 10}
	shrunk := moment{after: 150 * time.Millisecond, part: state(0, 0), live: []int32{0, 1, 2}, hw: 10}
	offline := moment{after: 300 * time.Millisecond, part: state(-1, 0), live: []int32{1, 2}, hw: 10}
	unreadable := moment{after: 100 * time.Millisecond, err: errors.New("connection refused")}
	leader1 := moment{after: 200 * time.Millisecond, part: state(1, 1), live: []int32{1, 2}, hw: 42}
	yes, no := true, false
	for _, tc := range []struct {
		name    string
		events  []moment
		c       Condition
		timeout time.Duration
		err     string // "" when it must hold within the timeout
	}{
		{"isr shrinks", []moment{healthy, shrunk}, Condition{ISR: []int32{0}}, time.Second, ""},
		{"isr as a set", []moment{{part: state(0, 2, 0, 1)}}, Condition{ISR: []int32{0, 1, 2}}, time.Second, ""},
		{"isr times out", []moment{healthy}, Condition{ISR: []int32{0}}, 300 * time.Millisecond,
			"until partition 0 isr [0]: not within 300ms; last seen: partition 0 leader 0 epoch 0 isr [0 1 2]"},
		{"offline", []moment{healthy, shrunk, offline}, Condition{Offline: &yes}, time.Second, ""},
		{"online again", []moment{offline, {after: 100 * time.Millisecond, part: state(2, 2)}}, Condition{Offline: &no}, time.Second, ""},
		{"offline times out", []moment{healthy}, Condition{Offline: &yes}, 200 * time.Millisecond, "offline true: not within"},
		{"leader", []moment{offline, leader1}, Condition{Leader: ptr[int32](1)}, time.Second, ""},
		{"leader and isr", []moment{healthy, leader1}, Condition{Leader: ptr[int32](1), ISR: []int32{1}}, time.Second, ""},
		{"hw reached", []moment{healthy, leader1}, Condition{HighWatermark: ptr[int64](40)}, time.Second, ""},
		{"hw not reached", []moment{healthy}, Condition{HighWatermark: ptr[int64](40)}, 200 * time.Millisecond,
			"high watermark >= 40: not within 200ms; last seen: partition 0 leader 0 epoch 0 isr [0 1 2] elr []; high watermark 10"},
		{"hw offline", []moment{offline}, Condition{HighWatermark: ptr[int64](1)}, 200 * time.Millisecond, "not within"},
		{"a transaction opens", []moment{healthy, {after: 100 * time.Millisecond, part: state(0, 0, 1, 2), hw: 12, lso: ptr[int64](10)}},
			Condition{OpenTxn: &yes}, time.Second, ""},
		{"no transaction open", []moment{healthy}, Condition{OpenTxn: &yes}, 200 * time.Millisecond,
			"open transaction true: not within 200ms; last seen: partition 0 leader 0 epoch 0 isr [0 1 2] elr []; last stable offset 10, high watermark 10"},
		{"open transaction offline", []moment{offline}, Condition{OpenTxn: &no}, 200 * time.Millisecond, "open transaction: no leader"},
		{"live", []moment{offline, leader1, {after: 300 * time.Millisecond, part: state(1, 1), live: []int32{0, 1, 2}}},
			Condition{Live: []int32{0, 1, 2}}, time.Second, ""},
		{"fenced", []moment{healthy, offline}, Condition{Fenced: []int32{0}}, time.Second, ""},
		{"fenced times out", []moment{healthy}, Condition{Fenced: []int32{0}}, 200 * time.Millisecond, "live brokers [0 1 2]"},
		{"errors pass", []moment{healthy, unreadable, {after: 250 * time.Millisecond, part: state(0, 0)}},
			Condition{ISR: []int32{0}}, time.Second, ""},
		{"error is reported", []moment{{err: errors.New("connection refused")}}, Condition{ISR: []int32{0}}, 200 * time.Millisecond,
			"last seen: connection refused"},
		{"wrong partition", []moment{healthy}, Condition{Partition: 3, ISR: []int32{0}}, 200 * time.Millisecond,
			"topic t has no partition 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := &timeline{events: tc.events}
			begin := time.Now()
			err := waitFor(context.Background(), src, "t", tc.c, tc.timeout, 20*time.Millisecond)
			took := time.Since(begin)
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				if took > tc.timeout {
					t.Errorf("held only after %s", took)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("error %v, want %q", err, tc.err)
			}
			if took < tc.timeout || took > tc.timeout+time.Second {
				t.Errorf("gave up after %s, timeout %s", took, tc.timeout)
			}
		})
	}
}

func TestWaitForCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	src := &timeline{events: []moment{{part: state(0, 0, 1, 2)}}}
	begin := time.Now()
	if err := WaitFor(ctx, src, "t", Condition{ISR: []int32{0}}, time.Minute); err == nil {
		t.Fatal("held")
	}
	if took := time.Since(begin); took > time.Second {
		t.Errorf("cancel took %s to stop the wait", took)
	}
}

func ptr[T any](v T) *T { return &v }

// shareOffsetsAt is a ShareOffsets whose start offset rises to at after
// the given delay from its first read, or fails with err.
type shareOffsetsAt struct {
	begin time.Time
	after time.Duration
	at    int64
	err   error
	asked string
}

func (s *shareOffsetsAt) ShareStartOffset(_ context.Context, group, topic string, p int32) (int64, error) {
	if s.begin.IsZero() {
		s.begin = time.Now()
	}
	s.asked = group + ":" + topic
	if s.err != nil {
		return -1, s.err
	}
	if time.Since(s.begin) < s.after {
		return 0, nil
	}
	return s.at, nil
}

// TestWaitForShareStart: share_start_offset holds once the share group's
// start offset reaches it; it says what it saw otherwise, and a source
// without a share group never holds.
func TestWaitForShareStart(t *testing.T) {
	healthy := []moment{{part: state(0, 0, 1, 2), live: []int32{0, 1, 2}}}
	for _, tc := range []struct {
		name string
		offs *shareOffsetsAt // nil: no share group
		c    Condition
		err  string
	}{
		{"reached", &shareOffsetsAt{after: 100 * time.Millisecond, at: 60}, Condition{ShareStart: ptr[int64](50)}, ""},
		{"not reached", &shareOffsetsAt{at: 10}, Condition{ShareStart: ptr[int64](50)},
			"until partition 0 share start offset >= 50: not within 200ms; last seen: share start offset 10"},
		{"not started", &shareOffsetsAt{err: errors.New("no start offset on t-0 yet")}, Condition{ShareStart: ptr[int64](1)},
			"last seen: share start offset: no start offset on t-0 yet"},
		{"no share group", nil, Condition{ShareStart: ptr[int64](1)}, "share start offset: no share group to ask about"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var src StateSource = &timeline{events: healthy}
			if tc.offs != nil {
				src = shareState{StateSource: src, adm: tc.offs, group: "q"}
			}
			err := waitFor(context.Background(), src, "t", tc.c, 200*time.Millisecond, 20*time.Millisecond)
			if tc.err == "" {
				if err != nil || tc.offs.asked != "q:t" {
					t.Fatalf("%v (asked %q)", err, tc.offs.asked)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("error %v, want %q", err, tc.err)
			}
		})
	}
}
