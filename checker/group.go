package checker

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/kchaos/kchaos/checker/model"
	"slices"

	"github.com/kchaos/kchaos/histories"
)

// Consumer groups (docs/HISTORY.md "Consumer groups"): how subscribe,
// commit, rebalance and the group fields of a poll are decoded, validated
// and kept. What the checks make of them is in groupcheck.go.
//
// Some of it must be followed as the history streams, because it depends
// on what was true at a moment: the highest offset the group had committed
// (ok) when a member was assigned a partition, or when a commit was
// invoked. The rest (deliveries, losses, redeliveries) is judged at the end.

// member is one process's membership of a group.
type member struct {
	group  int32
	name   string
	id     string
	ok     bool  // its subscribe completed ok
	latest bool  // offset_reset latest
	rc     bool  // it polled at read_committed
	subAt  int64 // when its subscribe was invoked
}

// groupTP is a partition of a group.
type groupTP struct {
	group, tp int32
}

// committedAt is the highest offset a group committed (ok) on a partition
// so far, and the commit that did (-1: none).
type committedAt struct {
	off    int64
	commit int32
}

// commitOp is one commit op.
type commitOp struct {
	group, proc int32
	gen         int32
	hasGen      bool
	mid         string
	auto        bool
	typ         uint8 // opOpen, opOK, opFail, opInfo
	index       int64
	call, ret   int64
	err         string
	parts       []commitPart
}

// commitPart is one partition of a commit.
type commitPart struct {
	tp  int32
	off int64
	ok  bool // an ok completion listed it: it committed
	// reset: its member had not delivered the partition since an
	// assignment recorded while the group had no ok commit of it (or
	// held no assignment of it): it may commit a latest reset's position
	// (grouplatest.go).
	reset bool
	prev  committedAt // the group's commit of tp when this one was invoked
}

// rebalOp is one rebalance a member learned.
type rebalOp struct {
	group, proc             int32
	gen                     int32
	hasGen                  bool
	mid                     string
	index, at               int64
	assigned, revoked, lost []int32 // tps
}

// groupPoll is an ok poll of a group member (c.polls[poll]).
type groupPoll struct {
	poll, group, proc int32
	gen               int32
	hasGen            bool
	mid               string
}

// resumeAt waits for a newly assigned member's first delivery of a
// partition, holding what the group had committed when it was assigned.
type resumeAt struct {
	at    committedAt
	rebal int32
}

// resumedAt is where a member process resumed a partition it was
// assigned: its first delivery there (gpoll, off) and what the group had
// committed (ok) when the assignment was recorded (-1: nothing). A
// redelivery's text claims a resume from the committed offset only when
// the two agree.
type resumedAt struct {
	proc, tp, gpoll int32
	committed, off  int64
}

// backOp is a commit-backwards found while streaming.
type backOp struct {
	kind         string
	group, tp    int32
	commit       int32 // the higher commit
	lower        int32 // CommittedLower: the lower commit
	proc         int32 // ResumedBelowCommit: the member, its poll and rebalance
	gpoll, rebal int32
	committed    int64
	resumed      int64
	at           int64
}

// groupPend is what an open group op carries to its completion.
type groupPend struct {
	group  int32
	gen    int32
	hasGen bool
	mid    string
	commit int32 // commit: its index
	clock  int64 // poll: the commit clock at its invoke (groupauto.go)
	rebal  *rebalVal
	sub    *subVal
}

// groupState is the part of the Checker that holds consumer groups.
type groupState struct {
	groupNames names
	members    map[int32]*member // client process -> its membership
	commits    []commitOp
	rebals     []rebalOp
	gpolls     []groupPoll
	lastGen    map[int32]int32 // process -> generation of its last group poll or rebalance
	committed  map[groupTP]committedAt
	resume     map[procTP]resumeAt
	backs      []backOp
	resumed    []resumedAt
	holds      histories.Holdings[int32] // member process -> the tps it holds (groupoutside.go)
	outside    []outsideRun
	resets     []resetEp       // where a latest group's member may have reset (grouplatest.go)
	goneAt     map[int32]int64 // member process -> when an info retired it
	contTo     map[int32]int32 // member process -> the process that continues its client
	autoState
}

func (c *Checker) groupID(name string) int32 {
	if c.members == nil {
		c.members = map[int32]*member{}
		c.lastGen = map[int32]int32{}
		c.committed = map[groupTP]committedAt{}
		c.resume = map[procTP]resumeAt{}
		c.goneAt = map[int32]int64{}
	}
	return c.groupNames.id(name)
}

// subVal is a decoded subscribe value; a nil field was absent.
type subVal struct {
	Group       *string `json:"group"`
	Member      *string `json:"member"`
	Topic       *string `json:"topic"`
	Protocol    *string `json:"protocol"`
	OffsetReset *string `json:"offset_reset"`
	MemberID    *string `json:"member_id"`
	Continues   *int    `json:"continues"`
}

// commitVal is a decoded commit value.
type commitVal struct {
	Group      *string            `json:"group"`
	MemberID   *string            `json:"member_id"`
	Generation *int32             `json:"generation"`
	Topic      *string            `json:"topic"`
	Offsets    *map[string]int64  `json:"offsets"`
	Errors     *map[string]string `json:"errors"`
	Auto       *bool              `json:"auto"`
}

// rebalVal is a decoded rebalance value.
type rebalVal struct {
	Group      *string  `json:"group"`
	MemberID   *string  `json:"member_id"`
	Generation *int32   `json:"generation"`
	Topic      *string  `json:"topic"`
	Assigned   *[]int32 `json:"assigned"`
	Revoked    *[]int32 `json:"revoked"`
	Lost       *[]int32 `json:"lost"`
}

// decodeGroup unmarshals a group op's value into v, naming the field of a
// type error.
func decodeGroup(what string, raw []byte, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%s: %w", what, histories.FieldError(err))
	}
	return nil
}

// need names the first absent field of fs.
func need(what string, fs ...struct {
	ok   bool
	name string
}) error {
	for _, f := range fs {
		if !f.ok {
			return fmt.Errorf("%s: missing field %q", what, f.name)
		}
	}
	return nil
}

type field = struct {
	ok   bool
	name string
}

// checkTopic rejects a topic other than the run's.
func (c *Checker) checkTopic(what, topic string) error {
	if c.opts.Topic != "" && topic != c.opts.Topic {
		return fmt.Errorf("%s: field \"topic\": %q, but the run's topic is %q", what, topic, c.opts.Topic)
	}
	return nil
}

// memberOf returns process p's membership of group g, or an error naming
// the field: a group op by a process that is no member is bad input.
func (c *Checker) memberOf(what string, p int32, g string) (*member, error) {
	m := c.members[p]
	if m == nil || !m.ok || c.groupNames.list[m.group] != g {
		return nil, fmt.Errorf("%s: field \"group\": %q, but process %d is not a member of it (no ok subscribe)", what, g, p)
	}
	return m, nil
}

func (c *Checker) invokeSubscribe(pd *pending, e *histories.Event) error {
	const what = "subscribe invoke value"
	if len(e.Value) == 0 {
		return errors.New(`subscribe invoke: missing field "value"`)
	}
	var v subVal
	if err := decodeGroup(what, e.Value, &v); err != nil {
		return err
	}
	if err := need(what, field{v.Group != nil && *v.Group != "", "group"}, field{v.Member != nil && *v.Member != "", "member"},
		field{v.Topic != nil, "topic"}, field{v.Protocol != nil, "protocol"}); err != nil {
		return err
	}
	if p := *v.Protocol; p != histories.ProtocolClassic && p != histories.ProtocolConsumer {
		return fmt.Errorf("%s: field \"protocol\": %q, want %q or %q", what, p, histories.ProtocolClassic, histories.ProtocolConsumer)
	}
	if r := v.OffsetReset; r != nil && *r != "earliest" && *r != "latest" {
		return fmt.Errorf("%s: field \"offset_reset\": %q, want earliest or latest", what, *r)
	}
	if err := c.checkTopic(what, *v.Topic); err != nil {
		return err
	}
	pd.gp = &groupPend{group: c.groupID(*v.Group), sub: &v}
	return nil
}

func (c *Checker) completeSubscribe(pd *pending, e *histories.Event) error {
	what := fmt.Sprintf("subscribe %s value", e.Type)
	inv := pd.gp.sub
	m := &member{group: pd.gp.group, name: *inv.Member, latest: inv.OffsetReset != nil && *inv.OffsetReset == "latest", subAt: pd.call}
	if len(e.Value) > 0 {
		var v subVal
		if err := decodeGroup(what, e.Value, &v); err != nil {
			return err
		}
		for _, f := range []struct {
			name      string
			got, want *string
		}{{"group", v.Group, inv.Group}, {"member", v.Member, inv.Member}, {"topic", v.Topic, inv.Topic}, {"protocol", v.Protocol, inv.Protocol}} {
			if f.got != nil && *f.got != *f.want {
				return fmt.Errorf("%s: field %q: %q, but its invoke named %q", what, f.name, *f.got, *f.want)
			}
		}
		if v.MemberID != nil {
			m.id = *v.MemberID
		}
	}
	m.ok = e.Type == histories.OK
	if inv.Continues != nil && m.ok {
		from := int32(*inv.Continues)
		if err := c.checkContinues("subscribe invoke value", from, int32(e.Process), m); err != nil {
			return atInvoke(pd, err) // the invoke carries "continues"
		}
		c.continueProcess(from, int32(e.Process)) // groupcontinue.go
	}
	if m.ok {
		c.holds.Subscribe(e.Process, inv.Continues)
	}
	c.members[int32(e.Process)] = m
	return nil
}

// groupPollInvoke reads the group fields of a poll invoke: the member's
// generation. A poll in a new generation starts the member's poll order
// afresh (a rebalance moved its positions to the committed offsets).
func (c *Checker) groupPollInvoke(pd *pending, e *histories.Event, group *string, mid *string, gen *int32) error {
	const what = "poll invoke value"
	if group == nil {
		return nil
	}
	p := int32(e.Process)
	m, err := c.memberOf(what, p, *group)
	if err != nil {
		return err
	}
	if gen == nil {
		return fmt.Errorf("%s: missing field \"generation\"", what)
	}
	gp := &groupPend{group: m.group, gen: *gen, hasGen: true, clock: c.clock}
	if mid != nil {
		gp.mid = *mid
	}
	if last, ok := c.lastGen[p]; ok && last != *gen {
		c.resetOrder(p, nil)
	}
	c.lastGen[p] = *gen
	m.rc = m.rc || pd.rc
	pd.gp = gp
	return nil
}

// resetOrder forgets the poll order of process p on tps (nil: all).
func (c *Checker) resetOrder(p int32, tps []int32) {
	if tps == nil {
		for k := range c.seqs {
			if k.proc == p {
				delete(c.seqs, k)
			}
		}
		return
	}
	for _, tp := range tps {
		delete(c.seqs, procTP{p, tp})
	}
}

// partitionOffsets reads a commit's partition-keyed offsets.
func (c *Checker) partitionOffsets(what, topic string, m map[string]int64) (map[int32]int64, error) {
	out := make(map[int32]int64, len(m))
	for k, o := range m {
		p, err := histories.ParsePartitionKey(k)
		if err != nil {
			return nil, fmt.Errorf("%s: field \"offsets\": bad partition key %q", what, k)
		}
		out[p] = o
	}
	for _, p := range sortedKeys(out) {
		if out[p] < 0 {
			return nil, fmt.Errorf("%s: field \"offsets\": partition %d at %d, negative", what, p, out[p])
		}
		if err := c.checkPlace(what+": field \"offsets\"", []byte(topic), p); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (c *Checker) invokeCommit(pd *pending, e *histories.Event) error {
	const what = "commit invoke value"
	if len(e.Value) == 0 {
		return errors.New(`commit invoke: missing field "value"`)
	}
	var v commitVal
	if err := decodeGroup(what, e.Value, &v); err != nil {
		return err
	}
	if err := need(what, field{v.Group != nil, "group"}, field{v.Topic != nil, "topic"}, field{v.Offsets != nil, "offsets"}); err != nil {
		return err
	}
	if err := c.checkTopic(what, *v.Topic); err != nil {
		return err
	}
	m, err := c.memberOf(what, int32(e.Process), *v.Group)
	if err != nil {
		return err
	}
	offs, err := c.partitionOffsets(what, *v.Topic, *v.Offsets)
	if err != nil {
		return err
	}
	op := commitOp{group: m.group, proc: int32(e.Process), index: e.Index, call: e.Time, ret: -1, auto: v.Auto != nil && *v.Auto}
	if v.Generation != nil {
		op.gen, op.hasGen = *v.Generation, true
	}
	if v.MemberID != nil {
		op.mid = *v.MemberID
	}
	for _, p := range sortedKeys(offs) {
		tp := c.tp([]byte(*v.Topic), p)
		prev, ok := c.committed[groupTP{m.group, tp}]
		if !ok {
			prev = committedAt{off: -1, commit: -1}
		}
		if op.auto {
			prev = c.autoPrev(m.group, op.proc, tp, offs[p]) // recorded late: groupauto.go
		}
		w, waiting := c.resume[procTP{op.proc, tp}]
		reset := waiting && w.at.commit < 0 || !c.holds.Holds(int(op.proc), tp)
		op.parts = append(op.parts, commitPart{tp: tp, off: offs[p], prev: prev, reset: reset})
	}
	pd.gp = &groupPend{group: m.group, commit: int32(len(c.commits))}
	c.commits = append(c.commits, op)
	return nil
}

func (c *Checker) completeCommit(pd *pending, e *histories.Event) error {
	ci := pd.gp.commit
	op := &c.commits[ci]
	op.ret, op.err = e.Time, e.Error
	switch e.Type {
	case histories.OK:
		op.typ = model.OpOK
	case histories.Fail:
		op.typ = model.OpFail
	default:
		op.typ = model.OpInfo
	}
	what := fmt.Sprintf("commit %s value", e.Type)
	if len(e.Value) == 0 {
		if e.Type == histories.OK {
			return errors.New(`commit ok: missing field "value"`)
		}
		return nil
	}
	var v commitVal
	if err := decodeGroup(what, e.Value, &v); err != nil {
		return err
	}
	if v.Group != nil && *v.Group != c.groupNames.list[op.group] {
		return fmt.Errorf("%s: field \"group\": %q, but its invoke named %q", what, *v.Group, c.groupNames.list[op.group])
	}
	if e.Type == histories.OK && v.Offsets == nil {
		return fmt.Errorf("%s: missing field \"offsets\"", what)
	}
	if v.Offsets == nil {
		return nil
	}
	topic := c.TPs[op.parts[0].tp].Topic
	if v.Topic != nil {
		topic = *v.Topic
	}
	offs, err := c.partitionOffsets(what, topic, *v.Offsets)
	if err != nil {
		return err
	}
	for _, p := range sortedKeys(offs) {
		i := slices.IndexFunc(op.parts, func(cp commitPart) bool { return c.TPs[cp.tp].Partition == p && c.TPs[cp.tp].Topic == topic })
		if i < 0 {
			return fmt.Errorf("%s: field \"offsets\": partition %d, which its invoke did not ask for", what, p)
		}
		if offs[p] != op.parts[i].off {
			return fmt.Errorf("%s: field \"offsets\": partition %d at %d, but its invoke asked for %d", what, p, offs[p], op.parts[i].off)
		}
		if e.Type == histories.OK {
			op.parts[i].ok = true
		}
	}
	if e.Type != histories.OK {
		return nil
	}
	for _, cp := range op.parts {
		if !cp.ok {
			continue
		}
		key := groupTP{op.group, cp.tp}
		cur, ok := c.committed[key]
		if cp.prev.commit >= 0 && cp.off < cp.prev.off {
			// Below what the group had committed before this commit was
			// asked for: concurrent commits cannot explain it.
			c.backs = append(c.backs, backOp{kind: CommittedLower, group: op.group, tp: cp.tp, commit: cp.prev.commit,
				lower: ci, proc: op.proc, gpoll: -1, rebal: -1, committed: cp.prev.off, resumed: cp.off, at: e.Time})
		}
		if !ok || cp.off > cur.off {
			c.committed[key] = committedAt{off: cp.off, commit: ci}
			c.noteCommitted(key, c.committed[key])
		}
	}
	return nil
}

// groupPolled notes an ok poll of a group member (c.polls' last): the
// first record of each partition a newly assigned member delivers says
// where the group resumed it.
func (c *Checker) groupPolled(pd *pending, e *histories.Event) {
	gp := pd.gp
	pi := int32(len(c.Polls) - 1)
	p := int32(e.Process)
	gi := int32(len(c.gpolls))
	c.gpolls = append(c.gpolls, groupPoll{poll: pi, group: gp.group, proc: p, gen: gp.gen, hasGen: gp.hasGen, mid: gp.mid})
	op := c.Polls[pi]
	c.noteDelivered(p, gp.clock, &op)
	c.noteOutside(gi, p, gp.group, &op) // groupoutside.go
	for i := op.Start; i < op.End; i++ {
		r := c.Recs[i]
		key := procTP{p, r.TP}
		w, ok := c.resume[key]
		if !ok {
			continue
		}
		delete(c.resume, key) // recs are sorted by offset: r is the first
		c.resumed = append(c.resumed, resumedAt{proc: p, tp: r.TP, gpoll: gi, committed: w.at.off, off: r.Off})
		if w.at.commit < 0 {
			c.resets = append(c.resets, resetEp{group: gp.group, tp: r.TP, below: r.Off, bound: e.Time})
		}
		if w.at.commit >= 0 && r.Off < w.at.off {
			c.backs = append(c.backs, backOp{kind: ResumedBelowCommit, group: gp.group, tp: r.TP, commit: w.at.commit,
				lower: -1, proc: p, gpoll: gi, rebal: w.rebal, committed: w.at.off, resumed: r.Off, at: e.Time})
		}
	}
}
