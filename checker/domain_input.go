package checker

import (
	"github.com/kchaos/kchaos/checker/anomaly"
	"github.com/kchaos/kchaos/checker/domain"
)

// input is what every domain reads (domain.Input), made once per Result.
func (a *analysis) input() *domain.Input {
	if a.in == nil {
		o := a.c.opts
		a.in = &domain.Input{History: &a.c.History, Places: a.places, Finals: a.fin, Acked: a.acked,
			Options: anomaly.Options{Idempotent: o.Idempotent, ExactlyOnce: o.ExactlyOnce}, TxnTimeout: o.TxnTimeout,
			TopicConfigs: o.TopicConfigs, Facts: a,
			Porcupine: domain.Porcupine{Skip: o.SkipLinearizability, Timeout: o.PorcupineTimeout, Window: o.Window,
				VisualizeDir: o.VisualizeDir, Prefix: o.prefix, Loose: !tighten}}
	}
	return a.in
}

// Reused is the log domain's reused offsets of tp (domain.Facts).
func (a *analysis) Reused(tp int32) []int64 {
	t := a.c.TPs[tp]
	var out []int64
	for _, r := range a.r.Anomalies.OffsetReuse {
		if r.Topic == t.Topic && r.Partition == t.Partition {
			out = append(out, r.Offset)
		}
	}
	return out
}
