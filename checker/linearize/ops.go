package linearize

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/anishathalye/porcupine"

	"github.com/kchaos/kchaos/checker/judge"
	"github.com/kchaos/kchaos/checker/logmodel"
	"github.com/kchaos/kchaos/checker/model"
)

// linApp is one append of the model: a distinct (offset, value) pair.
type linApp struct {
	off       int64
	val       int32
	proc      int32
	call, ret int64
	win       int64
	id        int32
}

type linPair struct {
	off int64
	val int32
}

// linOps builds the porcupine history of one topic-partition: its appends,
// its polls and its final read, cut into windows of offsets (window 0: one
// window). It returns the ops, per window the offsets they touch, and the
// first real-time violation of the appends (realTime), if any. It runs
// beside the other partitions' (linearizability): it writes only its
// sends' entries of a.ackApp.
func (a *run) linOps(tp int32, segs []seg, window int64) ([]porcupine.Operation, map[int64]*Window, *RealTimeViolation) {
	c := a.h
	winOf := func(off int64) int64 {
		if window == 0 {
			return 0
		}
		return off / window
	}
	// Most records are the acked pair of their value's send: those are
	// found through a.ackApp (made by linearizability); the map holds the
	// other pairs.
	idx := map[linPair]int32{}
	// Sized for the acked sends and a few values only reads show:
	// growing it by appending copied it over and over.
	apps := make([]linApp, 0, len(a.acked[tp])+len(a.acked[tp])/8+16)
	for _, i := range a.acked[tp] {
		s := &c.Sends[i]
		if c.Vals[s.Val].Send == i {
			a.ackApp[i] = int32(len(apps))
		} else if _, dup := idx[linPair{s.Off, s.Val}]; dup {
			continue // a value sent twice and acked twice at one offset
		} else {
			idx[linPair{s.Off, s.Val}] = int32(len(apps))
		}
		apps = append(apps, linApp{off: s.Off, val: s.Val, proc: s.Proc, call: s.Call, ret: s.Ret})
	}
	lookup := func(r *model.Rec) (int32, bool) {
		if s := c.Vals[r.Val].Send; s >= 0 {
			if op := &c.Sends[s]; op.Typ == model.OpOK && op.TP == tp && op.Off == r.Off {
				return a.ackApp[s], true
			}
		}
		i, ok := idx[linPair{r.Off, r.Val}]
		return i, ok
	}
	// see returns the append that explains a record read by a read that
	// returned at ret, making one for a value whose send may have written
	// it; -1 if nothing can explain it.
	see := func(r *model.Rec, ret int64) int32 {
		i, ok := lookup(r)
		if !ok {
			i = -1
			if s := c.Explainer(r.Val, tp, r.Off); s >= 0 && c.Sends[s].Typ != model.OpFail {
				i = int32(len(apps))
				apps = append(apps, linApp{off: r.Off, val: r.Val, proc: c.Sends[s].Proc, call: c.Sends[s].Call, ret: infinity})
			}
			idx[linPair{r.Off, r.Val}] = i
		}
		if i >= 0 && !a.cfg.Loose {
			apps[i].ret = min(apps[i].ret, ret)
		}
		return i
	}
	var finRecs []model.Rec
	var fin *model.Read
	if f := c.TPs[tp].Final; f >= 0 {
		fin, finRecs = &c.Finals[f], judge.FinalRecs(a.h, tp)
	}
	// The append each record's see found, in the order read below (the
	// reads' records, then the final read's): looking a record up is a
	// walk through the value and send tables, done once.
	var nrec int
	for _, sg := range segs {
		nrec += int(sg.end - sg.start)
	}
	recApp := make([]int32, 0, nrec+len(finRecs))
	for _, sg := range segs {
		for j := sg.start; j < sg.end; j++ {
			recApp = append(recApp, see(&c.Recs[j], sg.op.Ret))
		}
	}
	for j := range finRecs {
		recApp = append(recApp, see(&finRecs[j], fin.Ret))
	}
	wins := map[int64]*Window{}
	touch := func(off int64) int64 {
		w := winOf(off)
		win := wins[w]
		if win == nil {
			win = &Window{FirstOffset: off, LastOffset: off}
			wins[w] = win
		}
		win.FirstOffset, win.LastOffset = min(win.FirstOffset, off), max(win.LastOffset, off)
		return w
	}
	count := map[int64]int32{}
	clients := map[int32]int{}
	client := func(p int32) int {
		id, ok := clients[p]
		if !ok {
			id = len(clients)
			clients[p] = id
		}
		return id
	}
	prev := prevOffsets(apps, winOf)
	appOps := make([]logmodel.Op, len(apps)) // one allocation for the appends' inputs
	for i := range apps {
		ap := &apps[i]
		ap.win = touch(ap.off)
		ap.id = count[ap.win]
		count[ap.win]++
		ap.ret = max(ap.ret, ap.call) // a read from the future: the read still precedes it
		appOps[i] = logmodel.Op{Kind: logmodel.Append, Win: ap.win, Proc: ap.proc, ID: ap.id, Off: ap.off, Prev: prev[i], Val: ap.val}
	}
	// The ops, sized once (growing them by appending copied a partition's
	// ops several times over, a fifth of what building them allocated):
	// the appends, a read op per run of a read's records in one window,
	// and a final op per window, the appends' windows and the final
	// read's (and, rarely, a few only the reads touch: then it grows).
	ops := make([]porcupine.Operation, 0, len(apps)+readOps(c.Recs, segs, winOf)+finalBound(fin != nil, finRecs, len(wins), winOf))
	for i := range apps {
		ops = append(ops, porcupine.Operation{ClientId: client(apps[i].proc), Call: apps[i].call, Return: apps[i].ret, Input: &appOps[i]})
	}
	rt := a.realTime(tp, apps)
	// appID is the id in its window of the append that explains the k-th
	// record of recApp, -1 for none.
	appID := func(k int) int32 {
		if i := recApp[k]; i >= 0 {
			return apps[i].id
		}
		return -1
	}
	// The reads' inputs come from blocks and their ids from one slice:
	// an allocation per read (and per growing IDs) was a tenth of
	// building the ops.
	ids := make([]int32, nrec)
	var block []logmodel.Op
	k := 0
	for _, sg := range segs {
		for j := sg.start; j < sg.end; {
			w := winOf(c.Recs[j].Off)
			if len(block) == cap(block) {
				block = make([]logmodel.Op, 0, 1024)
			}
			block = append(block, logmodel.Op{Kind: logmodel.Read, Win: w, Proc: sg.op.Proc})
			in := &block[len(block)-1]
			e, k0 := j, k
			for ; e < sg.end && winOf(c.Recs[e].Off) == w; e++ {
				ids[k] = appID(k)
				k++
				touch(c.Recs[e].Off)
			}
			in.IDs = ids[k0:k:k]
			in.Recs = c.Recs[j:e]
			ops = append(ops, porcupine.Operation{ClientId: client(sg.op.Proc), Call: sg.op.Call, Return: sg.op.Ret, Input: in})
			j = e
		}
	}
	if fin != nil {
		ops = a.finalOps(tp, fin, finRecs, apps, func(j int) int32 { return appID(k + j) }, winOf, touch, client(fin.Proc), ops)
	}
	for i := range ops {
		wins[ops[i].Input.(*logmodel.Op).Win].Ops++
	}
	logmodel.RankTimes(ops)
	return ops, wins, rt
}

// readOps counts the read ops of segs: one per run of a read's records
// in one window.
func readOps(recs []model.Rec, segs []seg, winOf func(int64) int64) int {
	n := 0
	for _, sg := range segs {
		for j := sg.start; j < sg.end; n++ {
			w := winOf(recs[j].Off)
			for j++; j < sg.end && winOf(recs[j].Off) == w; j++ {
			}
		}
	}
	return n
}

// finalBound bounds the final read's ops given the windows of the appends
// (wins): one per window of the appends and per run of the final read's
// records in one window, and a few for windows only the reads touch.
func finalBound(final bool, recs []model.Rec, wins int, winOf func(int64) int64) int {
	if !final {
		return 0
	}
	n := wins + 16
	for j := range recs {
		if j == 0 || winOf(recs[j].Off) != winOf(recs[j-1].Off) {
			n++
		}
	}
	return n
}

// finalOps adds the final read, one op per window; appID(j) is the id of
// the append that explains recs[j], -1 for none.
func (a *run) finalOps(tp int32, fin *model.Read, recs []model.Rec, apps []linApp, appID func(j int) int32,
	winOf func(int64) int64, touch func(int64) int64, client int,
	ops []porcupine.Operation) []porcupine.Operation {
	start := fin.Starts[tp]
	end, ok := fin.Ends[tp]
	if !ok {
		end = math.MinInt64
	}
	per := map[int64]*logmodel.Op{}
	for i := range ops {
		w := ops[i].Input.(*logmodel.Op).Win
		if per[w] == nil {
			per[w] = &logmodel.Op{Kind: logmodel.Final, Win: w, Proc: fin.Proc, End: end}
		}
	}
	for _, r := range recs {
		if w := touch(r.Off); per[w] == nil {
			per[w] = &logmodel.Op{Kind: logmodel.Final, Win: w, Proc: fin.Proc, End: end}
		}
	}
	set := func(b *[]uint64, id int32) {
		for int(id/64) >= len(*b) {
			*b = append(*b, 0)
		}
		(*b)[id/64] |= 1 << (id % 64)
	}
	for i := range apps {
		if apps[i].off >= start {
			set(&per[apps[i].win].Mask, apps[i].id)
		}
	}
	for j := range recs {
		in := per[winOf(recs[j].Off)]
		if in.Recs == nil {
			in.Recs = recs[j:j]
		}
		in.Recs = in.Recs[:len(in.Recs)+1]
		id := appID(j)
		if id < 0 {
			in.Bad = true
			continue
		}
		set(&in.Want, id)
		set(&in.Mask, id)
	}
	keys := slices.Sorted(maps.Keys(per))
	for _, w := range keys {
		ops = append(ops, porcupine.Operation{ClientId: client, Call: fin.Call, Return: fin.Ret, Input: per[w]})
	}
	return ops
}

// prevOffsets gives each append the next lower offset that another append
// of its window claims (math.MinInt64 if none). Linear after the sort,
// however many appends share an offset.
func prevOffsets(apps []linApp, winOf func(int64) int64) []int64 {
	order := byOffset(apps)
	prev := make([]int64, len(apps))
	lower, cur := int64(math.MinInt64), int64(math.MinInt64)
	for k, i := range order {
		off := apps[i].off
		if k == 0 || off != cur {
			if k > 0 && winOf(cur) == winOf(off) {
				lower = cur
			} else {
				lower = math.MinInt64
			}
			cur = off
		}
		prev[i] = lower
	}
	return prev
}

func byOffset(apps []linApp) []int32 {
	order := make([]int32, len(apps))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(x, y int32) int { return cmp.Compare(apps[x].off, apps[y].off) })
	return order
}

// RealTimeViolation is a pair of appends whose offsets go against real
// time: Later was invoked after Earlier was acked (or read), yet took a
// lower offset. Kafka hands out offsets in append order, so no correct log
// allows it; the model fails on it too, and this direct check finds it
// whatever windows the model is cut into.
type RealTimeViolation struct {
	Value       string  `json:"value"`
	Offset      int64   `json:"offset"`
	Process     int32   `json:"process"`
	InvokedS    float64 `json:"invoked_s"`
	AfterValue  string  `json:"after_value"`
	AfterOffset int64   `json:"after_offset"`
	// AfterDoneS is when the higher offset was known to exist: its ack, or
	// the first read that returned it.
	AfterDoneS float64 `json:"after_done_s"`
	Text       string  `json:"text"`
}

// realTime finds the first pair of appends of tp, by offset, whose order
// goes against real time: i at a lower offset than j, invoked after j
// returned. One pass over the appends by offset, keeping the latest
// invoke among lower offsets.
func (a *run) realTime(tp int32, apps []linApp) *RealTimeViolation {
	order := byOffset(apps)
	best := int32(-1) // the append with the latest invoke among strictly lower offsets
	pending := int32(-1)
	for k, i := range order {
		if k > 0 && apps[order[k-1]].off != apps[i].off {
			if pending >= 0 && (best < 0 || apps[pending].call > apps[best].call) {
				best = pending
			}
			pending = -1
		}
		if best >= 0 && apps[i].ret < apps[best].call {
			lo, hi := &apps[best], &apps[i]
			v := &RealTimeViolation{Value: a.h.Vals[lo.val].Str, Offset: lo.off, Process: lo.proc, InvokedS: judge.Secs(lo.call),
				AfterValue: a.h.Vals[hi.val].Str, AfterOffset: hi.off, AfterDoneS: judge.Secs(hi.ret)}
			v.Text = fmt.Sprintf("%s offset %d: p%d's send of %s was invoked at %.3f s, after offset %d (%s) was acked or read at %.3f s, yet took the lower offset",
				a.h.TPs[tp].Name(), lo.off, lo.proc, v.Value, v.InvokedS, hi.off, v.AfterValue, v.AfterDoneS)
			return v
		}
		if pending < 0 || apps[i].call > apps[pending].call {
			pending = i
		}
	}
	return nil
}
