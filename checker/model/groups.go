package model

// Groups is what a history holds of consumer groups (docs/HISTORY.md,
// "Consumer groups"): the checker fills it as the history streams, since
// some of it depends on what was true at a moment (what the group had
// committed when a member was assigned a partition, or when a commit was
// invoked); the consumer-group analyzer (package groupcheck) reads it.
type Groups struct {
	GroupNames Names             // group names, numbered in order first seen
	Members    map[int32]*Member // client process -> its membership
	Commits    []Commit          // commit ops, in invoke order
	Rebals     []Rebalance       // rebalances members learned, in completion order
	GPolls     []GroupPoll       // ok polls of group members, in completion order
	Backs      []Back            // commit-backwards found while streaming
	Resumed    []Resumed         // where a member resumed a partition it was assigned
	Outside    []Outside         // deliveries outside the client's assignment
	Resets     []Reset           // where a latest group's member may have reset
	GoneAt     map[int32]int64   // member process -> when an info retired it
	ContTo     map[int32]int32   // member process -> the process that continues its client
	ReadBacks  []ReadBack        // group-final ops, in invoke order (groupfinal.go)
}

// HeldBy is the process that holds what process p held: p, or the last
// process that continues its client (a subscribe with "continues").
func (g *Groups) HeldBy(p int32) int32 {
	for {
		q, ok := g.ContTo[p]
		if !ok {
			return p
		}
		p = q
	}
}

// Member is one process's membership of a group.
type Member struct {
	Group  int32
	Name   string
	ID     string
	OK     bool  // its subscribe completed ok
	Latest bool  // offset_reset latest
	RC     bool  // it polled at read_committed
	SubAt  int64 // when its subscribe was invoked
	// Protocol is the group protocol its subscribe asked for (classic or
	// consumer): what the client was asked to run, which a client may
	// fall back from (the coordinator's read-back says what ran).
	Protocol string
}

// CommittedAt is the highest offset a group committed (ok) on a partition
// so far, and the commit that did (-1: none).
type CommittedAt struct {
	Off    int64
	Commit int32
}

// Commit is one commit op.
type Commit struct {
	Group, Proc int32
	Gen         int32
	HasGen      bool
	MID         string
	Auto        bool
	Typ         uint8 // OpOpen, OpOK, OpFail, OpInfo
	Index       int64
	Call, Ret   int64
	Err         string
	Parts       []CommitPart
}

// CommitPart is one partition of a commit.
type CommitPart struct {
	TP  int32
	Off int64
	OK  bool // an ok completion listed it: it committed
	// Reset: its member had not delivered the partition since an
	// assignment recorded while the group had no ok commit of it (or
	// held no assignment of it): it may commit a latest reset's position
	// (package groupcheck, latest.go).
	Reset bool
	Prev  CommittedAt // the group's commit of tp when this one was invoked
	// Epoch is the leader epoch the commit carried with Off (-1: none;
	// NoEpochRecorded: the history does not say).
	Epoch int32
}

// NoEpochRecorded is a CommitPart's Epoch when the history does not
// record the commit's leader epochs.
const NoEpochRecorded int32 = -2

// Rebalance is one rebalance a member learned.
type Rebalance struct {
	Group, Proc             int32
	Gen                     int32
	HasGen                  bool
	MID                     string
	Index, At               int64
	Assigned, Revoked, Lost []int32 // tps
}

// GroupPoll is an ok poll of a group member (History.Polls[Poll]).
type GroupPoll struct {
	Poll, Group, Proc int32
	Gen               int32
	HasGen            bool
	MID               string
}

// Resumed is where a member process resumed a partition it was
// assigned: its first delivery there (gpoll, off) and what the group had
// committed (ok) when the assignment was recorded (-1: nothing). A
// redelivery's text claims a resume from the committed offset only when
// the two agree.
type Resumed struct {
	Proc, TP, GPoll int32
	Committed, Off  int64
}

// Back is a commit-backwards found while streaming.
type Back struct {
	Kind         string
	Group, TP    int32
	Commit       int32 // the higher commit
	Lower        int32 // CommittedLower: the lower commit
	Proc         int32 // ResumedBelowCommit: the member, its poll and rebalance
	GPoll, Rebal int32
	Committed    int64
	Resumed      int64
	At           int64
}

// Outside is the records of one partition that one group poll
// delivered outside its client's assignment: History.Recs[Start:End].
type Outside struct {
	GPoll, TP  int32
	Start, End int32
	Holders    []int32 // the live member processes that held tp then
	Held       []int32 // what the poll's process held then
}

// Reset is one such reset of a partition by a member: records
// below Below whose send was invoked at or before Bound may have been under its
// position.
type Reset struct {
	Group, TP int32
	Below     int64
	Bound     int64
}

// Names numbers strings in the order first seen (group names,
// transactional ids): per-op structs hold the small id, not the string.
type Names struct {
	List []string
	Idx  map[string]int32
}

// ID is s's number, given on first sight.
func (n *Names) ID(s string) int32 {
	if n.Idx == nil {
		n.Idx = map[string]int32{}
	}
	i, ok := n.Idx[s]
	if !ok {
		i = int32(len(n.List))
		n.Idx[s] = i
		n.List = append(n.List, s)
	}
	return i
}
