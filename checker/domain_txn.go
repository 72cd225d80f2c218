package checker

import "github.com/kchaos/kchaos/checker/txncheck"

// transactions is the transactions domain, package txncheck: what a
// transactional producer and read_committed readers are promised. The
// decoding of txn ops is in txn.go; txn-duplicate is found in the log
// domain's pass over the values read (order.go), and the committed sends
// no read could judge join the log domain's unseen.
var transactions = port(txncheck.Analyzer,
	func(x *Anomalies) *txncheck.TxnAnomalies { return &x.TxnAnomalies },
	glue[*txncheck.Found]{
		place: func(r *Result, f *txncheck.Found) { r.Anomalies.Unseen = append(r.Anomalies.Unseen, f.Unseen...) },
		stats: func(st *Stats, f *txncheck.Found) { st.Txns = f.Stats }})

// Anomaly names of transactions (package txncheck owns them).
const (
	TxnLostWrite       = txncheck.TxnLostWrite
	TxnAbortedRead     = txncheck.TxnAbortedRead
	TxnUncommittedRead = txncheck.TxnUncommittedRead
	TxnDuplicate       = txncheck.TxnDuplicate
	TxnTorn            = txncheck.TxnTorn
	G0                 = txncheck.G0
	G1c                = txncheck.G1c
	txnHanging         = txncheck.TxnHanging
)

// hangingMargin is how much longer than its timeout a transaction must
// stay open after the final heal before it counts as hanging (package
// txncheck owns it).
const hangingMargin = txncheck.HangingMargin
