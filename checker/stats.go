package checker

import (
	"slices"
	"sort"

	"github.com/kchaos/kchaos/checker/groupcheck"
	"github.com/kchaos/kchaos/checker/model"
	"github.com/kchaos/kchaos/checker/share"
	"github.com/kchaos/kchaos/checker/txncheck"
)

// Stats describes the run rather than judging it.
type Stats struct {
	Events    int64   `json:"events"`
	ClientOps int64   `json:"client_ops"`
	DurationS float64 `json:"duration_s"`
	// Ops counts events by f and then type.
	Ops map[string]map[string]int `json:"ops"`
	// Errors counts completions by their error.
	Errors     map[string]int             `json:"errors,omitempty"`
	Sends      SendStats                  `json:"sends"`
	Partitions map[string]*PartitionStats `json:"partitions,omitempty"`
	// Recovery gives, for each fault, the time from its start to the first
	// acked send invoked after it, per partition.
	Recovery []Recovery `json:"recovery,omitempty"`
	// FinalReadsNotCompleted lists the final reads that ended fail or info,
	// or were still open when the history ended.
	FinalReadsNotCompleted []FinalTry `json:"final_reads_not_completed,omitempty"`
	// TruncatedLine is the torn last line that the reader dropped, if any.
	TruncatedLine int `json:"truncated_line,omitempty"`
	// IgnoredOps counts client ops whose f the contract does not define, by f.
	IgnoredOps map[string]int `json:"ignored_ops,omitempty"`
	// Txns describes the transactions, if there were any.
	Txns *txncheck.TxnStats `json:"txns,omitempty"`
	// Groups describes the consumer groups, if there were any.
	Groups *groupcheck.GroupStats `json:"groups,omitempty"`
	// Shares describes the share group, if there was one (absent from
	// the results of a history without share ops).
	Shares *share.Stats `json:"shares,omitempty"`
}

// SendStats counts sends by outcome.
type SendStats struct {
	OK              int `json:"ok"`
	OKWithoutOffset int `json:"ok_without_offset,omitempty"`
	Fail            int `json:"fail"`
	Info            int `json:"info"`
	// ReclassifiedAsInfo counts fail sends whose error makes the outcome
	// unknown by the contract (NOT_ENOUGH_REPLICAS_AFTER_APPEND, timeouts):
	// they are counted as info.
	ReclassifiedAsInfo int `json:"reclassified_as_info,omitempty"`
}

// PartitionStats describes one topic-partition.
type PartitionStats struct {
	Sends         SendStats       `json:"sends"`
	RecordsPolled int             `json:"records_polled"`
	FinalRead     *FinalReadStats `json:"final_read,omitempty"`
	// Unavailable lists when the partition had no leader (observer) or its
	// sends failed or timed out until one was acked again (clients).
	Unavailable  []Interval `json:"unavailable,omitempty"`
	UnavailableS float64    `json:"unavailable_s"`
	// Leadership lists the observer's samples that changed leader, epoch,
	// ISR, ELR or last known ELR (the first 500).
	Leadership []LeaderChange `json:"leadership,omitempty"`
}

// FinalReadStats is the completed final read a partition was judged by.
type FinalReadStats struct {
	Process     int     `json:"process"`
	AtS         float64 `json:"at_s"`
	Records     int     `json:"records"`
	EndOffset   *int64  `json:"end_offset,omitempty"`
	StartOffset *int64  `json:"start_offset,omitempty"`
}

// FinalTry is a final read that did not complete.
type FinalTry struct {
	Process    int      `json:"process"`
	Type       string   `json:"type"`
	AtS        float64  `json:"at_s"`
	Error      string   `json:"error,omitempty"`
	Partitions []string `json:"partitions,omitempty"`
}

// Interval is a span of unavailability.
type Interval struct {
	FromS     float64        `json:"from_s"`
	ToS       float64        `json:"to_s"`
	DurationS float64        `json:"duration_s"`
	Cause     string         `json:"cause"` // no-leader or sends-failing
	Open      bool           `json:"open,omitempty"`
	Errors    map[string]int `json:"errors,omitempty"`
}

// LeaderChange is one observer sample that changed something.
type LeaderChange struct {
	AtS           float64 `json:"at_s"`
	Leader        int32   `json:"leader"`
	LeaderEpoch   int32   `json:"leader_epoch"`
	ISR           []int32 `json:"isr"`
	ELR           []int32 `json:"elr,omitempty"`
	LastKnownELR  []int32 `json:"last_known_elr,omitempty"`
	HighWatermark int64   `json:"high_watermark"`
	Election      string  `json:"election,omitempty"`
}

// Recovery is the time each partition took to ack a send after a fault.
type Recovery struct {
	Fault        faultRef           `json:"fault"`
	RecoveredS   map[string]float64 `json:"recovered_s,omitempty"`
	NotRecovered []string           `json:"not_recovered,omitempty"`
}

const maxLeadership = 500

func (a *analysis) stats() Stats {
	c := a.c
	st := Stats{Events: c.events, ClientOps: c.Clients, Ops: c.ops, TruncatedLine: c.tornLine,
		Partitions: map[string]*PartitionStats{}}
	if c.first >= 0 {
		st.DurationS = secs(c.last - c.first)
	}
	if len(c.errs) > 0 {
		st.Errors = c.errs
	}
	if len(c.ignored) > 0 {
		st.IgnoredOps = c.ignored
	}
	for _, t := range c.TPs {
		st.Partitions[t.Name()] = &PartitionStats{RecordsPolled: t.Polled}
	}
	// Each partition's stats, looked up by name once rather than per send
	// (spelling the name per send was most of the stats of a long history).
	byTP := make([]*PartitionStats, len(c.TPs))
	for tp, t := range c.TPs {
		byTP[tp] = st.Partitions[t.Name()]
	}
	for i := range c.Sends {
		s := &c.Sends[i]
		for _, ss := range []*SendStats{&st.Sends, &byTP[s.TP].Sends} {
			switch s.Typ {
			case model.OpOK:
				ss.OK++
			case model.OpOKNoOffset:
				ss.OKWithoutOffset++
			case model.OpFail:
				ss.Fail++
			default:
				ss.Info++
			}
		}
	}
	st.Sends.ReclassifiedAsInfo = c.reclas
	for tp, t := range c.TPs {
		ps := st.Partitions[t.Name()]
		if t.Final >= 0 {
			f := &c.Finals[t.Final]
			fs := &FinalReadStats{Process: int(f.Proc), AtS: secs(f.Ret), Records: len(a.finalRecs(int32(tp)))}
			if e, ok := f.Ends[int32(tp)]; ok {
				fs.EndOffset = &e
			}
			if s, ok := f.Starts[int32(tp)]; ok {
				fs.StartOffset = &s
			}
			ps.FinalRead = fs
		}
		ps.Unavailable = a.unavailable(t)
		ps.UnavailableS = unionSeconds(ps.Unavailable)
		for i := range t.Obs {
			if i == maxLeadership {
				break
			}
			o := &t.Obs[i]
			ps.Leadership = append(ps.Leadership, LeaderChange{AtS: secs(o.At), Leader: o.Leader,
				LeaderEpoch: o.Epoch, ISR: o.ISR, ELR: o.ELR, LastKnownELR: o.LastELR,
				HighWatermark: o.HW, Election: o.Election})
		}
	}
	for _, f := range c.failed {
		ft := FinalTry{Process: f.proc, Type: string(f.typ), AtS: secs(f.at), Error: f.err}
		for _, tp := range f.tps {
			ft.Partitions = append(ft.Partitions, c.TPs[tp].Name())
		}
		st.FinalReadsNotCompleted = append(st.FinalReadsNotCompleted, ft)
	}
	st.Recovery = a.recovery()
	for _, f := range a.statsOf {
		f(&st)
	}
	return st
}

// unavailable merges the observer's leaderless spans and the clients'
// failing spans of a partition, by start.
func (a *analysis) unavailable(t *model.TP) []Interval {
	end := a.c.last
	var out []Interval
	add := func(from, to int64, open bool, cause string, errs map[string]int) {
		out = append(out, Interval{FromS: secs(from), ToS: secs(to), DurationS: secs(to - from),
			Cause: cause, Open: open, Errors: errs})
	}
	since := int64(-1)
	for i := range t.Obs {
		o := &t.Obs[i]
		switch {
		case o.Leader < 0 && since < 0:
			since = o.At
		case o.Leader >= 0 && since >= 0:
			add(since, o.At, false, "no-leader", nil)
			since = -1
		}
	}
	if since >= 0 {
		add(since, end, true, "no-leader", nil)
	}
	for _, s := range t.Avail.Spans {
		add(s.From, s.To, false, s.Cause, s.Errs)
	}
	if t.Avail.Since >= 0 {
		add(t.Avail.Since, max(end, t.Avail.Since), true, "sends-failing", t.Avail.Errs)
	}
	slices.SortStableFunc(out, func(x, y Interval) int {
		switch {
		case x.FromS < y.FromS:
			return -1
		case x.FromS > y.FromS:
			return 1
		}
		return 0
	})
	return out
}

// unionSeconds is the length of the union of the intervals.
func unionSeconds(iv []Interval) float64 {
	total, reach := 0.0, -1.0
	for _, x := range iv { // sorted by start
		if x.ToS <= reach {
			continue
		}
		total += x.ToS - max(x.FromS, reach)
		reach = x.ToS
	}
	return float64(int64(total*1000+0.5)) / 1000
}

// recovery times each fault against every partition's acked sends.
func (a *analysis) recovery() []Recovery {
	c := a.c
	type acked struct {
		calls  []int64
		suffix []int64 // earliest ack among sends invoked at or after calls[i]
	}
	per := make([]*acked, len(c.TPs))
	for i := range c.Sends {
		s := &c.Sends[i]
		if s.Typ != model.OpOK {
			continue
		}
		if per[s.TP] == nil {
			per[s.TP] = &acked{}
		}
		per[s.TP].calls = append(per[s.TP].calls, s.Call)
		per[s.TP].suffix = append(per[s.TP].suffix, s.Ret)
	}
	for _, p := range per {
		if p == nil {
			continue
		}
		for i := len(p.suffix) - 2; i >= 0; i-- {
			p.suffix[i] = min(p.suffix[i], p.suffix[i+1])
		}
	}
	var out []Recovery
	for _, fi := range a.places.Faults() {
		at := c.Nem[fi].Call
		r := Recovery{Fault: a.faultRef(fi), RecoveredS: map[string]float64{}}
		for tp, p := range per {
			if p == nil {
				continue
			}
			i := sort.Search(len(p.calls), func(i int) bool { return p.calls[i] >= at })
			if i < len(p.calls) {
				r.RecoveredS[c.TPs[tp].Name()] = secs(p.suffix[i] - at)
			} else {
				r.NotRecovered = append(r.NotRecovered, c.TPs[tp].Name())
			}
		}
		out = append(out, r)
	}
	return out
}
