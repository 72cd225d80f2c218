//go:build integration

package workloads

import (
	"testing"

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
	evs := txnIntegration(t, DriverJava, "wl-java-txn")
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
