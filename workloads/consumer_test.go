package workloads

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kchaos/kchaos/histories"
)

// logConsumer serves records from in-memory logs. script may replace a
// poll's result (by poll number) to inject errors or resets.
type logConsumer struct {
	mu     sync.Mutex
	logs   map[int32][]string // partition -> values at offsets 0..
	start  map[int32]int64    // log start offsets
	pos    map[int32]int64
	polls  int
	script map[int]func(f *Fetch)
}

func (c *logConsumer) Offsets(_ context.Context, ps []int32, rule string) (map[int32]int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[int32]int64{}
	for _, p := range ps {
		out[p] = c.start[p]
		if rule == ResetLatest {
			out[p] = int64(len(c.logs[p]))
		}
	}
	return out, nil
}

func (c *logConsumer) Assign(_ context.Context, offs map[int32]int64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pos = map[int32]int64{}
	for p, o := range offs {
		c.pos[p] = o
	}
	return nil
}

func (c *logConsumer) Poll(ctx context.Context) (Fetch, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.polls
	c.polls++
	var f Fetch
	for p := int32(0); p < int32(len(c.logs)); p++ {
		o, ok := c.pos[p]
		if !ok {
			continue
		}
		for ; o < int64(len(c.logs[p])) && o < c.pos[p]+2; o++ {
			f.Records = append(f.Records, histories.Record{Partition: p, Offset: o, Value: c.logs[p][o], LeaderEpoch: 1})
		}
		c.pos[p] = o
	}
	if s := c.script[n]; s != nil {
		s(&f)
		for p, o := range f.Resets {
			c.pos[p] = o
		}
	}
	if len(f.Records) == 0 && len(f.Errors) == 0 {
		// Nothing new: wait like a fetch would.
		c.mu.Unlock()
		select {
		case <-ctx.Done():
		case <-time.After(5 * time.Millisecond):
		}
		c.mu.Lock()
	}
	return f, nil
}

func (c *logConsumer) Close() {}

func TestConsumerRecordsPollsAndResets(t *testing.T) {
	logs := map[int32][]string{0: {"a", "b", "c", "d"}, 1: {"x", "y", "z", "w", "v"}}
	c := &logConsumer{logs: logs, start: map[int32]int64{0: 0, 1: 1}, script: map[int]func(*Fetch){
		// Poll 1: partition 0 is out of range (its log start moved).
		1: func(f *Fetch) {
			f.Records = nil
			f.Errors = []PartitionError{{Partition: 0, Err: kerr.OffsetOutOfRange}}
		},
		// Poll 3: the client repositioned partition 1 by itself.
		3: func(f *Fetch) { f.Resets = map[int32]int64{1: 2} },
	}}
	d := &fakeDriver{consumer: func() Consumer { return c },
		send: func(int, Message) (int64, error) { time.Sleep(time.Millisecond); return 0, nil }}
	w, rec, buf := newTestWorkload(t, Config{Consumers: 1, Partitions: 2, Duration: Duration(300 * time.Millisecond)}, d)
	st, err := w.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	evs := readBack(t, rec, buf)
	var trace []string
	for _, e := range evs {
		if e.Type == histories.Invoke && e.F == histories.FPoll {
			continue
		}
		switch e.F {
		case histories.FAssign:
			if e.Type == histories.OK {
				var v histories.AssignValue
				_ = e.Decode(&v)
				trace = append(trace, fmt.Sprintf("assign%v%v", v.Partitions, v.Offsets))
			}
		case histories.FPoll:
			var v histories.ReadResult
			_ = e.Decode(&v)
			s := string(e.Type)
			for _, r := range v.Records {
				s += fmt.Sprintf(" %d:%d=%s", r.Partition, r.Offset, r.Value)
			}
			if e.Error != "" {
				s += " " + e.Error
			}
			trace = append(trace, s)
		}
	}
	want := []string{
		"assign[0 1]map[0:0 1:1]",
		"ok 0:0=a 0:1=b 1:1=y 1:2=z",
		"fail OFFSET_OUT_OF_RANGE",
		"assign[0 1]map[0:0 1:3]", // earliest again for 0; 1 stays where it was
		"ok 0:0=a 0:1=b 1:3=w 1:4=v",
		"ok 0:2=c 0:3=d",
		"assign[1]map[1:2]", // the client's own reset, recorded after the poll
		"ok 1:2=z 1:3=w",
	}
	if len(trace) < len(want) {
		t.Fatalf("trace %q\nwant prefix %q", trace, want)
	}
	for i := range want {
		if trace[i] != want[i] {
			t.Fatalf("event %d: %q\ntrace %q\nwant prefix %q", i, trace[i], trace, want)
		}
	}
	if st.Assigns != 3 || st.Errors["OFFSET_OUT_OF_RANGE"] < 1 {
		t.Errorf("stats %+v", st)
	}
}

func TestConsumerPartitionsShare(t *testing.T) {
	got := fmt.Sprint(consumerPartitions(0, 2, 5), consumerPartitions(1, 2, 5), consumerPartitions(0, 1, 3))
	if got != "[0 2 4] [1 3] [0 1 2]" {
		t.Errorf("shares %s", got)
	}
}

// deadConsumer is a client whose every poll fails at once, as one whose
// JVM died does.
type deadConsumer struct{ polls atomic.Int64 }

func (c *deadConsumer) Offsets(_ context.Context, ps []int32, _ string) (map[int32]int64, error) {
	out := map[int32]int64{}
	for _, p := range ps {
		out[p] = 0
	}
	return out, nil
}
func (c *deadConsumer) Assign(context.Context, map[int32]int64) error { return nil }
func (c *deadConsumer) Poll(context.Context) (Fetch, error) {
	c.polls.Add(1)
	return Fetch{}, io.ErrClosedPipe
}
func (c *deadConsumer) Close() {}

// TestFailedPollsBackOff: a consumer whose polls fail at once waits
// FailureBackoff between them, as a producer does after a failed send. A
// Java consumer whose JVM was killed 8 s into a real s1 run polled 13.6
// million times in 30 s and wrote a 3.5 GB history.
func TestFailedPollsBackOff(t *testing.T) {
	c := &deadConsumer{}
	d := &fakeDriver{consumer: func() Consumer { return c },
		send: func(int, Message) (int64, error) { time.Sleep(time.Millisecond); return 0, nil }}
	run := 500 * time.Millisecond
	w, _, _ := newTestWorkload(t, Config{Consumers: 1, Partitions: 1, Duration: Duration(run)}, d)
	if _, err := w.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	// At most one poll per FailureBackoff over the run, and some slack.
	if n, most := c.polls.Load(), int64(run/FailureBackoff)+5; n > most || n == 0 {
		t.Errorf("%d failed polls in %s, want 1..%d (one per %s)", n, run, most, FailureBackoff)
	}
}
