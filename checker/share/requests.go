package share

import (
	"fmt"
	"slices"

	"github.com/kchaos/kchaos/histories"
)

// maxRequests bounds the request actions an entry names (the latest), as
// a probability rule may act on thousands of requests.
const maxRequests = 5

// reqAction is a request fault's action, for causes and context.
type reqAction struct {
	at int64
	a  histories.RequestAction
}

// request records a request fault's action at time at (a request event).
func (b *Builder) request(at int64, a histories.RequestAction) {
	b.reqs = append(b.reqs, reqAction{at: at, a: a})
}

// requestsIn names the request actions in [from, to], the latest
// maxRequests, on the clients of members (any client if none given):
// an entry names those on the requests of the members it is about.
func (b *Builder) requestsIn(from, to int64, members ...string) []string {
	var ids []string
	for _, m := range members {
		ids = append(ids, histories.ShareMemberClientID(b.group, m))
	}
	var out []string
	for _, r := range b.reqs {
		if r.at >= from && r.at <= to && (len(ids) == 0 || slices.Contains(ids, r.a.ClientID)) {
			out = append(out, fmt.Sprintf("%s at %.3fs", r.a, secs(r.at)))
		}
	}
	return out[max(0, len(out)-maxRequests):]
}

// membersOf are the members of deliveries ds, each once.
func (b *Builder) membersOf(ds []int) []string {
	var out []string
	for _, i := range ds {
		if m := b.dels[i].member; !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}
