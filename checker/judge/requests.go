package judge

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kchaos/kchaos/histories"
)

// RequestRef names one action of a request fault (a request event,
// histories.FRequest): what the proxy did to which client's request of
// which API, on which broker, when. It is a fault moment, not a fault:
// the request fault's op is the fault (a FaultRef, with its window), and
// the action is when it struck, which the op's invoke does not say (a
// rule waits for the request it selects). Entries name the actions in
// their window beside their faults; no verdict rests on them.
type RequestRef struct {
	histories.RequestAction
	AtS float64 `json:"at_s"`
}

func (r RequestRef) String() string {
	return fmt.Sprintf("%s at %.1f s", r.RequestAction, r.AtS)
}

// maxRequests bounds the actions an entry names (the latest), as
// FaultsBetween bounds the faults: a rule with a probability may act on
// thousands of requests.
const maxRequests = 5

// RequestsBetween returns the request actions in (from, to], at most the
// last 5, the window FaultsBetween names faults in. The actions are in
// time order (file order, and a history's times never go back): two
// binary searches find them.
func (p *Places) RequestsBetween(from, to int64) []RequestRef {
	rs := p.h.Requests
	lo := sort.Search(len(rs), func(i int) bool { return rs[i].At > from })
	hi := sort.Search(len(rs), func(i int) bool { return rs[i].At > to })
	var out []RequestRef
	for _, r := range rs[max(lo, hi-maxRequests):max(lo, hi)] {
		out = append(out, RequestRef{RequestAction: r.A, AtS: Secs(r.At)})
	}
	return out
}

// RequestsWords words request actions for an explanation's text,
// prefixed by lead ("request actions between: ..."); "" if none.
func RequestsWords(lead string, rs []RequestRef) string {
	if len(rs) == 0 {
		return ""
	}
	words := make([]string, len(rs))
	for i, r := range rs {
		words[i] = r.String()
	}
	return lead + strings.Join(words, ", ")
}
