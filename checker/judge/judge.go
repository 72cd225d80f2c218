// Package judge holds what several of the checker's analyzers share when
// they read a decoded history (package model): how a time is said in
// results.json, which records a partition's final read holds, which sends
// were acked with an offset, and where the cluster stood at a moment
// (Places: leader, epoch, ISR, ELR and the faults around it, the Where
// and FaultRef of every entry). It imports only the model and the
// history's vocabulary, so that every analyzer can use it and none
// restates it.
package judge

import (
	"math"
	"sort"

	"github.com/kchaos/kchaos/checker/model"
)

// Secs is a history time (nanoseconds) in seconds, rounded to the
// millisecond, as results.json gives times.
func Secs(t int64) float64 { return math.Round(float64(t)/1e6) / 1e3 }

// FinalRecs returns the records of tp in its last completed final read,
// by offset (nil without one): the read that judges the partition.
func FinalRecs(h *model.History, tp int32) []model.Rec {
	return FinalRecsOf(h, h.TPs[tp].Final, tp)
}

// FinalRecsOf returns the records of tp in completed final read f, by
// offset (nil for f < 0).
func FinalRecsOf(h *model.History, f, tp int32) []model.Rec {
	if f < 0 {
		return nil
	}
	op := h.Finals[f]
	recs := h.Recs[op.Start:op.End]
	lo := sort.Search(len(recs), func(i int) bool { return recs[i].TP >= tp })
	hi := sort.Search(len(recs), func(i int) bool { return recs[i].TP > tp })
	return recs[lo:hi]
}

// Acked returns, per partition, its sends acked with an offset, in send
// order.
func Acked(h *model.History) [][]int32 {
	acked := make([][]int32, len(h.TPs))
	for i := range h.Sends {
		if s := &h.Sends[i]; s.Typ == model.OpOK {
			acked[s.TP] = append(acked[s.TP], int32(i))
		}
	}
	return acked
}
