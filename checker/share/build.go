// Package share checks a share group (KIP-932, queues for Kafka) from the
// history's share ops (docs/HISTORY.md, "Share groups: what the checker
// proves"): every record the log holds reaches a final state, no record
// is held by two members at once, an accepted record is never delivered
// again, and delivery counts count.
//
// It is pure: it reads histories events and a log (what the final read
// holds), imports nothing that touches Docker or the network, and its
// verdicts rest only on acknowledgements the broker confirmed. An ack
// whose outcome is unknown makes the records it touches unknown, never
// lost.
package share

import (
	"fmt"

	"github.com/kchaos/kchaos/checker/model"
	"github.com/kchaos/kchaos/histories"
)

// IsOp reports whether f is a share-group op (histories/shares.go).
func IsOp(f string) bool {
	switch f {
	case histories.FShareSubscribe, histories.FSharePoll, histories.FShareAck, histories.FShareOffsets:
		return true
	}
	return false
}

// delivery is one record handed to a member by an ok share-poll.
type delivery struct {
	proc      int
	member    string
	part      int32
	off       int64
	val       string
	count     int32
	call, ret int64 // the poll's invoke and completion
	acks      []int // into Builder.acks, in invoke order
}

// ack is one record's acknowledgement.
type ack struct {
	proc            int
	status, outcome string // outcome "" while open: unknown
	err             string
	wire            *histories.ShareAckWire // the broker's answer read on the wire, if recorded
	call, ret       int64                   // ret -1 while open
}

// fault is a nemesis op, for causes and context.
type fault struct {
	f         string
	nodes     []int32
	call, ret int64
	// held is when the fault stopped acting (heldUntil; -1 never): ret
	// unless the analyzer set it.
	held int64
}

type recKey struct {
	part int32
	off  int64
}

type delKey struct {
	proc  int
	part  int32
	off   int64
	count int32
}

type pend struct {
	f    string
	call int64
	sub  histories.ShareSubscribeValue
	poll histories.SharePollValue
	ack  histories.ShareAckValue
}

// Builder collects a history's share ops one event at a time (Add), in
// file order. The operation model (one op open per process) is the
// caller's to enforce; Builder checks the share ops' own shapes.
type Builder struct {
	open    map[int]*pend
	group   string
	topic   string
	lockMS  int64
	limit   int32
	members map[int]string // process -> member name
	endedAt map[int]int64  // process -> when an op of it ended info
	dels    []delivery
	byRec   map[recKey][]int // record -> its deliveries, in completion order
	byDel   map[delKey]int   // a process's delivery of a record at a count -> the latest
	acks    []ack
	faults  []fault
	leaders map[int32][]model.Sample     // partition of topic -> the observer's samples (leaders.go)
	reqs    []reqAction                  // the request faults' actions (requests.go)
	offsets *histories.ShareOffsetsValue // the last ok share-offsets
	offAt   int64
	tried   bool // a share-offsets was invoked
	// finalAcks are the acks confirmed ok that Check set aside: invoked
	// after another delivery's confirmed final state (finalBefore).
	finalAcks map[int]bool
	last      int64
	// pollsAt are the completions of the ok share-polls, empty ones
	// included, in history order (stalled).
	pollsAt []int64
}

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder {
	return &Builder{open: map[int]*pend{}, members: map[int]string{}, endedAt: map[int]int64{},
		byRec: map[recKey][]int{}, byDel: map[delKey]int{}}
}

// used reports whether the history had any share op.
func (b *Builder) used() bool { return b.group != "" || len(b.dels) > 0 || b.tried }

// nemesis records a nemesis op's completion (for causes and context).
func (b *Builder) nemesis(f string, nodes []int32, call, ret int64) {
	b.faults = append(b.faults, fault{f: f, nodes: nodes, call: call, ret: ret, held: ret})
}

// Add takes a share op's event (IsOp(e.F)). A field the contract
// requires that is missing, or a completion that contradicts its invoke,
// is an error naming the field (input.go): bad input, never a zero.
func (b *Builder) Add(e *histories.Event) error {
	b.last = max(b.last, e.Time)
	p := e.Process
	if e.Type == histories.Invoke {
		pd := &pend{f: e.F, call: e.Time}
		switch e.F {
		case histories.FShareSubscribe:
			if err := e.Decode(&pd.sub); err != nil {
				return fmt.Errorf("%s invoke value: %w", e.F, histories.FieldError(err))
			}
			if err := b.checkSubscribe("share-subscribe invoke value", pd.sub, nil); err != nil {
				return err
			}
			b.group, b.topic, b.lockMS, b.limit = pd.sub.Group, pd.sub.Topic, pd.sub.LockMS, pd.sub.DeliveryLimit
			b.members[p] = pd.sub.Member
		case histories.FSharePoll:
			if err := e.Decode(&pd.poll); err != nil {
				return fmt.Errorf("%s invoke value: %w", e.F, histories.FieldError(err))
			}
		case histories.FShareAck:
			v, err := decodeAcks(e, "share-ack invoke value", false)
			if err != nil {
				return err
			}
			// An ack names a delivery of its own process, by partition,
			// offset and count: one its earlier share-polls delivered.
			for _, a := range v.Acks {
				if _, ok := b.byDel[delKey{p, a.Partition, a.Offset, a.DeliveryCount}]; !ok {
					return fmt.Errorf("share-ack invoke value: process %d acks partition %d offset %d delivery %d, which was never delivered to it",
						p, a.Partition, a.Offset, a.DeliveryCount)
				}
			}
			pd.ack = v
		case histories.FShareOffsets:
			b.tried = true
		}
		b.open[p] = pd
		return nil
	}
	pd := b.open[p]
	if pd == nil || pd.f != e.F {
		return fmt.Errorf("process %d completes %s without its invoke", p, e.F)
	}
	delete(b.open, p)
	if e.Type == histories.Info {
		b.endedAt[p] = e.Time
	}
	switch e.F {
	case histories.FShareSubscribe:
		var v histories.ShareSubscribeValue
		if err := e.Decode(&v); err != nil {
			return fmt.Errorf("%s %s value: %w", e.F, e.Type, histories.FieldError(err))
		}
		return b.checkSubscribe(fmt.Sprintf("share-subscribe %s value", e.Type), v, &pd.sub)
	case histories.FSharePoll:
		if e.Type == histories.OK {
			b.pollsAt = append(b.pollsAt, e.Time)
			return b.polled(p, pd, e)
		}
	case histories.FShareAck:
		return b.acked(p, pd, e)
	case histories.FShareOffsets:
		if e.Type == histories.OK {
			var v histories.ShareOffsetsValue
			if err := e.Decode(&v); err != nil {
				return fmt.Errorf("%s ok value: %w", e.F, histories.FieldError(err))
			}
			if err := checkOffsets(v); err != nil {
				return err
			}
			b.offsets, b.offAt = &v, e.Time
		}
	}
	return nil
}

func (b *Builder) polled(p int, pd *pend, e *histories.Event) error {
	v, err := decodePoll(e, pd.poll)
	if err != nil {
		return err
	}
	for _, r := range v.Records {
		d := delivery{proc: p, member: b.members[p], part: r.Partition, off: r.Offset, val: r.Value,
			count: r.DeliveryCount, call: pd.call, ret: e.Time}
		if d.member == "" {
			d.member = v.Member
		}
		k := recKey{r.Partition, r.Offset}
		b.byRec[k] = append(b.byRec[k], len(b.dels))
		b.byDel[delKey{p, r.Partition, r.Offset, r.DeliveryCount}] = len(b.dels)
		b.dels = append(b.dels, d)
	}
	return nil
}

var statuses = []string{histories.AckAccept, histories.AckRelease, histories.AckReject, histories.AckRenew}
var outcomes = []string{histories.ShareOutcomeOK, histories.ShareOutcomeFail, histories.ShareOutcomeInfo}

// acked records an ack op's completion: each record's outcome as the
// completion reports it; a record it does not report, or an op that
// ended info without one, is unknown (info), and a fail op applied
// nothing.
func (b *Builder) acked(p int, pd *pend, e *histories.Event) error {
	var v histories.ShareAckValue
	if len(e.Value) > 0 {
		what := fmt.Sprintf("share-ack %s value", e.Type)
		var err error
		if v, err = decodeAcks(e, what, true); err != nil {
			return err
		}
		if err := sameAcks(what, pd.ack, v); err != nil {
			return err
		}
	}
	got := map[delKey]histories.ShareAck{}
	for _, a := range v.Acks {
		got[delKey{p, a.Partition, a.Offset, a.DeliveryCount}] = a
	}
	for _, a := range pd.ack.Acks {
		k := delKey{p, a.Partition, a.Offset, a.DeliveryCount}
		out := ack{proc: p, status: a.Status, outcome: histories.ShareOutcomeInfo, call: pd.call, ret: e.Time}
		if r, ok := got[k]; ok && r.Outcome != "" {
			out.outcome, out.err, out.wire = r.Outcome, r.Error, r.Wire
		}
		if e.Type == histories.Fail {
			out.outcome = histories.ShareOutcomeFail
		}
		di := b.byDel[k] // its invoke was refused unless it named a delivery
		b.dels[di].acks = append(b.dels[di].acks, len(b.acks))
		b.acks = append(b.acks, out)
	}
	return nil
}

// finish closes the share ops still open when the history ends: their
// outcome is unknown.
func (b *Builder) finish() {
	for p, pd := range b.open {
		if pd.f == histories.FShareAck {
			for _, a := range pd.ack.Acks {
				if di, ok := b.byDel[delKey{p, a.Partition, a.Offset, a.DeliveryCount}]; ok {
					b.dels[di].acks = append(b.dels[di].acks, len(b.acks))
					b.acks = append(b.acks, ack{proc: p, status: a.Status, outcome: histories.ShareOutcomeInfo, call: pd.call, ret: -1})
				}
			}
		}
		b.endedAt[p] = b.last
	}
	clear(b.open)
}

// Topic is the share group's topic ("" before a share-subscribe).
func (b *Builder) Topic() string { return b.topic }
