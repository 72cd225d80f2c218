package metadata

import (
	"fmt"
	"maps"
	"slices"

	"github.com/kchaos/kchaos/histories"
)

// converged are the metadata reads the checker judges: each controller's
// (log end offset only) and each broker's read of the final attempt, the
// last round of the convergence wait (the highest attempt any broker's ok
// read carries). A broker whose last ok read came from an earlier attempt
// failed its later ones: its answer is from before the brokers settled,
// and a lag then is what the wait is for, so it judges nothing (its read
// is neither the reference nor diverged). Reads without an attempt
// (histories before it) are all of one round.
func (c *Collector) converged() map[int32]histories.MetadataRead {
	final := 0
	for _, r := range c.reads {
		if isBroker(r) {
			final = max(final, r.Attempt)
		}
	}
	out := map[int32]histories.MetadataRead{}
	for id, r := range c.reads {
		if !isBroker(r) || r.Attempt == final {
			out[id] = r
		}
	}
	return out
}

func isBroker(r histories.MetadataRead) bool { return r.Topics != nil || r.Role == "broker" }

// reference is the converged metadata the acks are judged against: the
// read of the broker with the highest metadata log end offset (ties: the
// lowest id). Nil without a broker's read: nothing is judged lost (the
// verdict is then unknown if anything was acknowledged).
func reference(reads map[int32]histories.MetadataRead) (int32, map[string]histories.TopicMeta) {
	best := int32(-1)
	for _, id := range slices.Sorted(maps.Keys(reads)) {
		r := reads[id]
		if !isBroker(r) {
			continue
		}
		if best < 0 || r.LogEndOffset > reads[best].LogEndOffset {
			best = id
		}
	}
	if best < 0 {
		return -1, nil
	}
	v := reads[best].Topics
	if v == nil {
		v = map[string]histories.TopicMeta{}
	}
	return best, v
}

// diverged: the converged broker reads that differ from the reference.
// A controller answers no Metadata request, so its read judges nothing.
func (c *Collector) diverged(reads map[int32]histories.MetadataRead, ref int32, view map[string]histories.TopicMeta) []DivergedEntry {
	if view == nil {
		return nil
	}
	var out []DivergedEntry
	for _, id := range slices.Sorted(maps.Keys(reads)) {
		r := reads[id]
		if id == ref || !isBroker(r) {
			continue
		}
		if d := differences(r.Topics, view); len(d) > 0 {
			out = append(out, DivergedEntry{Node: id, Reference: ref, Differences: d, AtS: secs(c.readAt[id])})
		}
	}
	return out
}

// differences lists how a differs from b, at most five.
func differences(a, b map[string]histories.TopicMeta) []string {
	var out []string
	names := slices.Sorted(maps.Keys(a))
	for n := range b {
		if _, ok := a[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		x, inA := a[n]
		y, inB := b[n]
		switch {
		case !inA:
			out = append(out, fmt.Sprintf("lacks topic %s", n))
		case !inB:
			out = append(out, fmt.Sprintf("still has topic %s", n))
		case x.Partitions != y.Partitions:
			out = append(out, fmt.Sprintf("%s has %d partitions, not %d", n, x.Partitions, y.Partitions))
		case !maps.Equal(x.Configs, y.Configs):
			out = append(out, fmt.Sprintf("%s configs %v, not %v", n, x.Configs, y.Configs))
		}
	}
	return out[:min(len(out), 5)]
}

// watermarkBack finds the quorum's high watermark going back while one
// leader held one epoch: a leader never lowers it (KRaft's LeaderState
// refuses to), so a lower one means a committed offset was forgotten.
// One entry per sample that went back; perNode folds them per leader.
func (c *Collector) watermarkBack() []DivergedEntry {
	var out []DivergedEntry
	type term struct{ epoch, leader int32 }
	high := map[term]int64{}
	for _, s := range c.samples {
		if s.LeaderID < 0 || s.HighWatermark < 0 {
			continue
		}
		k := term{s.LeaderEpoch, s.LeaderID}
		if h, ok := high[k]; ok && s.HighWatermark < h {
			out = append(out, DivergedEntry{Node: s.LeaderID, Reference: s.LeaderID, AtS: secs(s.At),
				Differences: []string{fmt.Sprintf("high watermark went back from %d to %d in epoch %d", h, s.HighWatermark, s.LeaderEpoch)}})
		}
		high[k] = max(high[k], s.HighWatermark)
	}
	return out
}

// perNode makes metadata-diverged what HISTORY.md counts: one entry per
// node. The reads' entries are one per broker already; a leader's
// watermark going back in several samples (or a node that both read
// differently and went back) is one entry, its first time, and its
// differences in order (at most five, then how many more).
func perNode(reads, back []DivergedEntry) []DivergedEntry {
	out := reads
	more := map[int32]int{}
	for _, e := range back {
		i := slices.IndexFunc(out, func(o DivergedEntry) bool { return o.Node == e.Node })
		if i < 0 {
			out = append(out, e)
			continue
		}
		if len(out[i].Differences) < 5 {
			out[i].Differences = append(out[i].Differences, e.Differences...)
		} else {
			more[e.Node]++
		}
	}
	for i := range out {
		if n := more[out[i].Node]; n > 0 {
			out[i].Differences = append(out[i].Differences, fmt.Sprintf("and %d more", n))
		}
	}
	return out
}
