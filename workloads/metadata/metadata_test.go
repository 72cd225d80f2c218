package metadata

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/workloads"
	"github.com/kchaos/kchaos/workloads/workloadstest"
)

// metaFake is an in-memory metadata store: every third request is
// refused (NOT_CONTROLLER: not applied) and every fifth times out after
// being applied (outcome unknown), so every outcome occurs.
type metaFake struct {
	mu     sync.Mutex
	calls  int
	topics map[string]histories.TopicMeta
	lag    map[int32]int // broker -> attempts before it sees the store
}

func (f *metaFake) apply(change func()) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	switch {
	case f.calls%3 == 0:
		return fmt.Errorf("forwarded: %w", kerr.NotController)
	case f.calls%5 == 0:
		change()
		return context.DeadlineExceeded
	}
	change()
	return nil
}

func (f *metaFake) CreateTopicOnce(_ context.Context, t string, n int32, _ int16) error {
	return f.apply(func() {
		if _, ok := f.topics[t]; !ok {
			f.topics[t] = histories.TopicMeta{Partitions: n}
		}
	})
}
func (f *metaFake) DeleteTopicOnce(_ context.Context, t string) error {
	return f.apply(func() { delete(f.topics, t) })
}
func (f *metaFake) CreatePartitionsOnce(_ context.Context, t string, n int32) error {
	return f.apply(func() { m := f.topics[t]; m.Partitions = n; f.topics[t] = m })
}
func (f *metaFake) SetTopicConfigOnce(_ context.Context, t, k, v string) error {
	return f.apply(func() { m := f.topics[t]; m.Configs = map[string]string{k: v}; f.topics[t] = m })
}

func (f *metaFake) MetadataFrom(_ context.Context, b int32, prefix string, _ []string) (map[string]histories.TopicMeta, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.lag[b] > 0 {
		f.lag[b]--
		return map[string]histories.TopicMeta{}, nil // behind: sees nothing yet
	}
	out := map[string]histories.TopicMeta{}
	for k, v := range f.topics {
		if strings.HasPrefix(k, prefix) {
			out[k] = v
		}
	}
	return out, nil
}

func (f *metaFake) Quorum(context.Context) (histories.QuorumValue, error) {
	return histories.QuorumValue{LeaderID: 1000, LeaderEpoch: 1,
		Voters: []histories.QuorumReplica{{ID: 1000, LogEndOffset: 40}}, Observers: []histories.QuorumReplica{{ID: 0, LogEndOffset: 39}}}, nil
}

// TestMetadataWorkload: each change is an op completed with the outcome
// its answer proves (ok, fail for a Kafka refusal, info for a timeout),
// a process retires after info, and the final read retries until the
// brokers agree, then records the controllers' log end offsets.
func TestMetadataWorkload(t *testing.T) {
	f := &metaFake{topics: map[string]histories.TopicMeta{}, lag: map[int32]int{1: 2}}
	var buf bytes.Buffer
	rec := histories.NewRecorder(&buf)
	m := New(workloads.MetadataConfig{Clients: 2, Rate: 100}, f, rec, 3, 7)
	ctx := context.Background()
	done := make(chan error)
	go func() { done <- m.Run(ctx) }()
	time.Sleep(300 * time.Millisecond)
	m.Stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := FinalRead(ctx, f, rec, []int32{0, 1}, []int32{1000}, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	evs := workloadstest.ReadBack(t, rec, &buf)
	open := map[int]string{}
	retired := map[int]bool{}
	seen := map[histories.Type]int{}
	fs := map[string]bool{}
	var reads []histories.MetadataRead
	for _, e := range evs {
		if e.Type == histories.Invoke {
			if retired[e.Process] || open[e.Process] != "" {
				t.Fatalf("event %d: process %d invokes after info or while open", e.Index, e.Process)
			}
			open[e.Process] = e.F
			continue
		}
		if open[e.Process] != e.F {
			t.Fatalf("event %d: completes %s without its invoke", e.Index, e.F)
		}
		delete(open, e.Process)
		if e.F == histories.FMetadataRead {
			var r histories.MetadataRead
			if err := e.Decode(&r); err != nil {
				t.Fatal(err)
			}
			reads = append(reads, r)
			continue
		}
		fs[e.F] = true
		seen[e.Type]++
		switch e.Type {
		case histories.Info:
			retired[e.Process] = true
			if !strings.Contains(e.Error, "deadline") {
				t.Errorf("info with error %q, want the timeout", e.Error)
			}
		case histories.Fail:
			if !strings.Contains(e.Error, "NOT_CONTROLLER") && !strings.Contains(e.Error, "TOPIC_ALREADY_EXISTS") {
				t.Errorf("fail with error %q", e.Error)
			}
		}
	}
	if seen[histories.OK] == 0 || seen[histories.Fail] == 0 || seen[histories.Info] == 0 {
		t.Errorf("outcomes %v: want each of ok, fail, info", seen)
	}
	for _, f := range []string{histories.FCreateTopic, histories.FAlterConfig} {
		if !fs[f] {
			t.Errorf("no %s op in %v", f, fs)
		}
	}
	// Broker 1 lags two reads: the brokers agree at the third attempt and
	// again, unchanged, at the fourth; then the controller's read.
	var got []string
	for _, r := range reads {
		got = append(got, fmt.Sprintf("%d/%s/%d/%d", r.Node, r.Role, r.Attempt, r.LogEndOffset))
	}
	if strings.Join(got, " ") != "0/broker/1/39 1/broker/1/-1 0/broker/2/39 1/broker/2/-1 0/broker/3/39 1/broker/3/-1 0/broker/4/39 1/broker/4/-1 1000/controller/0/40" {
		t.Errorf("reads %v", got)
	}
	if len(reads[len(reads)-2].Topics) == 0 || fmt.Sprint(reads[len(reads)-2].Topics) != fmt.Sprint(reads[len(reads)-3].Topics) {
		t.Errorf("the last reads disagree: %v vs %v", reads[len(reads)-3].Topics, reads[len(reads)-2].Topics)
	}
}

// TestMetadataFinalReadWaitsForASettledView: brokers that lag the quorum
// together agree on an older state (q1 on 3.9.2, 2026-12-02); the read
// goes on until the same view comes back twice in a row.
func TestMetadataFinalReadWaitsForASettledView(t *testing.T) {
	for _, tc := range []struct {
		name     string
		lag      map[int32]int
		attempts int
	}{
		{"both lag one read: they agree on nothing, then on the topics", map[int32]int{0: 1, 1: 1}, 3},
		{"neither lags", map[int32]int{}, 2},
		{"one lags two reads", map[int32]int{1: 2}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &metaFake{topics: map[string]histories.TopicMeta{workloads.MetadataTopicPrefix + "0-1": {Partitions: 2}}, lag: tc.lag}
			var buf bytes.Buffer
			rec := histories.NewRecorder(&buf)
			if err := FinalRead(context.Background(), f, rec, []int32{0, 1}, nil, 10*time.Second); err != nil {
				t.Fatal(err)
			}
			var last histories.MetadataRead
			for _, e := range workloadstest.ReadBack(t, rec, &buf) {
				if e.Type == histories.OK {
					if err := e.Decode(&last); err != nil {
						t.Fatal(err)
					}
				}
			}
			if last.Attempt != tc.attempts || len(last.Topics) != 1 {
				t.Errorf("last read: attempt %d with %d topics, want attempt %d with the topic", last.Attempt, len(last.Topics), tc.attempts)
			}
		})
	}
}
