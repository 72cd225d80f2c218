package checker

import (
	"github.com/kchaos/kchaos/checker/judge"
	"github.com/kchaos/kchaos/checker/model"
)

// The final-read judgement the domains share is package judge's
// (judge.Finals: every completed final read is evidence); these are its
// names in this package's analyzers.

type (
	judgement    = judge.Judgement
	seenAt       = judge.SeenAt
	FinalReadRef = judge.FinalReadRef
)

const (
	judgedHeld      = judge.JudgedHeld
	judgedLost      = judge.JudgedLost
	judgedUnseen    = judge.JudgedUnseen
	judgedRetention = judge.JudgedRetention
	judgedNoFinal   = judge.JudgedNoFinal
)

// prepareFinals judges the completed final reads (judge.NewFinals).
func (a *analysis) prepareFinals() {
	a.fin = judge.NewFinals(&a.c.History)
	a.seenPlain = a.fin.SeenPlain
}

// holds reports whether completed final read f holds value val.
func (a *analysis) holds(f, val int32) bool { return a.fin.Holds(f, val) }

// inSome reports whether some completed final read holds value val.
func (a *analysis) inSome(val int32) bool { return a.fin.InSome(val) }

// judge is what the completed final reads of tp say of value val at off,
// known since at (judge.Finals.Judge).
func (a *analysis) judge(val, tp int32, off, at int64) (judgement, int32) {
	return a.fin.Judge(val, tp, off, at)
}

// finalRecsOf returns the records of tp in completed final read f, by
// offset.
func (a *analysis) finalRecsOf(f, tp int32) []rec { return judge.FinalRecsOf(&a.c.History, f, tp) }

// finalAtOf returns final read f's record of tp at off.
func (a *analysis) finalAtOf(f, tp int32, off int64) (rec, bool) {
	return judge.FinalAtOf(&a.c.History, f, tp, off)
}

// finalRef names completed final read f, with its end on tp.
func (a *analysis) finalRef(f, tp int32) *FinalReadRef { return judge.FinalRef(&a.c.History, f, tp) }

// eachRead calls fn on every record read (judge.EachRead).
func (a *analysis) eachRead(fn func(f string, op *model.Read, r *rec)) {
	judge.EachRead(&a.c.History, fn)
}

// The names of reads in sources that are not an f of the history.
const (
	unfinishedFinal = judge.UnfinishedFinal
	txnPoll         = judge.TxnPoll
)
