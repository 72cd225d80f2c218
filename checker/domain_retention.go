package checker

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/kchaos/kchaos/checker/anomaly"
	"github.com/kchaos/kchaos/checker/model"
	"github.com/kchaos/kchaos/checker/retention"
)

// retentionDomain is log-start-jump (package retention): the log start
// passed acked records that the topic's retention should still keep.
// Beside lost-write: a final read judges only the records at or past its
// log start, so records lost below it are this domain's to count. This
// file only hands the history to the package.
type retentionDomain struct{ domainBase }

// LogStartJump is the anomaly's name (package retention owns it).
const LogStartJump = retention.LogStartJump

var retentionKinds = []declared{
	{anomaly.Kind{Name: LogStartJump, Unit: "per jump", Rule: anomaly.Always}, func(x *Anomalies) int { return len(x.LogStartJump) }},
}

// retentionSlack allows for the producer's clock against the history's
// (one host): a record is stamped after its send's invoke.
const retentionSlack = int64(500e6)

func (retentionDomain) analyze(a *analysis) {
	cfg, ok := retentionConfig(a.c.opts.TopicConfigs)
	if !ok {
		return
	}
	maxValue := 0
	for i := range a.c.Vals {
		maxValue = max(maxValue, len(a.c.Vals[i].Str))
	}
	cfg.MaxOffsetBytes = retention.MaxOffsetBytes(maxValue)
	for tp, t := range a.c.TPs {
		p := retention.Partition{Name: t.Name()}
		for _, s := range a.acked[tp] {
			sd := &a.c.Sends[s]
			p.Records = append(p.Records, retention.Record{Offset: sd.Off, Invoked: sd.Call})
		}
		slices.SortFunc(p.Records, func(x, y retention.Record) int { return int(x.Offset - y.Offset) })
		for _, ls := range t.LogStarts {
			p.Starts = append(p.Starts, retention.Start{At: ls.At, Offset: ls.Offset, End: ls.End, By: "observer"})
		}
		for _, f := range t.Finals {
			op := &a.c.Finals[f]
			if st, ok := op.Starts[int32(tp)]; ok {
				end, has := op.Ends[int32(tp)]
				if !has {
					end = -1
				}
				p.Starts = append(p.Starts, retention.Start{At: op.Ret, Offset: st, End: end, By: fmt.Sprintf("final-read p%d", op.Proc)})
			}
		}
		slices.SortStableFunc(p.Starts, func(x, y retention.Start) int { return int(x.At - y.At) })
		// kchaos issues no delete-records: p.Deletes stays empty.
		a.r.Anomalies.LogStartJump = append(a.r.Anomalies.LogStartJump, retention.Check(cfg, p)...)
	}
}

// retentionConfig reads the topic's retention.ms and retention.bytes as
// run.json recorded them (applied, defaults included); without them the
// domain judges nothing (a bare history: Kafka's defaults are not assumed).
func retentionConfig(m map[string]string) (retention.Config, bool) {
	ms, err1 := strconv.ParseInt(m["retention.ms"], 10, 64)
	bytes, err2 := strconv.ParseInt(m["retention.bytes"], 10, 64)
	if err1 != nil || err2 != nil {
		return retention.Config{}, false
	}
	return retention.Config{RetentionMS: ms, RetentionBytes: bytes, Slack: retentionSlack}, true
}

// notes says when a log start moved and the domain could not judge it.
func (retentionDomain) notes(a *analysis) []string {
	if _, ok := retentionConfig(a.c.opts.TopicConfigs); ok {
		return nil
	}
	for _, t := range a.c.TPs {
		if n := len(t.LogStarts); n > 0 && t.LogStarts[n-1].Offset > 0 {
			return []string{"log-start-jump: not judged (run.json records no retention.ms and retention.bytes of the topic)"}
		}
	}
	return nil
}

// explain words each jump for the report and junit: where the start
// went, how many acked records retention should have kept, and why.
func (retentionDomain) explain(a *analysis) {
	tps := map[string]*model.TP{}
	for _, t := range a.c.TPs {
		tps[t.Name()] = t
	}
	for _, j := range a.r.Anomalies.LogStartJump {
		t := tps[j.Partition]
		if t == nil {
			continue
		}
		a.r.Explanations = append(a.r.Explanations, Explanation{Kind: LogStartJump, Topic: t.Topic, Partition: t.Partition,
			FirstOffset: j.First, LastOffset: j.To - 1, Count: j.Kept, Offsets: []int64{}, Values: []string{},
			Text: fmt.Sprintf("%s: the log start went from %d to %d (seen at %.1f s by the %s), past %d acked records that retention still keeps; %s",
				j.Partition, j.From, j.To, float64(j.At)/1e9, j.By, j.Kept, j.Why)})
	}
}
