package workloads

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/histories"
)

// GroupProtocolMixed is a group's protocol when its members run both
// (GroupConfig.ProtocolLabel): run.json's group.protocol and the
// group.protocol setting that expectations condition on.
const GroupProtocolMixed = "mixed"

// MaxGroupMetadataBytes bounds GroupConfig.MetadataBytes: 4,000,000 bytes
// per member, above __consumer_offsets' default message size (1 MiB) with
// one member, and still under a request's default maximum (100 MiB) with
// the largest group.
const MaxGroupMetadataBytes = 4_000_000

// isZero: no group field is set.
func (g *GroupConfig) isZero() bool { return reflect.ValueOf(*g).IsZero() }

// MemberProtocol is the rebalance protocol of member i: Protocols[i] when
// the protocols are given one by one, else Protocol (classic when
// unset).
func (g *GroupConfig) MemberProtocol(i int) string {
	if len(g.Protocols) > 0 {
		if i >= 0 && i < len(g.Protocols) {
			return g.Protocols[i]
		}
		return ""
	}
	if g.Protocol == "" {
		return histories.ProtocolClassic
	}
	return g.Protocol
}

// memberProtocols is every protocol a member runs, with repeats.
func (g *GroupConfig) memberProtocols() []string {
	if len(g.Protocols) > 0 {
		return g.Protocols
	}
	return []string{g.MemberProtocol(0)}
}

// UsesProtocol reports whether a member of the group runs protocol p
// (false without a group). Every rule that asks for a protocol (the
// consumer protocol's Kafka 4.0, its session timeout from the broker, a
// driver without it, classic-only client settings) asks through it, so
// that a mixed group is judged member by member.
func (g *GroupConfig) UsesProtocol(p string) bool {
	return g.Enabled() && slices.Contains(g.memberProtocols(), p)
}

// ProtocolLabel is the group's protocol in one word: the members' one
// protocol, GroupProtocolMixed when they run both, "" without a group.
func (g *GroupConfig) ProtocolLabel() string {
	if !g.Enabled() {
		return ""
	}
	ps := slices.Compact(slices.Sorted(slices.Values(g.memberProtocols())))
	if len(ps) == 1 {
		return ps[0]
	}
	return GroupProtocolMixed
}

// DescribeProtocol is the protocol whose describe API is asked first for
// the group's final state (admin.Client.DescribeGroup): consumer when any
// member runs it, since such a group starts as a consumer group; the
// describe falls back to the other API when the coordinator holds the
// group as the other type (a mixed group downgraded to classic when its
// last consumer-protocol member left).
func (g *GroupConfig) DescribeProtocol() string {
	if g.UsesProtocol(histories.ProtocolConsumer) {
		return histories.ProtocolConsumer
	}
	return histories.ProtocolClassic
}

// ProtocolPath is the field that gives the group's protocols, for
// refusals: group.protocols when given, else group.protocol.
func (g *GroupConfig) ProtocolPath() string {
	if len(g.Protocols) > 0 {
		return "group.protocols"
	}
	return "group.protocol"
}

// validateProtocols reports the problems of protocol, protocols and
// metadata_bytes, paths under "group".
func (g *GroupConfig) validateProtocols(driver string) []FieldError {
	var ps []FieldError
	add := func(path, format string, args ...any) {
		ps = append(ps, FieldError{Path: "group." + path, Msg: fmt.Sprintf(format, args...)})
	}
	want := fmt.Sprintf("want %s or %s (KIP-848, Kafka 4.0+)", histories.ProtocolClassic, histories.ProtocolConsumer)
	valid := func(p string) bool { return p == histories.ProtocolClassic || p == histories.ProtocolConsumer }
	if len(g.Protocols) == 0 {
		if !valid(g.Protocol) {
			add("protocol", "%q: %s", g.Protocol, want)
		}
	} else {
		if g.Protocol != "" {
			add("protocol", "%q: omit it with group.protocols (member i runs protocols[i])", g.Protocol)
		}
		if len(g.Protocols) != g.Members {
			add("protocols", "%d entries for %d members: want one per member", len(g.Protocols), g.Members)
		}
		for i, p := range g.Protocols {
			if !valid(p) {
				add(fmt.Sprintf("protocols[%d]", i), "%q: %s", p, want)
			}
		}
	}
	switch n := g.MetadataBytes; {
	case n < 0 || n > MaxGroupMetadataBytes:
		add("metadata_bytes", "%d: want 0..%d", n, MaxGroupMetadataBytes)
	case n > 0 && !g.UsesProtocol(histories.ProtocolClassic):
		add("metadata_bytes", "%d: only a classic member sends subscription metadata, and no member runs classic (%s)",
			n, strings.TrimPrefix(g.ProtocolPath(), "group."))
	case n > 0 && !capabilitiesOf(driver).SubscriptionUserData:
		add("metadata_bytes", "%d: driver %s only (the Java driver's assignors are Kafka's own, and only a custom one sets user data)",
			n, capableDrivers(takesUserData))
	}
	return ps
}

// SubscriptionUserData is the user data of a classic member's subscription
// with GroupConfig.MetadataBytes n: n bytes of one short pattern repeated,
// so that it compresses to almost nothing.
func SubscriptionUserData(n int) []byte {
	if n <= 0 {
		return nil
	}
	const pattern = "kchaos-subscription-user-data."
	return bytes.Repeat([]byte(pattern), n/len(pattern)+1)[:n]
}

// ProtocolList is the members' protocols as the Java client's
// group.protocol would name them: the one protocol, or each member's,
// comma-separated, with group.protocols (the audit's client settings).
func (g *GroupConfig) ProtocolList() string {
	if len(g.Protocols) > 0 {
		return strings.Join(g.Protocols, ",")
	}
	return g.MemberProtocol(0)
}
