//go:build integration

package workloads

import (
	"context"
	"testing"
	"time"

	"github.com/kchaos/kchaos/histories"
)

// TestJavaTxnWorkload is TestTxnWorkload with the java driver (the
// cluster's own kafka-clients): 20 s of transactions by 3 transactional
// KafkaProducers (polls on through their read_committed KafkaConsumers,
// abort_rate 0.3, crash_rate 0.1), a read_committed and a
// read_uncommitted consumer beside them, then the final read; the history
// is judged by checkTxnHistory as franz-go's: committed, aborted and
// fenced transactions all occurred, every committed value is in the final
// read at its offset and no value of a failed transaction is, the
// read_uncommitted consumer saw aborted values, and every crashed
// producer's zombie transaction failed fenced.
func TestJavaTxnWorkload(t *testing.T) {
	c, adm := sharedAdmin(t)
	topic := "wl-java-txn"
	createTopic(t, adm, topic, [][]int32{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	path, rec := newHistory(t, t.TempDir())
	cfg := Config{Driver: DriverJava, ClusterVersion: c.Config().KafkaVersion, // as the harness passes it
		Topic: topic, Partitions: 3, Producers: 3, Consumers: 1,
		Isolation: histories.ReadCommitted, RequestTimeout: Duration(3 * time.Second),
		Transactions: TxnConfig{Enabled: true, Polls: true, AbortRate: 0.3, CrashRate: 0.1},
		Duration:     Duration(20 * time.Second), FinalReadTimeout: Duration(90 * time.Second)}
	javaBuildFor(ctx, t, cfg)
	w, err := New(cfg, c.Bootstrap(), rec)
	if err != nil {
		t.Fatal(err)
	}
	ru := cfg
	ru.Isolation, ru.Transactions, ru.Consumers = histories.ReadUncommitted, TxnConfig{}, 1
	wu, err := New(ru, c.Bootstrap(), rec)
	if err != nil {
		t.Fatal(err)
	}
	uc, err := wu.drv.NewConsumer(wu.cfg, c.Bootstrap(), 500)
	if err != nil {
		t.Fatal(err)
	}
	defer uc.Close()
	ustop, ustopNow := context.WithTimeout(ctx, cfg.Duration.Std()+15*time.Second)
	defer ustopNow()
	udone := make(chan error, 1)
	go func() { udone <- wu.consume(ustop, uc, []int32{0, 1, 2}) }()

	progress := w.Progress(ctx, 5*time.Second)
	go func() {
		for s := range progress {
			t.Logf("%5.1fs: %d txns, %d committed, %d aborted, %d unknown, %d crashes, %d fenced, %d polls, errors %v",
				s.Elapsed.Seconds(), s.Txns, s.TxnCommitted, s.TxnAborted, s.TxnUnknown, s.TxnCrashes, s.TxnFenced, s.Polls, s.Errors)
		}
	}()
	st, err := w.Run(ctx)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	t.Logf("run: %+v", st)
	time.Sleep(2 * time.Second) // the read_uncommitted consumer catches up
	ustopNow()
	if err := <-udone; err != nil {
		t.Fatalf("read_uncommitted consumer: %v", err)
	}
	fr, err := w.FinalRead(ctx, adm)
	if err != nil {
		t.Fatalf("final read: %v", err)
	}
	t.Logf("final read: %+v", fr)
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	evs, torn, err := histories.ReadFile(path)
	if err != nil || torn {
		t.Fatalf("read history: %v (torn %v)", err, torn)
	}
	checkTxnHistory(t, evs, 3)
	// The producer id and epoch, read by reflection from the client's
	// TransactionManager (TxnHandle.producerIdAndEpoch): known for every
	// committed transaction.
	unknown := 0
	for _, e := range evs {
		if e.F == histories.FTxn && e.Type == histories.OK {
			var v txnDone
			if e.Decode(&v) != nil || v.ProducerID == nil || *v.ProducerID < 0 || v.ProducerEpoch == nil || *v.ProducerEpoch < 0 {
				unknown++
			}
		}
	}
	if unknown > 0 {
		t.Errorf("%d committed transactions without a known producer id and epoch", unknown)
	}
}
