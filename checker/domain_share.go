package checker

import (
	"github.com/kchaos/kchaos/checker/share"
	"github.com/kchaos/kchaos/histories"
)

// shareGroups is the share-group domain (KIP-932), package share: this
// file only feeds it the share ops as the history streams.
var shareGroups = port(share.Analyzer,
	func(x *Anomalies) *share.ShareAnomalies { return &x.ShareAnomalies },
	glue[*share.Found]{decoded: func(c *checker) any { return c.shares },
		stats: func(st *Stats, f *share.Found) { st.Shares = f.Stats() }})

// addShare gives a share op to the share domain (after addClient held it
// to the operation model).
func (c *checker) addShare(e *histories.Event) error {
	if !share.IsOp(e.F) {
		return nil
	}
	if c.shares == nil {
		c.shares = share.NewBuilder()
	}
	return c.shares.Add(e)
}
