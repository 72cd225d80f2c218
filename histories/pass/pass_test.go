package pass

import (
	"errors"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/histories"
)

const history = `{"index":0,"time":1,"process":-1,"type":"invoke","f":"pause","value":{"fault":"pause","nodes":[1]}}
{"index":1,"time":2,"process":-1,"type":"ok","f":"pause","value":{"details":{"pid":7}}}
{"index":2,"time":3,"process":0,"type":"invoke","f":"send","value":{"topic":"t","partition":0,"value":"a"}}
{"index":3,"time":4,"process":-2,"type":"ok","f":"observe","value":{"topic":"t","partition":0,"leader":1,"leader_epoch":2,"isr":[1]}}
{"index":4,"time":5,"process":-1,"type":"invoke","f":"resume","value":{"fault":"pause"}}
{"index":5,"time":6,"process":-1,"type":"ok","f":"resume","value":{"fault":"pause"}}
{"index":6,"time":7,"process":0,"type":"ok","f":"send","value":{"topic":"t","partition":0,"value":"a","offset":0}}
{"index":7,"time":8,"process":-1,"type":"invoke","f":"kill","value":{"fault":"kill","nodes":[2]}}
{"index":8,"time":9,"process":-2,"type":"ok","f":"quorum","value":{"leader_id":1000,"leader_epoch":3,"high_watermark":5,"voters":[]}}
{"index":9,"ti`

// TestPass: one read feeds the Timeline first, then each sink in order;
// the Timeline pairs the faults, follows what holds and keeps the typed
// samples; a torn last line ends the pass as torn.
func TestPass(t *testing.T) {
	p := New()
	var seen []string
	var holding []bool
	p.Attach(SinkFunc(func(e *histories.Event) {
		seen = append(seen, e.F)
		holding = append(holding, p.Timeline.Holding())
		if o := p.Timeline.LastObserved(); (o != nil) != (e.F == histories.FObserve) {
			t.Errorf("event %d: last observed %v", e.Index, o)
		}
	}))
	p.Read(strings.NewReader(history))
	tl := &p.Timeline
	if !p.Finished() || !tl.Torn || tl.Err != nil || tl.Events != 9 || tl.End != 9 || len(seen) != 9 {
		t.Fatalf("finished %v torn %v err %v events %d end %d seen %d", p.Finished(), tl.Torn, tl.Err, tl.Events, tl.End, len(seen))
	}
	// The pause holds from its ok (index 1) to the resume's ok (index 5).
	want := []bool{false, true, true, true, true, false, false, false, false}
	for i := range want {
		if holding[i] != want[i] {
			t.Errorf("holding at %d: %v, want %v", i, holding[i], want[i])
		}
	}
	f := tl.Faults()
	if len(f) != 3 || f[0].F != "pause" || f[0].Start != 1 || f[0].End != 2 || f[0].Type != histories.OK ||
		f[0].Value.Details["pid"] != float64(7) || len(f[0].Value.Nodes) != 1 || f[2].F != "kill" || f[2].Type != "" {
		t.Errorf("faults %+v", f)
	}
	if tl.Nemesis[1].Value.Details == nil || len(tl.Nemesis[0].Value.Details) != 0 {
		t.Errorf("the merge wrote into the events' values: %+v", tl.Nemesis[:2])
	}
	if len(tl.Observed) != 1 || tl.Observed[0].Value.Leader != 1 || len(tl.Quorum) != 1 || tl.Quorum[0].Value.LeaderID != 1000 {
		t.Errorf("samples %+v %+v", tl.Observed, tl.Quorum)
	}

	bad := New()
	bad.Read(strings.NewReader(history[:strings.Index(history, "\n")+1] + "not json\n"))
	var le *histories.LineError
	if !errors.As(bad.Timeline.Err, &le) || le.Line != 2 || bad.Timeline.Events != 1 {
		t.Errorf("a malformed line: err %v, events %d", bad.Timeline.Err, bad.Timeline.Events)
	}
}
