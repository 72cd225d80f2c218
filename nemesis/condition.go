package nemesis

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// PollInterval is how often WaitFor reads the cluster state: short against
// the seconds a fault takes to show (replica.lag.time.max.ms is 4s in
// kchaos clusters), long enough not to load two shared cores.
const PollInterval = 200 * time.Millisecond

// WaitFor polls src until c holds on the given topic, at most timeout. On
// timeout the error says what was last seen, which is usually the most
// useful line of a failed scenario.
func WaitFor(ctx context.Context, src StateSource, topic string, c Condition, timeout time.Duration) error {
	return waitFor(ctx, src, topic, c, timeout, PollInterval)
}

func waitFor(ctx context.Context, src StateSource, topic string, c Condition, timeout, poll time.Duration) error {
	if c.Struck != "" && !c.resolved {
		// A caller's mistake, not a state to poll for: nobody said which
		// nodes the last fault touched (Condition.WithStruck).
		return fmt.Errorf("until %s: struck %s: no fault step's nodes to wait for", c, c.Struck)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		ok, seen := check(ctx, src, topic, c)
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			// One last look: the condition may have become true just now.
			if ok, seen2 := check(context.WithoutCancel(ctx), src, topic, c); ok {
				return nil
			} else if seen2 != "" {
				seen = seen2
			}
			return &notWithinError{Condition: c, Timeout: timeout, LastSeen: seen}
		case <-time.After(poll):
		}
	}
}

// notWithinError is WaitFor's timeout: the condition did not hold within
// Timeout, and LastSeen is what the last look saw (the runner records it
// in the until op).
type notWithinError struct {
	Condition Condition
	Timeout   time.Duration
	LastSeen  string
}

func (e *notWithinError) Error() string {
	return fmt.Sprintf("until %s: not within %s; last seen: %s", e.Condition, e.Timeout, e.LastSeen)
}

// check reports whether c holds now, and what it saw. A state that cannot
// be read (a broker down, a request timing out) does not hold: faults make
// such errors common and they pass.
func check(ctx context.Context, src StateSource, topic string, c Condition) (bool, string) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	ok := true
	var seen []string
	// A struck condition whose fault touched no node holds at once
	// (Condition.Struck): its state is not even read.
	outOfISR := c.Struck == StruckOutOfISR && len(c.struck) > 0
	fenced := c.Struck == StruckFenced && len(c.struck) > 0
	if len(c.ISR) > 0 || c.Offline != nil || c.Leader != nil || c.HighWatermark != nil || c.OpenTxn != nil || outOfISR {
		p, err := describePartition(ctx, src, topic, c.Partition)
		if err != nil {
			return false, err.Error()
		}
		seen = append(seen, fmt.Sprintf("partition %d leader %d epoch %d isr %v elr %v",
			p.Partition, p.Leader, p.LeaderEpoch, p.ISR, p.ELR))
		if len(c.ISR) > 0 && !sameSet(p.ISR, c.ISR) {
			ok = false
		}
		if outOfISR && slices.ContainsFunc(c.struck, func(id int32) bool { return slices.Contains(p.ISR, id) }) {
			ok = false
		}
		if c.Offline != nil && (p.Leader < 0) != *c.Offline {
			ok = false
		}
		if c.Leader != nil && p.Leader != *c.Leader {
			ok = false
		}
		if c.HighWatermark != nil {
			if p.Leader < 0 {
				ok = false
			} else if hw, err := src.HighWatermark(ctx, p.Leader, topic, c.Partition); err != nil {
				ok = false
				seen = append(seen, "high watermark: "+err.Error())
			} else {
				seen = append(seen, fmt.Sprintf("high watermark %d", hw))
				ok = ok && hw >= *c.HighWatermark
			}
		}
		if c.OpenTxn != nil {
			open, what, err := openTxn(ctx, src, topic, p.Partition, p.Leader)
			if err != nil {
				ok = false
				seen = append(seen, err.Error())
			} else {
				seen = append(seen, what)
				ok = ok && open == *c.OpenTxn
			}
		}
	}
	if c.ShareStart != nil {
		sp, can := src.(ShareProgress)
		if !can {
			return false, strings.Join(append(seen, "share start offset: no share group to ask about"), "; ")
		}
		off, err := sp.ShareStartOffset(ctx, topic, c.Partition)
		if err != nil {
			return false, strings.Join(append(seen, "share start offset: "+err.Error()), "; ")
		}
		seen = append(seen, fmt.Sprintf("share start offset %d", off))
		ok = ok && off >= *c.ShareStart
	}
	if c.QuorumLeader != nil {
		qs, can := src.(QuorumSource)
		if !can {
			return false, strings.Join(append(seen, "quorum: no controller to ask"), "; ")
		}
		q, err := qs.Quorum(ctx)
		if err != nil {
			return false, strings.Join(append(seen, "quorum: "+err.Error()), "; ")
		}
		seen = append(seen, fmt.Sprintf("quorum leader %d epoch %d", q.LeaderID, q.LeaderEpoch))
		ok = ok && (q.LeaderID >= 0) == *c.QuorumLeader
	}
	if len(c.Live) > 0 || len(c.Fenced) > 0 || fenced {
		live, err := src.LiveBrokers(ctx)
		if err != nil {
			return false, strings.Join(append(seen, "live brokers: "+err.Error()), "; ")
		}
		seen = append(seen, fmt.Sprintf("live brokers %v", live))
		for _, id := range c.Live {
			ok = ok && slices.Contains(live, id)
		}
		for _, id := range c.Fenced {
			ok = ok && !slices.Contains(live, id)
		}
		if fenced {
			for _, id := range c.struck {
				ok = ok && !slices.Contains(live, id)
			}
		}
	}
	return ok, strings.Join(seen, "; ")
}

// openTxn reports whether the leader holds a transaction open on the
// partition: its last stable offset below its high watermark.
func openTxn(ctx context.Context, src StateSource, topic string, p, leader int32) (bool, string, error) {
	if leader < 0 {
		return false, "", errors.New("open transaction: no leader")
	}
	hw, err := src.HighWatermark(ctx, leader, topic, p)
	if err != nil {
		return false, "", fmt.Errorf("open transaction: high watermark: %w", err)
	}
	lso, err := src.LastStableOffset(ctx, leader, topic, p)
	if err != nil {
		return false, "", fmt.Errorf("open transaction: last stable offset: %w", err)
	}
	return lso < hw, fmt.Sprintf("last stable offset %d, high watermark %d", lso, hw), nil
}

// String renders c as the scenario file spells it.
func (c Condition) String() string {
	var parts []string
	if len(c.ISR) > 0 {
		parts = append(parts, fmt.Sprintf("isr %v", c.ISR))
	}
	if c.Offline != nil {
		parts = append(parts, fmt.Sprintf("offline %t", *c.Offline))
	}
	if c.Leader != nil {
		parts = append(parts, fmt.Sprintf("leader %d", *c.Leader))
	}
	if c.HighWatermark != nil {
		parts = append(parts, fmt.Sprintf("high watermark >= %d", *c.HighWatermark))
	}
	if c.OpenTxn != nil {
		parts = append(parts, fmt.Sprintf("open transaction %t", *c.OpenTxn))
	}
	if c.ShareStart != nil {
		parts = append(parts, fmt.Sprintf("share start offset >= %d", *c.ShareStart))
	}
	if c.Struck == StruckOutOfISR {
		parts = append(parts, c.struckNodes()+" out of isr")
	}
	s := fmt.Sprintf("partition %d %s", c.Partition, strings.Join(parts, ", "))
	if len(parts) == 0 {
		s = ""
	}
	if len(c.Live) > 0 {
		s = strings.TrimSpace(s + fmt.Sprintf(" live %v", c.Live))
	}
	if len(c.Fenced) > 0 {
		s = strings.TrimSpace(s + fmt.Sprintf(" fenced %v", c.Fenced))
	}
	if c.Struck == StruckFenced {
		s = strings.TrimSpace(s + " " + c.struckNodes() + " fenced")
	}
	if c.QuorumLeader != nil {
		s = strings.TrimSpace(s + fmt.Sprintf(" quorum leader %t", *c.QuorumLeader))
	}
	if c.Struck != "" && !slices.Contains(struckValues, c.Struck) {
		s = strings.TrimSpace(s + fmt.Sprintf(" struck %q", c.Struck))
	}
	return s
}

// struckNodes names Struck's nodes: "the last fault's nodes", with their
// ids once resolved, so that a history's until says whom it waited for.
func (c Condition) struckNodes() string {
	if !c.resolved {
		return "the last fault's nodes"
	}
	return fmt.Sprintf("the last fault's nodes %v", c.struck)
}

func sameSet(a, b []int32) bool {
	x, y := sortedIDs(a), sortedIDs(b)
	return slices.Equal(x, y)
}

// ShareProgress is what condition share_start_offset needs: the start
// offset of the workload's share group on a partition of topic. The
// runner's state source has it when the workload has a share group
// (shareState).
type ShareProgress interface {
	ShareStartOffset(ctx context.Context, topic string, partition int32) (int64, error)
}

// ShareOffsets is what the admin client must answer for it (*admin.Client
// does).
type ShareOffsets interface {
	ShareStartOffset(ctx context.Context, group, topic string, partition int32) (int64, error)
}

// shareState is a state source that also reads the share group's start
// offsets.
type shareState struct {
	StateSource
	adm   ShareOffsets
	group string
}

func (s shareState) ShareStartOffset(ctx context.Context, topic string, partition int32) (int64, error) {
	return s.adm.ShareStartOffset(ctx, s.group, topic, partition)
}

// untilState is the state source of an until: e.State(), with the share
// group's start offsets when the workload has one and the admin client
// can read them.
func (e *Env) untilState() StateSource {
	if e.Admin == nil {
		// While the cluster starts (a bootstrap schedule) no broker
		// answers: only the controllers, asked on their own listeners.
		return quorumOnly{e.Quorum}
	}
	src := e.State()
	if so, ok := e.Admin.(ShareOffsets); ok && e.ShareGroup != "" {
		return shareState{StateSource: src, adm: so, group: e.ShareGroup}
	}
	return src
}
