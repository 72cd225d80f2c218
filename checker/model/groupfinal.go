package model

// ReadBack is one group-final op (docs/HISTORY.md, "Consumer groups"):
// what the group coordinator held of a group at the end of the run. Only
// an ok one says anything; an info or open one is kept so that the stats
// can say nothing was judged from it.
type ReadBack struct {
	Group, Proc int32
	Index       int64 // the history index of its invoke
	Call, Ret   int64
	Typ         uint8 // OpOpen, OpOK, OpFail, OpInfo
	Err         string
	Topic       string
	// Offsets is, per tp of Topic, the committed offset read back; a
	// partition of Topic absent from it and from Errors has none.
	Offsets map[int32]int64
	Epochs  map[int32]int32  // tp -> the leader epoch committed with it (-1: none)
	Errors  map[int32]string // tp -> the coordinator's error for it: not judged
	// The description, for the stats (not judged).
	Type, State, Protocol string
	Generation            *int32
	Members               int
	Coordinator           *int32
	DescribeError         string
}
