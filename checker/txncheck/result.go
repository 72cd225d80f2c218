package txncheck

import (
	"github.com/kchaos/kchaos/checker/judge"
)

// Anomaly names of transactions (docs/HISTORY.md, "Transactions: what the
// checker proves"). G0 and G1c are Adya's names, as Jepsen's kafka
// workload uses them.
const (
	TxnLostWrite       = "txn-lost-write"
	TxnAbortedRead     = "txn-aborted-read"
	TxnUncommittedRead = "txn-uncommitted-read"
	TxnDuplicate       = "txn-duplicate"
	TxnTorn            = "txn-torn"
	G0                 = "G0"
	G1c                = "G1c"
)

// TxnRef names a txn op: its transactional id, where its invoke is in the
// history, its process and outcome.
type TxnRef struct {
	TransactionalID string  `json:"transactional_id"`
	Index           int64   `json:"index"` // the history index of its invoke
	Process         int     `json:"process"`
	Type            string  `json:"type"` // ok, fail or info
	Error           string  `json:"error,omitempty"`
	InvokedS        float64 `json:"invoked_s"`
	DoneS           float64 `json:"done_s,omitempty"`
	// EndInvokedS is when it asked to end (EndTxn), if recorded.
	EndInvokedS *float64 `json:"end_invoked_s,omitempty"`
}

// TxnValueEntry is one value of a txn (txn-aborted-read,
// txn-uncommitted-read, txn-duplicate): where it was read, by whom, and
// the txn that sent it.
type TxnValueEntry struct {
	Topic        string      `json:"topic"`
	Partition    int32       `json:"partition"`
	Value        string      `json:"value"`
	Offsets      []int64     `json:"offsets"`
	LeaderEpochs []int32     `json:"leader_epochs,omitempty"`
	ReadBy       []string    `json:"read_by,omitempty"`
	Txn          TxnRef      `json:"txn"`
	Where        judge.Where `json:"where"`
	Text         string      `json:"text"`
}

// TxnLostWriteEntry is one send of a committed txn missing from the final
// read of its partition.
type TxnLostWriteEntry struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Offset    int64  `json:"offset"`
	Value     string `json:"value"`
	Txn       TxnRef `json:"txn"`
	// AtCommit is the partition when the txn completed.
	AtCommit judge.Where `json:"at_commit"`
	// Now is what the final read holds at that offset, if anything.
	Now *judge.Held `json:"now,omitempty"`
	// Faults are the faults made between the commit and the final read
	// (the last 5); FinalEpoch the leader epoch observed at the final read.
	Faults []judge.FaultRef `json:"faults,omitempty"`
	// Requests are the request faults' actions in the same window.
	Requests   []judge.RequestRef `json:"requests,omitempty"`
	FinalEpoch *int32             `json:"final_leader_epoch,omitempty"`
	// SeenS and SeenBy: a txn whose outcome is not ok committed all the
	// same when a read_committed read saw its value (the first such read).
	SeenS  *float64 `json:"seen_s,omitempty"`
	SeenBy string   `json:"seen_by,omitempty"`
	// JudgedBy is the completed final read that lacks the value, when it
	// is not the partition's last one.
	JudgedBy *judge.FinalReadRef `json:"judged_by,omitempty"`
	Text     string              `json:"text"`
}

// TxnTornEntry is one txn seen in part: some of its values are in the
// final reads, some missing from final reads that should hold them, or a
// committed txn's values are out of their send order on a partition.
type TxnTornEntry struct {
	Txn        TxnRef          `json:"txn"`
	Partitions []TornPartition `json:"partitions"`
	Where      judge.Where     `json:"where"`
	// Faults are the faults made between the txn's completion and the
	// last final read judging it (the last 5); Requests the request
	// faults' actions then (the last 5).
	Faults   []judge.FaultRef   `json:"faults,omitempty"`
	Requests []judge.RequestRef `json:"requests,omitempty"`
	Text     string             `json:"text"`
}

// TornPartition is one partition of a torn txn. Offsets are its values'
// offsets in send order (in the final read, else as acked; -1 unknown).
type TornPartition struct {
	Topic      string   `json:"topic"`
	Partition  int32    `json:"partition"`
	Present    []string `json:"present,omitempty"`
	Missing    []string `json:"missing,omitempty"`
	Values     []string `json:"values"`
	Offsets    []int64  `json:"offsets"`
	OutOfOrder bool     `json:"out_of_order,omitempty"`
	// MarkerMissing are the missing values whose records are in the log
	// without their commit marker: a read_uncommitted final read holds
	// them, only read_committed ones that should hold them lack them.
	MarkerMissing []string `json:"marker_missing,omitempty"`
	// Vanished are the missing values that a completed final read holds,
	// lost from the log since (a read_uncommitted final read that should
	// hold them lacks them, or no read_uncommitted read holds them). A
	// missing value in neither list is in no final read at all.
	Vanished []string `json:"vanished,omitempty"`
	// FinalReadIsolation is the isolation of the final read judging it.
	FinalReadIsolation string `json:"final_read_isolation"`
}

// CycleEntry is one dependency cycle among txns (G0: ww edges only; G1c:
// wr edges only): the shortest cycle through the first txn of a strongly
// connected component, each step with what justifies it.
type CycleEntry struct {
	Txns  []TxnRef    `json:"txns"`
	Steps []CycleStep `json:"steps"`
	// SCCSize is the number of txns in the strongly connected component.
	SCCSize int         `json:"scc_size"`
	Where   judge.Where `json:"where"`
	Text    string      `json:"text"`
}

// CycleStep is one edge of a cycle, from Txns[From] to Txns[To]. A ww
// step: Values[0] at Offsets[0] immediately precedes Values[1] at
// Offsets[1] among the txn values of the partition; a wr step: To's poll
// read Values[0], sent by From, at Offsets[0].
type CycleStep struct {
	Type         string   `json:"type"` // ww or wr
	From         int      `json:"from"`
	To           int      `json:"to"`
	Topic        string   `json:"topic"`
	Partition    int32    `json:"partition"`
	Values       []string `json:"values"`
	Offsets      []int64  `json:"offsets"`
	LeaderEpochs []int32  `json:"leader_epochs,omitempty"`
}

// TxnStats describes the run's transactions.
type TxnStats struct {
	OK          int `json:"ok"`
	Fail        int `json:"fail"`
	Info        int `json:"info"`
	Sends       int `json:"sends"`
	PollRecords int `json:"poll_records"`
	// NotLinearized lists the partitions left out of the linearizability
	// model: they hold txn writes or read_committed reads, which it does
	// not model.
	NotLinearized []string `json:"not_linearized,omitempty"`
	// WWEdges and WREdges count the dependency graph's edges.
	WWEdges int `json:"ww_edges"`
	WREdges int `json:"wr_edges"`
}
