package checker

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/checker/groupcheck"
	"github.com/kchaos/kchaos/checker/model"
	"github.com/kchaos/kchaos/histories"
)

// Consumer groups (docs/HISTORY.md "Consumer groups"): how subscribe,
// commit, rebalance and the group fields of a poll are decoded, validated
// and kept (model.Groups). What the checks make of them is package
// groupcheck.
//
// Some of it must be followed as the history streams, because it depends
// on what was true at a moment: the highest offset the group had committed
// (ok) when a member was assigned a partition, or when a commit was
// invoked. The rest (deliveries, losses, redeliveries) is judged at the end.

// groupTP is a partition of a group.
type groupTP struct {
	group, tp int32
}

// resumeAt waits for a newly assigned member's first delivery of a
// partition, holding what the group had committed when it was assigned.
type resumeAt struct {
	at    committedAt
	rebal int32
}

// groupPend is what an open group op carries to its completion.
type groupPend struct {
	group  int32
	gen    int32
	hasGen bool
	mid    string
	commit int32 // commit: its index
	final  int32 // group-final: its index in ReadBacks (groupfinal.go)
	clock  int64 // poll: the commit clock at its invoke (groupauto.go)
	rebal  *rebalVal
	sub    *subVal
}

// groupState is the part of the Checker that follows consumer groups
// while the history streams; what the analyzer reads is model.Groups
// (History.Groups).
type groupState struct {
	lastGen   map[int32]int32 // process -> generation of its last group poll or rebalance
	committed map[groupTP]committedAt
	resume    map[procTP]resumeAt
	holds     histories.Holdings[int32] // member process -> the tps it holds (groupoutside.go)
	autoState
}

// The group tables, under the names the streaming code uses (package
// model owns them).
type (
	member      = model.Member
	committedAt = model.CommittedAt
	commitOp    = model.Commit
	commitPart  = model.CommitPart
	rebalOp     = model.Rebalance
	groupPoll   = model.GroupPoll
	resumedAt   = model.Resumed
	backOp      = model.Back
	outsideRun  = model.Outside
	resetEp     = model.Reset
)

func (c *checker) groupID(name string) int32 {
	if c.Members == nil {
		c.Members = map[int32]*member{}
		c.lastGen = map[int32]int32{}
		c.committed = map[groupTP]committedAt{}
		c.resume = map[procTP]resumeAt{}
		c.GoneAt = map[int32]int64{}
	}
	return c.GroupNames.ID(name)
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
	// LeaderEpochs: the epochs the commit request carried (absent in
	// histories before it was recorded).
	LeaderEpochs map[string]int32 `json:"leader_epochs"`
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

// decodeRequired is decodeGroup for a value the op must have: an empty
// one is an error naming the field "value" of what's op ("commit invoke").
func decodeRequired(what string, raw []byte, v any) error {
	if len(raw) == 0 {
		return fmt.Errorf("%s: missing field \"value\"", strings.TrimSuffix(what, " value"))
	}
	return decodeGroup(what, raw, v)
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
func (c *checker) checkTopic(what, topic string) error {
	if c.opts.Topic != "" && topic != c.opts.Topic {
		return fmt.Errorf("%s: field \"topic\": %q, but the run's topic is %q", what, topic, c.opts.Topic)
	}
	return nil
}

// memberOf returns process p's membership of group g, or an error naming
// the field: a group op by a process that is no member is bad input.
func (c *checker) memberOf(what string, p int32, g string) (*member, error) {
	m := c.Members[p]
	if m == nil || !m.OK || c.GroupNames.List[m.Group] != g {
		return nil, fmt.Errorf("%s: field \"group\": %q, but process %d is not a member of it (no ok subscribe)", what, g, p)
	}
	return m, nil
}

func (c *checker) invokeSubscribe(pd *pending, e *histories.Event) error {
	const what = "subscribe invoke value"
	var v subVal
	if err := decodeRequired(what, e.Value, &v); err != nil {
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

func (c *checker) completeSubscribe(pd *pending, e *histories.Event) error {
	what := fmt.Sprintf("subscribe %s value", e.Type)
	inv := pd.gp.sub
	m := &member{Group: pd.gp.group, Name: *inv.Member, Latest: inv.OffsetReset != nil && *inv.OffsetReset == "latest", SubAt: pd.call,
		Protocol: *inv.Protocol}
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
			m.ID = *v.MemberID
		}
	}
	m.OK = e.Type == histories.OK
	if inv.Continues != nil && m.OK {
		from := int32(*inv.Continues)
		if err := c.checkContinues("subscribe invoke value", from, int32(e.Process), m); err != nil {
			return atInvoke(pd, err) // the invoke carries "continues"
		}
		c.continueProcess(from, int32(e.Process)) // groupcontinue.go
	}
	if m.OK {
		c.holds.Subscribe(e.Process, inv.Continues)
	}
	c.Members[int32(e.Process)] = m
	return nil
}

// groupPollInvoke reads the group fields of a poll invoke: the member's
// generation. A poll in a new generation starts the member's poll order
// afresh (a rebalance moved its positions to the committed offsets).
func (c *checker) groupPollInvoke(pd *pending, e *histories.Event, group *string, mid *string, gen *int32) error {
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
	gp := &groupPend{group: m.Group, gen: *gen, hasGen: true, clock: c.clock}
	if mid != nil {
		gp.mid = *mid
	}
	if last, ok := c.lastGen[p]; ok && last != *gen {
		c.resetOrder(p, nil)
	}
	c.lastGen[p] = *gen
	m.RC = m.RC || pd.rc
	pd.gp = gp
	return nil
}

// resetOrder forgets the poll order of process p on tps (nil: all).
func (c *checker) resetOrder(p int32, tps []int32) {
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
func (c *checker) partitionOffsets(what, topic string, m map[string]int64) (map[int32]int64, error) {
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

func (c *checker) invokeCommit(pd *pending, e *histories.Event) error {
	const what = "commit invoke value"
	var v commitVal
	if err := decodeRequired(what, e.Value, &v); err != nil {
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
	op := commitOp{Group: m.Group, Proc: int32(e.Process), Index: e.Index, Call: e.Time, Ret: -1, Auto: v.Auto != nil && *v.Auto}
	if v.Generation != nil {
		op.Gen, op.HasGen = *v.Generation, true
	}
	if v.MemberID != nil {
		op.MID = *v.MemberID
	}
	for _, p := range sortedKeys(offs) {
		tp := c.tp([]byte(*v.Topic), p)
		prev, ok := c.committed[groupTP{m.Group, tp}]
		if !ok {
			prev = committedAt{Off: -1, Commit: -1}
		}
		if op.Auto {
			prev = c.autoPrev(m.Group, op.Proc, tp, offs[p]) // recorded late: groupauto.go
		}
		w, waiting := c.resume[procTP{op.Proc, tp}]
		reset := waiting && w.at.Commit < 0 || !c.holds.Holds(int(op.Proc), tp)
		cp := commitPart{TP: tp, Off: offs[p], Prev: prev, Reset: reset, Epoch: model.NoEpochRecorded}
		if e, ok := v.LeaderEpochs[histories.PartitionKey(p)]; ok {
			cp.Epoch = e
		}
		op.Parts = append(op.Parts, cp)
	}
	pd.gp = &groupPend{group: m.Group, commit: int32(len(c.Commits))}
	c.Commits = append(c.Commits, op)
	return nil
}

func (c *checker) completeCommit(pd *pending, e *histories.Event) error {
	ci := pd.gp.commit
	op := &c.Commits[ci]
	op.Ret, op.Err = e.Time, e.Error
	op.Typ = completedAs(e.Type)
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
	if v.Group != nil && *v.Group != c.GroupNames.List[op.Group] {
		return fmt.Errorf("%s: field \"group\": %q, but its invoke named %q", what, *v.Group, c.GroupNames.List[op.Group])
	}
	if e.Type == histories.OK && v.Offsets == nil {
		return fmt.Errorf("%s: missing field \"offsets\"", what)
	}
	if v.Offsets == nil {
		return nil
	}
	topic := c.TPs[op.Parts[0].TP].Topic
	if v.Topic != nil {
		topic = *v.Topic
	}
	offs, err := c.partitionOffsets(what, topic, *v.Offsets)
	if err != nil {
		return err
	}
	for _, p := range sortedKeys(offs) {
		i := slices.IndexFunc(op.Parts, func(cp commitPart) bool { return c.TPs[cp.TP].Partition == p && c.TPs[cp.TP].Topic == topic })
		if i < 0 {
			return fmt.Errorf("%s: field \"offsets\": partition %d, which its invoke did not ask for", what, p)
		}
		if offs[p] != op.Parts[i].Off {
			return fmt.Errorf("%s: field \"offsets\": partition %d at %d, but its invoke asked for %d", what, p, offs[p], op.Parts[i].Off)
		}
		if e.Type == histories.OK {
			op.Parts[i].OK = true
		}
	}
	if e.Type != histories.OK {
		return nil
	}
	for _, cp := range op.Parts {
		if !cp.OK {
			continue
		}
		key := groupTP{op.Group, cp.TP}
		cur, ok := c.committed[key]
		if cp.Prev.Commit >= 0 && cp.Off < cp.Prev.Off {
			// Below what the group had committed before this commit was
			// asked for: concurrent commits cannot explain it.
			c.Backs = append(c.Backs, backOp{Kind: groupcheck.CommittedLower, Group: op.Group, TP: cp.TP, Commit: cp.Prev.Commit,
				Lower: ci, Proc: op.Proc, GPoll: -1, Rebal: -1, Committed: cp.Prev.Off, Resumed: cp.Off, At: e.Time})
		}
		if !ok || cp.Off > cur.Off {
			c.committed[key] = committedAt{Off: cp.Off, Commit: ci}
			c.noteCommitted(key, c.committed[key])
		}
	}
	return nil
}

// groupPolled notes an ok poll of a group member (c.polls' last): the
// first record of each partition a newly assigned member delivers says
// where the group resumed it.
func (c *checker) groupPolled(pd *pending, e *histories.Event) {
	gp := pd.gp
	pi := int32(len(c.Polls) - 1)
	p := int32(e.Process)
	gi := int32(len(c.GPolls))
	c.GPolls = append(c.GPolls, groupPoll{Poll: pi, Group: gp.group, Proc: p, Gen: gp.gen, HasGen: gp.hasGen, MID: gp.mid})
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
		c.Resumed = append(c.Resumed, resumedAt{Proc: p, TP: r.TP, GPoll: gi, Committed: w.at.Off, Off: r.Off})
		if w.at.Commit < 0 {
			c.Resets = append(c.Resets, resetEp{Group: gp.group, TP: r.TP, Below: r.Off, Bound: e.Time})
		}
		if w.at.Commit >= 0 && r.Off < w.at.Off {
			c.Backs = append(c.Backs, backOp{Kind: groupcheck.ResumedBelowCommit, Group: gp.group, TP: r.TP, Commit: w.at.Commit,
				Lower: -1, Proc: p, GPoll: gi, Rebal: w.rebal, Committed: w.at.Off, Resumed: r.Off, At: e.Time})
		}
	}
}
