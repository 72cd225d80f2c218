package report

import (
	"maps"
	"slices"

	"github.com/kchaos/kchaos/histories"
)

// The share group's lanes (docs/HISTORY.md "Share groups"): what each
// member was handed and what became of its acks, binned over time like
// the sends (a history of millions of deliveries gives lanes of bounded
// size), and per partition the log end, the highest offset delivered and
// the share-partition start offsets the group reported, over time. The
// checker's entries (results.json) explain the anomalies
// (shareexplain.go); nothing here judges a record.

// Share lane rows, top to bottom.
const (
	shAcquired = iota // records handed to the member (deliveries)
	shAccepted        // accepts the broker confirmed
	shReleased        // releases the broker confirmed
	shRejected        // rejects the broker confirmed
	shRefused         // acks the broker refused (fail) or whose outcome is unknown (info)
	shKinds
)

var shareRowNames = [shKinds]string{"acquired", "accepted", "released", "rejected", "ack refused/unknown"}
var shareRowClasses = [shKinds]string{"share-acquired", "share-accepted", "share-released", "share-rejected", "share-refused"}
var shareRowColors = [shKinds]string{"#4a7fc1", "#2e8b57", "#8e7cc3", "#c0392b", "#d68910"}

// counter counts events of shKinds kinds in time bins whose width doubles
// (pairs merged) whenever a time would pass maxBins, as the timeline's
// bins do.
type counter struct {
	width int64
	bins  [][shKinds]int
}

func (c *counter) add(t int64, k, n int) {
	if c.width == 0 {
		c.width = 1e6
	}
	i := int(t / c.width)
	for i >= maxBins {
		merged := make([][shKinds]int, (len(c.bins)+1)/2)
		for j, b := range c.bins {
			for x := range b {
				merged[j/2][x] += b[x]
			}
		}
		c.bins, c.width = merged, c.width*2
		i = int(t / c.width)
	}
	for len(c.bins) <= i {
		c.bins = append(c.bins, [shKinds]int{})
	}
	c.bins[i][k] += n
}

// series is a rising step function (time, value), thinned to a bounded
// number of points: dropping every other point of a rising series keeps
// its shape at the page's resolution.
type series struct{ pts [][2]int64 }

const maxSeries = 2048

func (s *series) rise(t, v int64) {
	if n := len(s.pts); n > 0 && s.pts[n-1][1] >= v {
		return
	}
	s.pts = append(s.pts, [2]int64{t, v})
	if len(s.pts) > maxSeries {
		kept := s.pts[:0]
		for i, p := range s.pts {
			if i%2 == 1 || i == len(s.pts)-1 {
				kept = append(kept, p)
			}
		}
		s.pts = kept
	}
}

func (s *series) last() int64 {
	if len(s.pts) == 0 {
		return -1
	}
	return s.pts[len(s.pts)-1][1]
}

// shareLane is one member: its processes, counts and the ends of its
// processes (an info completion retires a client process).
type shareLane struct {
	name  string
	procs []int
	cnt   counter
	ended []procEnd
	total [shKinds]int
}

type procEnd struct {
	at   int64
	proc int
	op   string
}

// spsoPoint is one ok share-offsets: the group's start offset per partition.
type spsoPoint struct {
	at    int64
	start map[int32]int64
	errs  map[int32]string
	done  bool // drained
}

// shareScan is the share group's ops of one history.
type shareScan struct {
	group, topic string
	lockMS       int64
	limit        int32
	lanes        map[string]*shareLane
	byProc       map[int]*shareLane
	logEnd       map[int32]*series // from the timeline's acked sends (finish)
	delivered    map[int32]*series // highest offset delivered, plus one
	spso         []spsoPoint
	finalEnd     map[int32]int64 // the final read's end offsets of the topic
	finalAt      int64
}

func newShareScan() *shareScan {
	return &shareScan{lanes: map[string]*shareLane{}, byProc: map[int]*shareLane{},
		logEnd: map[int32]*series{}, delivered: map[int32]*series{}, finalEnd: map[int32]int64{}}
}

func seriesOf(m map[int32]*series, p int32) *series {
	if m[p] == nil {
		m[p] = &series{}
	}
	return m[p]
}

// used reports whether the history had a share group.
func (s *shareScan) used() bool { return s != nil && len(s.lanes) > 0 }

// add takes one event of the history (any: it picks the share ops and
// the final read of the group's topic).
func (s *shareScan) add(e *histories.Event) {
	if e.Process < 0 || e.Type == histories.Invoke {
		return
	}
	switch e.F {
	case histories.FShareSubscribe:
		var v histories.ShareSubscribeValue
		if e.Type != histories.OK || e.Decode(&v) != nil || v.Member == "" {
			return
		}
		s.group, s.topic, s.lockMS, s.limit = v.Group, v.Topic, v.LockMS, v.DeliveryLimit
		l := s.lanes[v.Member]
		if l == nil {
			l = &shareLane{name: v.Member}
			s.lanes[v.Member] = l
		}
		if !slices.Contains(l.procs, e.Process) {
			l.procs = append(l.procs, e.Process)
		}
		s.byProc[e.Process] = l
	case histories.FSharePoll:
		l := s.byProc[e.Process]
		var v histories.SharePollValue
		if l == nil || e.Type != histories.OK || e.Decode(&v) != nil {
			break
		}
		for _, r := range v.Records {
			seriesOf(s.delivered, r.Partition).rise(e.Time, r.Offset+1)
		}
		l.count(e.Time, shAcquired, len(v.Records))
	case histories.FShareAck:
		l := s.byProc[e.Process]
		var v histories.ShareAckValue
		if l == nil || e.Decode(&v) != nil {
			break
		}
		for _, a := range v.Acks {
			if k := ackRow(a, e.Type); k >= 0 {
				l.count(e.Time, k, 1)
			}
		}
	case histories.FShareOffsets:
		var v histories.ShareOffsetsValue
		if e.Type != histories.OK || e.Decode(&v) != nil {
			return
		}
		pt := spsoPoint{at: e.Time, start: map[int32]int64{}, errs: map[int32]string{}, done: v.Drained}
		for k, o := range v.StartOffsets {
			if p, err := histories.ParsePartitionKey(k); err == nil {
				pt.start[p] = o
			}
		}
		for k, msg := range v.Errors {
			if p, err := histories.ParsePartitionKey(k); err == nil {
				pt.errs[p] = msg
			}
		}
		s.spso = append(s.spso, pt)
	case histories.FFinalRead:
		var rr histories.ReadResult // a large value: decoded again only for a share group
		if e.Type == histories.OK && s.used() && e.Decode(&rr) == nil && rr.Topic == s.topic {
			for k, o := range rr.EndOffsets {
				if p, err := histories.ParsePartitionKey(k); err == nil {
					s.finalEnd[p] = o
					s.finalAt = e.Time
				}
			}
		}
	}
	if l := s.byProc[e.Process]; l != nil && e.Type == histories.Info && len(l.ended) < 200 {
		l.ended = append(l.ended, procEnd{e.Time, e.Process, e.F})
	}
}

// logEndOf is partition p's log end over time on the group's topic.
func (s *shareScan) logEndOf(p int32) *series {
	if l := s.logEnd[p]; l != nil {
		return l
	}
	return &series{}
}

// finish takes the log end of the group's topic over time from the
// timeline's bins (the highest acked offset so far, plus one), which
// already hold every acked send: the sends are not decoded twice.
func (s *shareScan) finish(tl *timeline) {
	if !s.used() {
		return
	}
	for _, p := range tl.Parts {
		if p.TP.Topic != s.topic {
			continue
		}
		i, l := tl.partIdx[p.TP], &series{}
		for j := range tl.Bins {
			if i >= len(tl.Bins[j].Parts) {
				continue
			}
			ob := tl.Bins[j].Parts[i]
			top := int64(-1)
			for _, sp := range []span{ob.Acked, ob.Lost, ob.Reused} {
				if sp.N > 0 {
					top = max(top, sp.Max)
				}
			}
			if top >= 0 {
				l.rise(int64(j+1)*tl.Width, top+1) // known by the bin's end
			}
		}
		s.logEnd[p.TP.Partition] = l
	}
}

func (l *shareLane) count(t int64, k, n int) {
	if n > 0 {
		l.cnt.add(t, k, n)
		l.total[k] += n
	}
}

// ackRow is the lane row of one ack as its completion reports it; renew
// only extends a lock (-1).
func ackRow(a histories.ShareAck, op histories.Type) int {
	outcome := a.Outcome
	if outcome == "" {
		outcome = histories.ShareOutcomeInfo // the completion did not report it
		if op == histories.Fail {
			outcome = histories.ShareOutcomeFail // a fail op applied none
		}
	}
	if outcome != histories.ShareOutcomeOK {
		return shRefused
	}
	switch a.Status {
	case histories.AckAccept:
		return shAccepted
	case histories.AckRelease:
		return shReleased
	case histories.AckReject:
		return shRejected
	}
	return -1
}

// members returns the lanes in name order.
func (s *shareScan) members() []*shareLane {
	var out []*shareLane
	for _, n := range slices.Sorted(maps.Keys(s.lanes)) {
		out = append(out, s.lanes[n])
	}
	return out
}

// partitions returns every partition the share group's series know.
func (s *shareScan) partitions() []int32 {
	seen := map[int32]bool{}
	for p := range s.delivered {
		seen[p] = true
	}
	for p := range s.logEnd {
		seen[p] = true
	}
	for _, pt := range s.spso {
		for p := range pt.start {
			seen[p] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}
