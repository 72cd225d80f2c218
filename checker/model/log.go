package model

// Log is what the checker follows of the log's order while the history
// streams, for the log-and-order analyzer (package logorder): the values
// seen at more than one offset, the polls that skipped ahead or went back
// in a consumer's order, and the sends acked below their process's
// previous ack.
type Log struct {
	DupAt             map[int32][]TPOff  // value seen at more than one offset -> the others
	PollGaps          []PollGap          // polls that began past the offset after the last
	PollBacks         []PollGap          // polls that began at or before the last offset
	NonmonotonicSends []NonmonotonicSend // sends acked below their process's previous ack there
}

// TPOff is a place in the log: a topic-partition and an offset.
type TPOff struct {
	TP  int32
	Off int64
}

// PollGap is a poll that did not begin right after the previous one of
// its consumer on the partition.
type PollGap struct {
	Proc, TP          int32
	PrevLast, First   int64
	PrevVal, FirstVal int32
	At                int64 // the poll's completion
	RC                bool  // the poll was read_committed
}

// NonmonotonicSend is an ok send acked below the previous ok send of its
// process on the partition.
type NonmonotonicSend struct {
	Prev, Next int32 // sends
}
