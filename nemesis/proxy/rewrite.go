package proxy

import (
	"reflect"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// addressMapper gives the address the proxy listens on for a broker that
// advertised host:port under node id node. A mapper may create the
// listener on first sight, which is how brokers added later are covered.
type addressMapper func(node int32, host string, port int32) (string, int32)

// addressesFrom is, for every API whose response names broker (or
// controller) hosts and ports, the first version that does: these
// responses are decoded and rewritten, all others travel untouched (so a
// Fetch below v16 costs no decode). Found by grepping kmsg's generated
// code for Host fields of responses. The raft APIs (Vote,
// Begin/EndQuorumEpoch, FetchSnapshot, UpdateRaftVoter) and
// DescribeQuorum name controllers: rewriting them keeps controllers
// reached through the proxy when their traffic is routed through it.
var addressesFrom = map[int16]int16{
	int16(kmsg.Produce):          10, // Brokers (NodeEndpoints, a tag)
	int16(kmsg.Fetch):            16, // Brokers (NodeEndpoints, a tag)
	int16(kmsg.Metadata):         0,
	int16(kmsg.FindCoordinator):  0, // v0-3 one coordinator, v4+ Coordinators
	int16(kmsg.DescribeCluster):  0,
	int16(kmsg.ShareFetch):       0,
	int16(kmsg.ShareAcknowledge): 0,
	int16(kmsg.Vote):             1,
	int16(kmsg.BeginQuorumEpoch): 1,
	int16(kmsg.EndQuorumEpoch):   1,
	int16(kmsg.DescribeQuorum):   2,
	int16(kmsg.FetchSnapshot):    1,
	int16(kmsg.UpdateRaftVoter):  0,
}

// carriesAddresses reports whether a response of this API and version
// can name brokers.
func carriesAddresses(key, version int16) bool {
	from, ok := addressesFrom[key]
	return ok && version >= from
}

// rewriteAddresses replaces every broker address in resp by the proxy's
// (m) and reports whether it changed anything. Entries without an
// address (a FindCoordinator error: node -1, host "") are left alone.
func rewriteAddresses(resp kmsg.Response, m addressMapper) bool {
	changed := false
	set := func(node int32, host *string, port *int32) {
		if *host == "" || *port <= 0 {
			return
		}
		h, p := m(node, *host, *port)
		if h != *host || p != *port {
			*host, *port, changed = h, p, true
		}
	}
	set16 := func(node int32, host *string, port *uint16) {
		p := int32(*port)
		set(node, host, &p)
		*port = uint16(p)
	}
	switch r := resp.(type) {
	case *kmsg.MetadataResponse:
		for i := range r.Brokers {
			b := &r.Brokers[i]
			set(b.NodeID, &b.Host, &b.Port)
		}
	case *kmsg.FindCoordinatorResponse:
		if r.NodeID >= 0 {
			set(r.NodeID, &r.Host, &r.Port)
		}
		for i := range r.Coordinators {
			c := &r.Coordinators[i]
			if c.NodeID >= 0 {
				set(c.NodeID, &c.Host, &c.Port)
			}
		}
	case *kmsg.DescribeClusterResponse:
		for i := range r.Brokers {
			b := &r.Brokers[i]
			set(b.NodeID, &b.Host, &b.Port)
		}
	case *kmsg.ProduceResponse:
		for i := range r.Brokers {
			b := &r.Brokers[i]
			set(b.NodeID, &b.Host, &b.Port)
		}
	case *kmsg.FetchResponse:
		for i := range r.Brokers {
			b := &r.Brokers[i]
			set(b.NodeID, &b.Host, &b.Port)
		}
	case *kmsg.ShareFetchResponse:
		for i := range r.NodeEndpoints {
			b := &r.NodeEndpoints[i]
			set(b.NodeID, &b.Host, &b.Port)
		}
	case *kmsg.ShareAcknowledgeResponse:
		for i := range r.NodeEndpoints {
			b := &r.NodeEndpoints[i]
			set(b.NodeID, &b.Host, &b.Port)
		}
	case *kmsg.VoteResponse:
		for i := range r.NodeEndpoints {
			b := &r.NodeEndpoints[i]
			set16(b.NodeID, &b.Host, &b.Port)
		}
	case *kmsg.BeginQuorumEpochResponse:
		for i := range r.NodeEndpoints {
			b := &r.NodeEndpoints[i]
			set16(b.NodeID, &b.Host, &b.Port)
		}
	case *kmsg.EndQuorumEpochResponse:
		for i := range r.NodeEndpoints {
			b := &r.NodeEndpoints[i]
			set16(b.NodeID, &b.Host, &b.Port)
		}
	case *kmsg.FetchSnapshotResponse:
		for i := range r.NodeEndpoints {
			b := &r.NodeEndpoints[i]
			set16(b.NodeID, &b.Host, &b.Port)
		}
	case *kmsg.DescribeQuorumResponse:
		for i := range r.Nodes {
			n := &r.Nodes[i]
			for j := range n.Listeners {
				l := &n.Listeners[j]
				set16(n.NodeID, &l.Host, &l.Port)
			}
		}
	case *kmsg.UpdateRaftVoterResponse:
		if l := &r.CurrentLeader; l.LeaderID >= 0 {
			set(l.LeaderID, &l.Host, &l.Port)
		}
	}
	return changed
}

// capAPIVersions lowers, in an ApiVersions response, every API's max
// version to the highest kmsg can decode, so that no client speaks a
// version whose response the proxy could not rewrite or fault. APIs kmsg
// does not know are left as the broker said: they only pass through.
func capAPIVersions(r *kmsg.ApiVersionsResponse) bool {
	changed := false
	for i := range r.ApiKeys {
		k := &r.ApiKeys[i]
		if !knownAPI(k.ApiKey) {
			continue
		}
		if max := kmsg.ResponseForKey(k.ApiKey).MaxVersion(); k.MaxVersion > max {
			k.MaxVersion, changed = max, true
		}
	}
	return changed
}

// errorCodes is every error code a message carries (fields named
// ErrorCode or ending in it, at any depth), each once, in the order
// first met. Reflection, because the proxy reports the codes of any
// response, and 127 response structs name their codes the same way.
func errorCodes(msg any) []int16 {
	var out []int16
	walkErrorCodes(reflect.ValueOf(msg), func(v reflect.Value) {
		c := int16(v.Int())
		for _, o := range out {
			if o == c {
				return
			}
		}
		out = append(out, c)
	})
	return out
}

// setErrorCodes sets every error code field of msg to code (rewrite-error).
func setErrorCodes(msg any, code int16) {
	walkErrorCodes(reflect.ValueOf(msg), func(v reflect.Value) { v.SetInt(int64(code)) })
}

var int16Type = reflect.TypeFor[int16]()

func walkErrorCodes(v reflect.Value, fn func(reflect.Value)) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			walkErrorCodes(v.Elem(), fn)
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Struct {
			for i := 0; i < v.Len(); i++ {
				walkErrorCodes(v.Index(i), fn)
			}
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			fv := v.Field(i)
			if f.Type == int16Type && len(f.Name) >= 9 && f.Name[len(f.Name)-9:] == "ErrorCode" {
				fn(fv)
				continue
			}
			walkErrorCodes(fv, fn)
		}
	}
}
