package txncheck

import (
	"github.com/kchaos/kchaos/checker/linearize"
	"github.com/kchaos/kchaos/checker/model"
)

// txnStats counts the txns by outcome, and their sends and polled records.
func (a *run) txnStats() *TxnStats {
	c := a.c
	if len(c.Txns) == 0 && len(c.TxnTP) == 0 {
		return nil
	}
	ts := &TxnStats{Sends: len(c.TxnSends), NotLinearized: linearize.LeftOut(a.c), WWEdges: a.wwN, WREdges: a.wrN}
	for i := range c.Txns {
		switch c.Txns[i].Typ {
		case model.OpOK:
			ts.OK++
		case model.OpFail:
			ts.Fail++
		default:
			ts.Info++
		}
	}
	for i := range c.TxnPolls {
		ts.PollRecords += int(c.TxnPolls[i].End - c.TxnPolls[i].Start)
	}
	return ts
}
