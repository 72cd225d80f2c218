package checker

import (
	"github.com/kchaos/kchaos/checker/judge"
)

// finalReadRef names one completed final read (package judge owns it and
// the final-read judgement the domains share: judge.Finals).
type finalReadRef = judge.FinalReadRef

// prepareFinals judges the completed final reads (judge.NewFinals): every
// completed final read is evidence.
func (a *analysis) prepareFinals() { a.fin = judge.NewFinals(&a.c.History) }
