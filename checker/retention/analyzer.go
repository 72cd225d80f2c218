package retention

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/kchaos/kchaos/checker/domain"
	"github.com/kchaos/kchaos/checker/judge"
	"github.com/kchaos/kchaos/checker/model"
)

// Analyzer is the retention domain (domain.Analyzer): it hands the
// history's acked records and log start observations to Check. Beside
// lost-write: a final read judges only the records at or past its log
// start, so records lost below it are this domain's to count.
var Analyzer = domain.New("retention", analyze)

// RetentionAnomalies is the domain's part of the Result's anomalies (package
// checker embeds it) and declares its kinds: each list's JSON name, unit
// and rule (read by domain.New), in HISTORY.md's order.
type RetentionAnomalies struct {
	LogStartJump []Jump `json:"log-start-jump,omitempty" unit:"per jump" rule:"always"`
}

// Found is what the analyzer found beyond its entries.
type Found struct {
	domain.Base
	notes []string
}

// Notes says when a log start moved and the domain could not judge it.
func (f *Found) Notes() []string { return f.notes }

// slack allows for the producer's clock against the history's (one host):
// a record is stamped after its send's invoke.
const slack = int64(500e6)

// analyze finds the log start jumps of in's history and appends them to out.
func analyze(in *domain.Input, out *RetentionAnomalies) *Found {
	h := in.History
	cfg, ok := config(in.TopicConfigs)
	if !ok {
		return &Found{notes: unjudged(h)}
	}
	maxValue := 0
	for i := range h.Vals {
		maxValue = max(maxValue, len(h.Vals[i].Str))
	}
	cfg.MaxOffsetBytes = maxOffsetBytes(maxValue)
	for tp, t := range h.TPs {
		p := partition{Name: t.Name()}
		for _, s := range in.Acked[tp] {
			sd := &h.Sends[s]
			p.Records = append(p.Records, record{Offset: sd.Off, Invoked: sd.Call})
		}
		slices.SortFunc(p.Records, func(x, y record) int { return int(x.Offset - y.Offset) })
		for _, ls := range t.LogStarts {
			p.Starts = append(p.Starts, start{At: ls.At, Offset: ls.Offset, End: ls.End, By: "observer"})
		}
		for _, f := range t.Finals {
			op := &h.Finals[f]
			if st, ok := op.Starts[int32(tp)]; ok {
				end, has := op.Ends[int32(tp)]
				if !has {
					end = -1
				}
				p.Starts = append(p.Starts, start{At: op.Ret, Offset: st, End: end, By: fmt.Sprintf("final-read p%d", op.Proc)})
			}
		}
		slices.SortStableFunc(p.Starts, func(x, y start) int { return int(x.At - y.At) })
		// kchaos issues no delete-records: p.Deletes stays empty.
		out.LogStartJump = append(out.LogStartJump, check(cfg, p)...)
	}
	return &Found{Base: domain.Base{Expl: explain(h, out.LogStartJump)}}
}

// config reads the topic's retention.ms and retention.bytes as run.json
// recorded them (applied, defaults included); without them the domain
// judges nothing (a bare history: Kafka's defaults are not assumed).
func config(m map[string]string) (topicRetention, bool) {
	ms, err1 := strconv.ParseInt(m["retention.ms"], 10, 64)
	bytes, err2 := strconv.ParseInt(m["retention.bytes"], 10, 64)
	if err1 != nil || err2 != nil {
		return topicRetention{}, false
	}
	return topicRetention{RetentionMS: ms, RetentionBytes: bytes, Slack: slack}, true
}

// unjudged says when a log start moved and there was no config to judge it by.
func unjudged(h *model.History) []string {
	for _, t := range h.TPs {
		if n := len(t.LogStarts); n > 0 && t.LogStarts[n-1].Offset > 0 {
			return []string{"log-start-jump: not judged (run.json records no retention.ms and retention.bytes of the topic)"}
		}
	}
	return nil
}

// explain words each jump for the report and junit: where the start
// went, how many acked records retention should have kept, and why.
func explain(h *model.History, jumps []Jump) []judge.Explanation {
	tps := map[string]*model.TP{}
	for _, t := range h.TPs {
		tps[t.Name()] = t
	}
	var out []judge.Explanation
	for _, j := range jumps {
		t := tps[j.Partition]
		if t == nil {
			continue
		}
		out = append(out, judge.Explanation{Kind: LogStartJump, Topic: t.Topic, Partition: t.Partition,
			FirstOffset: j.First, LastOffset: j.To - 1, Count: j.Kept, Offsets: []int64{}, Values: []string{},
			Text: fmt.Sprintf("%s: the log start went from %d to %d (seen at %.1f s by the %s), past %d acked records that retention still keeps; %s",
				j.Partition, j.From, j.To, float64(j.At)/1e9, j.By, j.Kept, j.Why)})
	}
	return out
}
