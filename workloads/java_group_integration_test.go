//go:build integration

package workloads

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/internal/testenv"
)

// TestJavaGroupWorkload is TestGroupWorkload with the java driver: three
// members (each a KafkaConsumer in a JVM of its own) for 25 s on 4
// partitions, member-1 killed at 6 s (its JVM SIGKILLed: no LeaveGroup)
// and started again at 10 s, member-2 leaving at 14 s (close: revoke,
// commit, LeaveGroup) and rejoining at 16 s; the history is judged as
// franz-go's and kafka-go's are (the same checks, copied from
// groupIntegration with the cluster's version passed as the harness
// passes it): subscribes before polls, several generations, every
// partition assigned and committed, nothing below a commit undelivered,
// no delivery outside the recorded assignment, and the broker listing
// the group with the protocol asked for. KCHAOS_JAVA_CLIENT=3.9.2 runs an
// older client against the cluster (3.9's consumer protocol is a preview).
func TestJavaGroupWorkload(t *testing.T) {
	for _, tc := range []struct{ protocol, commit string }{
		{histories.ProtocolClassic, CommitManual},
		{histories.ProtocolConsumer, CommitAuto},
	} {
		t.Run(tc.protocol+"/"+tc.commit, func(t *testing.T) {
			if tc.protocol != histories.ProtocolClassic {
				// make test runs one variant; make test-scenarios both.
				testenv.AllScenarios(t)
			}
			javaGroupIntegration(t, tc.protocol, tc.commit)
		})
	}
}

// javaBuildFor builds the driver for cfg's client version before a test's
// clock starts (the first build resolves kafka-clients through Maven).
func javaBuildFor(ctx context.Context, t *testing.T, cfg Config) {
	t.Helper()
	v, err := javaClientVersion(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := javaBuild(ctx, v); err != nil {
		t.Fatal(err)
	}
}

func javaGroupIntegration(t *testing.T, protocol, commit string) {
	drv := DriverJava
	c, adm := sharedAdmin(t)
	// A run number in the name: -count=N reuses the shared cluster.
	groupRuns++
	topic := fmt.Sprintf("grp-%s-%s-%s-%d", drv, protocol, commit, groupRuns)
	group := "g-" + topic
	createTopic(t, adm, topic, [][]int32{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	// KCHAOS_TEST_STORE keeps the history for a look after the test.
	dir := t.TempDir()
	if d := os.Getenv(testenv.EnvStore); d != "" {
		dir = filepath.Join(d, topic)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	path, rec := newHistory(t, dir)
	cfg := Config{Driver: drv, Topic: topic, Partitions: 4, Producers: 2, Rate: 200,
		Group:    GroupConfig{ID: group, Members: 3, Protocol: protocol, Commit: commit, CommitInterval: Duration(500 * time.Millisecond)},
		Duration: Duration(25 * time.Second), FinalReadTimeout: Duration(60 * time.Second),
		ClusterVersion: c.Config().KafkaVersion,         // as the harness passes it
		ClientVersion:  os.Getenv("KCHAOS_JAVA_CLIENT")} // another client's release, if asked
	javaBuildFor(ctx, t, cfg)
	w, err := New(cfg, c.Bootstrap(), rec)
	if err != nil {
		t.Fatal(err)
	}
	ctl := w.Group()
	began := time.Now()
	faults := make(chan error, 1)
	go func() {
		step := func(at time.Duration, f func(context.Context, string) error, m string) error {
			time.Sleep(time.Until(began.Add(at)))
			fctx, fcancel := context.WithTimeout(ctx, 20*time.Second)
			defer fcancel()
			if err := f(fctx, m); err != nil {
				return fmt.Errorf("at %s on %s: %w", at, m, err)
			}
			t.Logf("%5.1fs: fault on %s done", time.Since(began).Seconds(), m)
			return nil
		}
		for _, s := range []struct {
			at time.Duration
			f  func(context.Context, string) error
			m  string
		}{{6 * time.Second, ctl.Kill, "member-1"}, {10 * time.Second, ctl.Start, "member-1"},
			{14 * time.Second, ctl.Leave, "member-2"}, {16 * time.Second, ctl.Start, "member-2"}} {
			if err := step(s.at, s.f, s.m); err != nil {
				faults <- err
				return
			}
		}
		faults <- nil
	}()
	st, err := w.Run(ctx)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if err := <-faults; err != nil {
		t.Fatalf("member fault: %v", err)
	}
	if _, err := w.FinalRead(ctx, adm); err != nil {
		t.Fatalf("final read: %v", err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("stats: %+v", st)

	evs, torn, err := histories.ReadFile(path)
	if err != nil || torn {
		t.Fatalf("read history: %v (torn %v)", err, torn)
	}
	// The checker judges where a new owner resumed from its first
	// delivery after the assignment: none may come before it.
	if out, err := histories.OutsideAssignment(evs); err != nil || len(out) > 0 {
		t.Errorf("%d deliveries outside the member's recorded assignment (%v), first: %v", len(out), err, out[:min(len(out), 3)])
	}
	subscribed := map[int]bool{}
	gens := map[int32]bool{}
	assigned := map[int32]bool{}
	delivered := map[[2]int64]string{}
	committed := map[int32]int64{}
	final := map[[2]int64]string{}
	ends := map[int32]int64{}
	var okCommits, otherCommits, rebalances, polls int
	for _, e := range evs {
		switch {
		case e.F == histories.FSubscribe && e.Type == histories.OK:
			subscribed[e.Process] = true
		case e.F == histories.FPoll && e.Type == histories.Invoke && e.Process >= 0:
			var v histories.GroupReadRequest
			if err := e.Decode(&v); err != nil || v.Group != group || v.Generation == nil {
				t.Fatalf("poll invoke %s: %v", e.Value, err)
			}
			if !subscribed[e.Process] {
				t.Fatalf("p%d polled without an ok subscribe", e.Process)
			}
			if *v.Generation >= 0 {
				gens[*v.Generation] = true
			}
			polls++
		case e.F == histories.FPoll && e.Type == histories.OK:
			var v histories.ReadResult
			_ = e.Decode(&v)
			for _, r := range v.Records {
				delivered[[2]int64{int64(r.Partition), r.Offset}] = r.Value
			}
		case e.F == histories.FRebalance && e.Type == histories.OK:
			var v histories.RebalanceValue
			_ = e.Decode(&v)
			for _, p := range v.Assigned {
				assigned[p] = true
			}
			rebalances++
		case e.F == histories.FCommit && e.Type == histories.OK:
			var v histories.CommitValue
			_ = e.Decode(&v)
			for _, p := range histories.SortedPartitions(v.Offsets) {
				committed[p] = max(committed[p], v.Offsets[histories.PartitionKey(p)])
			}
			okCommits++
		case e.F == histories.FCommit && e.Type != histories.Invoke:
			otherCommits++
		case e.F == histories.FFinalRead && e.Type == histories.OK:
			var v histories.ReadResult
			_ = e.Decode(&v)
			for _, r := range v.Records {
				final[[2]int64{int64(r.Partition), r.Offset}] = r.Value
			}
			for _, p := range histories.SortedPartitions(v.EndOffsets) {
				ends[p] = v.EndOffsets[histories.PartitionKey(p)]
			}
		}
	}
	t.Logf("%d member processes, %d polls, generations %v, %d rebalances, %d ok commits, %d others, committed %v",
		len(subscribed), polls, slices.Sorted(func(y func(int32) bool) {
			for g := range gens {
				if !y(g) {
					return
				}
			}
		}), rebalances, okCommits, otherCommits, committed)
	if len(subscribed) < 5 {
		t.Errorf("%d member processes subscribed, want at least 5 (3, and one each after the kill and the leave)", len(subscribed))
	}
	if len(gens) < 2 {
		t.Errorf("generations %v: want more than one (kill and leave rebalance the group)", gens)
	}
	for p := int32(0); p < 4; p++ {
		if !assigned[p] {
			t.Errorf("partition %d never assigned", p)
		}
		if committed[p] < ends[p]/2 {
			// A member's partitions held by a dead member for the whole run
			// (KIP-848's broker-side session, 45 s by default) look like this.
			t.Errorf("partition %d: committed up to %d of its %d records: the group stalled on it", p, committed[p], ends[p])
		}
		missing := 0
		for off := int64(0); off < committed[p]; off++ {
			v, ok := final[[2]int64{int64(p), off}]
			if ok && delivered[[2]int64{int64(p), off}] != v {
				missing++
			}
		}
		if missing > 0 {
			t.Errorf("partition %d: %d records below the committed offset %d never delivered", p, missing, committed[p])
		}
	}

	// The broker's own view of the group's protocol.
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Bootstrap()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	listed, err := kadm.NewClient(cl).ListGroupsByType(ctx, nil)
	if err != nil {
		t.Fatalf("list groups: %v", err)
	}
	if g, ok := listed[group]; !ok || g.GroupType != protocol {
		t.Errorf("the broker lists group %s as %+v, want type %s", group, g, protocol)
	}
}
