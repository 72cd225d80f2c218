// Package model holds the compact form of a decoded history that the
// checker's analyzers read (History: values, sends, polls, final reads,
// their records, the partitions with their observer samples and
// availability), so that an analyzer can live in a package of its own and
// read the tables without the checker's state machine. The checker fills
// a History one event at a time, with what it must follow while the
// history streams (Log: poll and send order; Transactions; Groups); the
// analyzers only read it. What the checker keeps only for decoding (open
// ops, each consumer's last poll, a group's committed offsets so far) is
// package checker's Checker.
package model

// Rec is one record a poll or final read returned: 24 bytes and no
// pointers, so that the garbage collector never scans the millions of
// them. TP and Val are the checker's numbers of the topic-partition and
// the value.
type Rec struct {
	TP, Val int32
	Off     int64
	Epoch   int32
}
