// Package retention finds log-start-jump: a partition's log start offset
// passed acknowledged records that the topic's retention should still
// keep. Neither retention.ms nor retention.bytes allows the jump (nor a
// delete-records the run issued), so the records are gone by a fault of
// Kafka's (a retention bug such as KAFKA-20732, or a leader whose log
// starts later than the one it replaced), yet lost-write does not count
// them: a final read judges only records at or past its log start.
//
// The package is pure: it judges what the checker hands it (acked records
// with their offsets, write times and sizes, the log start observations),
// and every bound it uses errs toward allowing a jump, so that an entry is
// a proof, never a guess:
//   - time: a record can go by retention.ms only once its segment's largest
//     timestamp is that old; the segment's largest timestamp is at least the
//     record's own, which its producer stamped after the send was invoked.
//     A record invoked at W can go at W + retention.ms (less Slack) at the
//     earliest.
//   - size: Kafka deletes a segment only while what remains after it is at
//     least retention.bytes, so a record can go by size only if the log
//     after it holds at least retention.bytes. Every offset holds at most
//     MaxOffsetBytes (one record alone in a batch), so the log after a
//     record at O, with end E, holds at most (E-O-1)*MaxOffsetBytes.
package retention

import "fmt"

// LogStartJump is the anomaly's name.
const LogStartJump = "log-start-jump"

// unlimited is a retention of -1: Kafka keeps the log forever.
const unlimited = -1

// Record-size bounds: a batch's header is 61 bytes (magic v2) and a
// record's own framing at most 40 (varints of length, timestamp and offset
// deltas, key and value lengths, header count, attributes); kchaos's keys
// are a partition's short name, within KeyAllowance.
const (
	batchOverhead  = 61
	recordOverhead = 40
	keyAllowance   = 64
)

// maxOffsetBytes is the most bytes one offset can take on disk when no
// value is longer than maxValue.
func maxOffsetBytes(maxValue int) int64 {
	return batchOverhead + recordOverhead + keyAllowance + int64(maxValue)
}

// topicRetention is the topic's retention as the run applied it.
type topicRetention struct {
	RetentionMS    int64 // -1: unlimited
	RetentionBytes int64 // -1: unlimited
	// Slack (ns) allows for the producer's clock against the history's
	// (the same host's; a fraction of a second at most).
	Slack int64
	// MaxOffsetBytes bounds one offset's bytes on disk.
	MaxOffsetBytes int64
}

// record is an acknowledged record: its offset, and when its send was
// invoked (ns, the history's clock).
type record struct {
	Offset  int64
	Invoked int64
}

// start is one observation of a partition's log start offset: at At (ns),
// by By (the observer, a final read), with End the partition's log end
// offset then (-1 unknown: then size retention cannot be ruled out).
type start struct {
	At, Offset, End int64
	By              string
}

// deletion is a delete-records the run issued: the log start may pass
// Before from At on. kchaos issues none today; the rule is here so that a
// fault that does is judged right.
type deletion struct{ At, Before int64 }

// partition is what the checker knows of one partition.
type partition struct {
	Name    string
	Records []record // acked records, by offset
	Starts  []start  // in time order
	Deletes []deletion
}

// Jump is one log-start-jump: the log start moved from From to To (seen
// at At by By) past Kept acked records that retention should still keep,
// the first of them at First, written at FirstInvoked.
type Jump struct {
	Partition    string `json:"partition"`
	From         int64  `json:"from"`
	To           int64  `json:"to"`
	At           int64  `json:"at"`
	By           string `json:"by"`
	Kept         int    `json:"kept"`
	First        int64  `json:"first_offset"`
	FirstInvoked int64  `json:"first_invoked"`
	Why          string `json:"why"`
}

// check returns p's log-start-jumps under cfg.
func check(cfg topicRetention, p partition) []Jump {
	var out []Jump
	from := int64(0)
	for _, s := range p.Starts {
		if s.Offset <= from {
			continue // no move past what was already gone (or a lagging answer)
		}
		j := Jump{Partition: p.Name, From: from, To: s.Offset, At: s.At, By: s.By, First: -1}
		for _, r := range inRange(p.Records, from, s.Offset) {
			if allowed(cfg, p.Deletes, r, s) {
				continue
			}
			if j.Kept == 0 {
				j.First, j.FirstInvoked = r.Offset, r.Invoked
				j.Why = why(cfg, r, s)
			}
			j.Kept++
		}
		if j.Kept > 0 {
			out = append(out, j)
		}
		from = s.Offset
	}
	return out
}

// inRange is the records with offsets in [from, to); records are by offset.
func inRange(rs []record, from, to int64) []record {
	i := 0
	for i < len(rs) && rs[i].Offset < from {
		i++
	}
	j := i
	for j < len(rs) && rs[j].Offset < to {
		j++
	}
	return rs[i:j]
}

func allowed(cfg topicRetention, dels []deletion, r record, s start) bool {
	for _, d := range dels {
		if d.At <= s.At && r.Offset < d.Before {
			return true
		}
	}
	if cfg.RetentionMS >= 0 && r.Invoked+cfg.RetentionMS*1e6-cfg.Slack <= s.At {
		return true
	}
	if cfg.RetentionBytes >= 0 && (s.End < 0 || (s.End-r.Offset-1)*cfg.MaxOffsetBytes >= cfg.RetentionBytes) {
		return true
	}
	return false
}

func why(cfg topicRetention, r record, s start) string {
	t := "retention.ms is unlimited"
	if cfg.RetentionMS >= 0 {
		t = fmt.Sprintf("retention.ms=%d keeps it until %.3f s (written at %.3f s)",
			cfg.RetentionMS, float64(r.Invoked+cfg.RetentionMS*1e6)/1e9, float64(r.Invoked)/1e9)
	}
	b := "retention.bytes is unlimited"
	if cfg.RetentionBytes >= 0 {
		b = fmt.Sprintf("retention.bytes=%d, and the %d offsets after it (log end %d) hold at most %d bytes",
			cfg.RetentionBytes, s.End-r.Offset-1, s.End, (s.End-r.Offset-1)*cfg.MaxOffsetBytes)
	}
	return fmt.Sprintf("offset %d: %s; %s", r.Offset, t, b)
}
