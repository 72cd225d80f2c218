// Package model holds the compact form of a decoded history that the
// checker's domains read. Today it holds the record, which the log domain
// and the linearizability model (package logmodel) share without copying;
// the rest of the checker's tables are to follow it here (see doc.go of
// package checker), so that each domain can become its own package.
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
