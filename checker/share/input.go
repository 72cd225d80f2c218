package share

import (
	"fmt"
	"maps"
	"slices"

	"github.com/kchaos/kchaos/histories"
)

// The share ops' required fields (docs/HISTORY.md, "Rules the checker
// holds to"): a field the contract requires is decoded through a pointer,
// so that a missing one is refused as bad input rather than read as a
// zero and judged. A share-poll record without its delivery count would
// otherwise be a delivery at count 0 (share-delivery-count) of a record
// perhaps never acknowledged (share-lost): a verdict resting on a number
// the history never held. A completion that contradicts its invoke (an
// ack reported "reject" for an "accept" asked, another group or member)
// is bad input too: which of the two happened is not in the history.

// rawRecord is a share-poll record with its required fields' presence.
type rawRecord struct {
	Partition     *int32  `json:"partition"`
	Offset        *int64  `json:"offset"`
	Value         *string `json:"value"`
	DeliveryCount *int32  `json:"delivery_count"`
}

// rawPoll is a share-poll's value.
type rawPoll struct {
	Group   string      `json:"group"`
	Member  string      `json:"member"`
	Topic   string      `json:"topic"`
	Records []rawRecord `json:"records"`
}

// rawAck is one ack of a share-ack's value.
type rawAck struct {
	Partition     *int32                  `json:"partition"`
	Offset        *int64                  `json:"offset"`
	Value         *string                 `json:"value"`
	DeliveryCount *int32                  `json:"delivery_count"`
	Status        *string                 `json:"status"`
	Outcome       string                  `json:"outcome"`
	Error         string                  `json:"error"`
	Wire          *histories.ShareAckWire `json:"wire"`
}

// rawAcks is a share-ack's value.
type rawAcks struct {
	Group  string   `json:"group"`
	Member string   `json:"member"`
	Topic  string   `json:"topic"`
	Acks   []rawAck `json:"acks"`
}

// missing names the first required field that is absent (nil), "" if none.
func missing(fields ...field) string {
	for _, f := range fields {
		if !f.present {
			return f.name
		}
	}
	return ""
}

type field = struct {
	name    string
	present bool
}

// decodePoll decodes an ok share-poll's value: each record must carry
// partition (>= 0), offset (>= 0), value and delivery_count.
func decodePoll(e *histories.Event, inv histories.SharePollValue) (histories.SharePollValue, error) {
	const what = "share-poll ok value"
	var raw rawPoll
	if err := e.Decode(&raw); err != nil {
		return histories.SharePollValue{}, fmt.Errorf("%s: %w", what, histories.FieldError(err))
	}
	if err := sameMember(what, inv.Group, inv.Member, inv.Topic, raw.Group, raw.Member, raw.Topic); err != nil {
		return histories.SharePollValue{}, err
	}
	v := histories.SharePollValue{Group: raw.Group, Member: raw.Member, Topic: raw.Topic, Records: make([]histories.ShareRecord, len(raw.Records))}
	for i, r := range raw.Records {
		if f := missing(field{"partition", r.Partition != nil}, field{"offset", r.Offset != nil},
			field{"value", r.Value != nil}, field{"delivery_count", r.DeliveryCount != nil}); f != "" {
			return v, fmt.Errorf("%s: records[%d]: missing field %q", what, i, f)
		}
		if *r.Partition < 0 || *r.Offset < 0 {
			return v, fmt.Errorf("%s: records[%d]: field \"partition\" %d, \"offset\" %d: want >= 0", what, i, *r.Partition, *r.Offset)
		}
		v.Records[i] = histories.ShareRecord{Partition: *r.Partition, Offset: *r.Offset, Value: *r.Value, DeliveryCount: *r.DeliveryCount}
	}
	return v, nil
}

// sameMember refuses a completion naming another group, member or topic
// than its invoke (a field absent on either side contradicts nothing).
func sameMember(what, group, member, topic, g, m, t string) error {
	for _, f := range []struct{ name, inv, got string }{{"group", group, g}, {"member", member, m}, {"topic", topic, t}} {
		if f.inv != "" && f.got != "" && f.inv != f.got {
			return fmt.Errorf("%s: field %q: %q, but its invoke named %q", what, f.name, f.got, f.inv)
		}
	}
	return nil
}

// decodeAcks decodes a share-ack's value. Each ack must carry partition,
// offset, delivery_count and a status of statuses; on a completion
// (done), an outcome, if present, of outcomes.
func decodeAcks(e *histories.Event, what string, done bool) (histories.ShareAckValue, error) {
	var raw rawAcks
	if err := e.Decode(&raw); err != nil {
		return histories.ShareAckValue{}, fmt.Errorf("%s: %w", what, histories.FieldError(err))
	}
	v := histories.ShareAckValue{Group: raw.Group, Member: raw.Member, Topic: raw.Topic, Acks: make([]histories.ShareAck, len(raw.Acks))}
	for i, a := range raw.Acks {
		if f := missing(field{"partition", a.Partition != nil}, field{"offset", a.Offset != nil},
			field{"delivery_count", a.DeliveryCount != nil}, field{"status", a.Status != nil}); f != "" {
			return v, fmt.Errorf("%s: field \"acks\"[%d]: missing field %q", what, i, f)
		}
		if !slices.Contains(statuses, *a.Status) {
			return v, fmt.Errorf("%s: field \"acks\"[%d]: status %q, want one of %v", what, i, *a.Status, statuses)
		}
		if done && a.Outcome != "" && !slices.Contains(outcomes, a.Outcome) {
			return v, fmt.Errorf("%s: field \"acks\"[%d]: outcome %q, want one of %v", what, i, a.Outcome, outcomes)
		}
		v.Acks[i] = histories.ShareAck{Partition: *a.Partition, Offset: *a.Offset, DeliveryCount: *a.DeliveryCount,
			Status: *a.Status, Outcome: a.Outcome, Error: a.Error, Wire: a.Wire}
		if a.Value != nil {
			v.Acks[i].Value = *a.Value
		}
	}
	return v, nil
}

// sameAcks refuses an ack completion that contradicts its invoke: an ack
// the invoke did not ask, or asked with another status or value.
func sameAcks(what string, inv, got histories.ShareAckValue) error {
	if err := sameMember(what, inv.Group, inv.Member, inv.Topic, got.Group, got.Member, got.Topic); err != nil {
		return err
	}
	asked := make(map[recCount]histories.ShareAck, len(inv.Acks))
	for _, a := range inv.Acks {
		asked[recCount{a.Partition, a.Offset, a.DeliveryCount}] = a
	}
	for i, a := range got.Acks {
		k, ok := asked[recCount{a.Partition, a.Offset, a.DeliveryCount}]
		switch {
		case !ok:
			return fmt.Errorf("%s: field \"acks\"[%d]: partition %d offset %d delivery %d, which its invoke did not ack",
				what, i, a.Partition, a.Offset, a.DeliveryCount)
		case a.Status != k.Status:
			return fmt.Errorf("%s: field \"acks\"[%d]: status %q, but its invoke asked %q of partition %d offset %d delivery %d",
				what, i, a.Status, k.Status, a.Partition, a.Offset, a.DeliveryCount)
		case a.Value != "" && k.Value != "" && a.Value != k.Value:
			return fmt.Errorf("%s: field \"acks\"[%d]: value %q, but its invoke named %q", what, i, a.Value, k.Value)
		}
	}
	return nil
}

// recCount is a record at a delivery count (an ack names one).
type recCount struct {
	part  int32
	off   int64
	count int32
}

// checkSubscribe refuses a share-subscribe that lacks a field or names
// another share group than the history's first (one share group per
// history); a completion (done) may omit its value, and must not
// contradict its invoke.
func (b *Builder) checkSubscribe(what string, v histories.ShareSubscribeValue, inv *histories.ShareSubscribeValue) error {
	if inv != nil {
		if v == (histories.ShareSubscribeValue{}) {
			return nil // no value: contradicts nothing
		}
		if v != *inv {
			return fmt.Errorf("%s: %+v, but its invoke was %+v", what, v, *inv)
		}
		return nil
	}
	switch {
	case v.Group == "":
		return fmt.Errorf(`%s: missing field "group"`, what)
	case v.Member == "":
		return fmt.Errorf(`%s: missing field "member"`, what)
	case v.LockMS <= 0:
		return fmt.Errorf(`%s: field "lock_ms": %d, want > 0`, what, v.LockMS)
	case v.DeliveryLimit <= 0:
		return fmt.Errorf(`%s: field "delivery_limit": %d, want > 0`, what, v.DeliveryLimit)
	case v.Topic == "":
		return fmt.Errorf(`%s: missing field "topic"`, what)
	case b.group != "" && (v.Group != b.group || v.Topic != b.topic || v.LockMS != b.lockMS || v.DeliveryLimit != b.limit):
		return fmt.Errorf(`%s: group %q topic %q lock_ms %d delivery_limit %d, but an earlier subscribe had %q %q %d %d (one share group per history)`,
			what, v.Group, v.Topic, v.LockMS, v.DeliveryLimit, b.group, b.topic, b.lockMS, b.limit)
	}
	return nil
}

// checkOffsets refuses an ok share-offsets whose start offsets are not
// partitions, or negative.
func checkOffsets(v histories.ShareOffsetsValue) error {
	for _, k := range slices.Sorted(maps.Keys(v.StartOffsets)) {
		if _, err := histories.ParsePartitionKey(k); err != nil {
			return fmt.Errorf("share-offsets ok value: field \"start_offsets\": key %q is not a partition", k)
		}
		if o := v.StartOffsets[k]; o < 0 {
			return fmt.Errorf("share-offsets ok value: field \"start_offsets\": partition %s: %d is negative", k, o)
		}
	}
	return nil
}
