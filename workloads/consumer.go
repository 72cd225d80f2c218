package workloads

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/internal/ctxsleep"
)

// PollWait bounds one poll: long enough to batch records, short enough that
// a consumer notices the end of the run promptly. Exported for the driver
// packages (workloads/java), whose consumers' polls it bounds.
const PollWait = time.Second

// consumerPartitions is consumer i's share of the partitions: p % n == i.
func consumerPartitions(i, n, partitions int) []int32 {
	var out []int32
	for p := i; p < partitions; p += n {
		out = append(out, int32(p))
	}
	return out
}

// consume is one consumer process: it positions itself by the offset
// reset rule (recorded as an assign), then polls until stop ends, recording
// every poll. Polls end ok or fail, never info (a read changes nothing), so
// the process keeps its id for the whole run and the checker can follow
// its positions from poll to poll.
func (w *Workload) consume(stop context.Context, c Consumer, parts []int32) error {
	pid := w.rec.NewProcess()
	pos, err := w.offsetsUntil(stop, c, parts)
	if err != nil {
		return nil // stopped before the consumer could start
	}
	if err := w.assign(stop, pid, c, parts, pos); err != nil {
		return err
	}
	req := histories.ReadRequest{Topic: w.cfg.Topic, Partitions: parts, Isolation: IsolationOf(w.cfg.Isolation)}
	for !Ended(stop) {
		if _, err := w.rec.Invoke(pid, histories.FPoll, req); err != nil {
			w.c.recordErrors.Add(1)
			return err
		}
		pctx, cancel := context.WithTimeout(stop, PollWait)
		f, perr := c.Poll(pctx)
		cancel()
		if err := w.completePoll(pid, req, f, perr); err != nil {
			return err
		}
		for _, r := range f.Records {
			pos[r.Partition] = r.Offset + 1
		}
		for p, next := range f.Next {
			pos[p] = max(pos[p], next)
		}
		if err := w.afterPoll(stop, pid, c, parts, pos, f); err != nil {
			return err
		}
		if PollFailed(f, perr) {
			// As a producer after a failed send: a poll that fails at once
			// (a client whose JVM died, a partition without leader) would
			// otherwise be recorded millions of times a minute.
			_ = ctxsleep.Sleep(stop, FailureBackoff)
		}
	}
	return nil
}

// PollFailed reports whether a poll returned no record and an error (a
// fail op): its process waits FailureBackoff before the next. Exported for
// the group members (workloads/groups), whose polls fail alike.
func PollFailed(f Fetch, perr error) bool {
	return len(f.Records) == 0 && (perr != nil || len(f.Errors) > 0)
}

// completePoll records a poll's completion: ok with what it returned, or
// fail when it returned nothing but an error (the position did not move),
// named after the client's error or the first partition's.
func (w *Workload) completePoll(pid int, req histories.ReadRequest, f Fetch, perr error) error {
	for _, pe := range f.Errors {
		w.c.countError(ErrorName(pe.Err))
	}
	if perr == nil && len(f.Records) == 0 && len(f.Errors) > 0 {
		perr = f.Errors[0].Err
	}
	var err error
	if perr != nil && len(f.Records) == 0 {
		name := ErrorName(perr)
		if len(f.Errors) == 0 {
			w.c.countError(name)
		}
		_, err = w.rec.Complete(pid, histories.Fail, histories.FPoll, req, name)
	} else {
		recs := f.Records
		if recs == nil {
			recs = []histories.Record{}
		}
		_, err = w.rec.Complete(pid, histories.OK, histories.FPoll,
			histories.ReadResult{Topic: w.cfg.Topic, Records: recs}, "")
		w.c.polls.Add(1)
		w.c.polledRecords.Add(int64(len(recs)))
	}
	if err != nil {
		w.c.recordErrors.Add(1)
	}
	return err
}

// afterPoll answers what the poll reported: the client's own repositioning
// (franz-go after detecting truncation) is recorded as an assign; an
// OFFSET_OUT_OF_RANGE partition is reset by the configured rule and
// recorded as an assign.
func (w *Workload) afterPoll(stop context.Context, pid int, c Consumer, parts []int32, pos map[int32]int64, f Fetch) error {
	if len(f.Resets) > 0 {
		moved := slices.Sorted(maps.Keys(f.Resets))
		for _, p := range moved {
			pos[p] = f.Resets[p]
		}
		if err := w.recordAssign(pid, moved, f.Resets); err != nil {
			return err
		}
	}
	var oor []int32
	for _, pe := range f.Errors {
		if code, ok := KafkaCode(pe.Err); ok && code == codeOffsetOutOfRange {
			oor = append(oor, pe.Partition)
		}
	}
	if len(oor) == 0 {
		return nil
	}
	reset, err := w.offsetsUntil(stop, c, oor)
	if err != nil {
		return nil // stopping
	}
	for p, o := range reset {
		pos[p] = o
	}
	return w.assign(stop, pid, c, parts, pos)
}

// Ended reports whether ctx is done or past its deadline. A socket
// deadline taken from ctx can fire (a dial's "i/o timeout") a moment
// before ctx's own timer marks it done; in that moment a loop checking
// only ctx.Err() would poll again and again, failing at once. Exported
// for the driver packages, whose poll loops (workloads/franz: a
// transaction's polls, a consumer's injected "context ended" fetch) face
// the same moment.
func Ended(ctx context.Context) bool {
	if ctx.Err() != nil {
		return true
	}
	dl, ok := ctx.Deadline()
	return ok && !time.Now().Before(dl)
}

// codeOffsetOutOfRange is OFFSET_OUT_OF_RANGE.
const codeOffsetOutOfRange = 1

// offsetsUntil asks for the reset rule's offsets, retrying until it gets
// them all or stop ends (a partition may have no leader for a while).
func (w *Workload) offsetsUntil(stop context.Context, c Consumer, parts []int32) (map[int32]int64, error) {
	for {
		ctx, cancel := context.WithTimeout(stop, 5*time.Second)
		offs, err := c.Offsets(ctx, parts, w.cfg.OffsetReset)
		cancel()
		if err == nil && len(offs) == len(parts) {
			return offs, nil
		}
		if err != nil {
			w.c.countError(ErrorName(err))
		}
		if ctxsleep.Sleep(stop, 250*time.Millisecond) != nil {
			return nil, stop.Err()
		}
	}
}

// assign positions the client at pos and records an assign op.
func (w *Workload) assign(stop context.Context, pid int, c Consumer, parts []int32, pos map[int32]int64) error {
	for {
		err := c.Assign(stop, pos)
		if err == nil {
			return w.recordAssign(pid, parts, pos)
		}
		if stop.Err() != nil {
			return nil
		}
		w.c.countError(ErrorName(err))
		time.Sleep(250 * time.Millisecond)
	}
}

// recordAssign writes the assign op (invoke then ok): where the consumer
// now reads each of parts.
func (w *Workload) recordAssign(pid int, parts []int32, pos map[int32]int64) error {
	v := histories.AssignValue{Topic: w.cfg.Topic, Partitions: parts, Offsets: map[string]int64{}}
	for _, p := range parts {
		v.Offsets[histories.PartitionKey(p)] = pos[p]
	}
	_, err := w.rec.Invoke(pid, histories.FAssign, v)
	if err == nil {
		_, err = w.rec.Complete(pid, histories.OK, histories.FAssign, v, "")
	}
	if err != nil {
		w.c.recordErrors.Add(1)
		return err
	}
	w.c.assigns.Add(1)
	return nil
}
