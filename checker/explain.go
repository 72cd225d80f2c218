package checker

import (
	"github.com/kchaos/kchaos/checker/judge"
)

// Explanation groups an analyzer's entries of one partition in words,
// and Election, Takeover and NowHold say what the history shows around
// them (package judge owns them: every analyzer explains alike).
type (
	Explanation = judge.Explanation
	election    = judge.Election
	Takeover    = judge.Takeover
	nowHold     = judge.NowHold
)
