package checker

import "github.com/kchaos/kchaos/checker/logorder"

// logOrder is the plain log-and-order domain, package logorder: what the
// contract (v1) promises of acked sends, of each offset and value, and of
// each producer's and consumer's order. What it follows while the
// history streams (poll order, send order, values at two offsets) is
// decoded in client.go and reads.go (model.Log). Its pass over the values
// read also finds txn-duplicate, which it hands to the transactions
// domain's list.
var logOrder = port(logorder.Analyzer,
	func(x *Anomalies) *logorder.LogAnomalies { return &x.LogAnomalies },
	glue[*logorder.Found]{place: func(r *Result, f *logorder.Found) {
		r.Anomalies.TxnDuplicate = append(r.Anomalies.TxnDuplicate, f.TxnDuplicate...)
	}})

// The log entries that the report reads (package logorder owns them).
type (
	LostWriteEntry   = logorder.LostWriteEntry
	OffsetReuseEntry = logorder.OffsetReuseEntry
	Observed         = logorder.Observed
)
