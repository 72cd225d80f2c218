//go:build integration

package workloads

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kchaos/kchaos/histories"
)

// TestProducerCrashIntegration: on a real cluster, an idempotent,
// pipelined (8 in flight) workload of 2 franz-go producers; producer 0
// is crashed 4 s in and stays down 1 s. It checks, from the recorded
// history and from the log itself:
//   - the sends the crashed client had in flight completed info
//     `crashed`, and no process of the old client got an ok after the
//     crash;
//   - its slots went on as new history processes, through a client with
//     a new producer id: every record those processes wrote carries that
//     id in the log, every record of the old ones the old id;
//   - every acked send is in the final read at its offset (nothing acked
//     is lost), and producer 1 kept writing through the crash.
func TestProducerCrashIntegration(t *testing.T) {
	c, adm := sharedAdmin(t)
	topic := "wl-crash"
	createTopic(t, adm, topic, [][]int32{{0, 1, 2}, {1, 2, 0}})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	path, rec := newHistory(t, t.TempDir())
	w, err := New(Config{Driver: DriverFranz, Topic: topic, Partitions: 2, Producers: 2, MaxInFlight: 8,
		Acks: AcksAll, Idempotent: true, Retries: 3, RequestTimeout: Duration(3 * time.Second),
		Duration: Duration(12 * time.Second), FinalReadTimeout: Duration(60 * time.Second)}, c.Bootstrap(), rec)
	if err != nil {
		t.Fatal(err)
	}
	type crash struct {
		d          map[string]any
		err        error
		begin, end time.Duration
	}
	crashed := make(chan crash, 1)
	go func() {
		time.Sleep(4 * time.Second)
		begin := time.Since(rec.Start())
		d, err := w.CrashProducer(ctx, 0, time.Second)
		crashed <- crash{d, err, begin, time.Since(rec.Start())}
	}()
	st, err := w.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cr := <-crashed
	if cr.err != nil {
		t.Fatalf("crash: %v (%v)", cr.err, cr.d)
	}
	t.Logf("crash at %.2fs-%.2fs: %v", cr.begin.Seconds(), cr.end.Seconds(), cr.d)
	t.Logf("workload: %+v", st)
	if _, err := w.FinalRead(ctx, adm); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	before, _ := cr.d["processes_before"].([]int)
	after, _ := cr.d["processes_after"].([]int)
	idBefore, _ := cr.d["producer_id_before"].(int64)
	idAfter, _ := cr.d["producer_id_after"].(int64)
	if len(before) != 8 || len(after) != 8 || idBefore < 0 || idAfter < 0 || idBefore == idAfter {
		t.Fatalf("crash details %v", cr.d)
	}

	evs, torn, err := histories.ReadFile(path)
	if err != nil || torn {
		t.Fatalf("history: %v (torn %v)", err, torn)
	}
	type at struct {
		p int32
		o int64
	}
	final := map[at]string{}
	var acked []histories.SendValue
	nCrashed, okOld, okNew, okOther := 0, 0, 0, 0
	for _, e := range evs {
		switch {
		case e.F == histories.FSend && e.Type == histories.Info && e.Error == CauseCrashed:
			if !slices.Contains(before, e.Process) {
				t.Errorf("a send of process %d (not the crashed client's) ended crashed", e.Process)
			}
			nCrashed++
		case e.F == histories.FSend && e.Type == histories.OK:
			var v histories.SendValue
			_ = e.Decode(&v)
			acked = append(acked, v)
			switch {
			case slices.Contains(before, e.Process):
				okOld++
				if time.Duration(e.Time) > cr.end {
					t.Errorf("process %d of the crashed client got an ok at %.2fs, after the crash", e.Process, time.Duration(e.Time).Seconds())
				}
			case slices.Contains(after, e.Process):
				okNew++
			default:
				okOther++
			}
		case e.F == histories.FFinalRead && e.Type == histories.OK:
			var v histories.ReadResult
			_ = e.Decode(&v)
			for _, r := range v.Records {
				final[at{r.Partition, r.Offset}] = r.Value
			}
		}
	}
	lost := 0
	for _, s := range acked {
		if final[at{s.Partition, *s.Offset}] != s.Value {
			lost++
		}
	}
	t.Logf("sends: %d acked (old client %d, its successor %d, producer 1 %d), %d crashed in flight, %d lost",
		len(acked), okOld, okNew, okOther, nCrashed, lost)
	if nCrashed == 0 || okOld == 0 || okNew == 0 || okOther == 0 || lost != 0 {
		t.Errorf("want sends crashed in flight, acks before and after the crash and from producer 1, none lost")
	}
	if st.Errors[CauseCrashed] != int64(nCrashed) {
		t.Errorf("stats count %d crashed, the history %d", st.Errors[CauseCrashed], nCrashed)
	}

	// The log: each record's producer id, by the process that wrote it.
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Bootstrap()...), kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{
		topic: {0: kgo.NewOffset().AtStart(), 1: kgo.NewOffset().AtStart()}}))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ids := map[string]map[int64]int{"old": {}, "new": {}}
	read := 0
	for read < len(final) && ctx.Err() == nil {
		fs := cl.PollFetches(ctx)
		fs.EachRecord(func(r *kgo.Record) {
			read++
			var pid int
			fmt.Sscanf(strings.TrimPrefix(string(r.Value), "p"), "%d-", &pid)
			switch {
			case slices.Contains(before, pid):
				ids["old"][r.ProducerID]++
			case slices.Contains(after, pid):
				ids["new"][r.ProducerID]++
			}
		})
	}
	t.Logf("producer ids in the log: old client's processes %v, new client's %v (before %d, after %d)", ids["old"], ids["new"], idBefore, idAfter)
	if len(ids["old"]) != 1 || ids["old"][idBefore] == 0 || len(ids["new"]) != 1 || ids["new"][idAfter] == 0 {
		t.Errorf("producer ids in the log: %v, want the old processes' records all %d, the new ones' all %d", ids, idBefore, idAfter)
	}
}
