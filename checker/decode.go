package checker

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/kchaos/kchaos/histories"
)

// The values of sends and reads are most of a history. Decoding them with
// encoding/json into histories.SendValue and histories.ReadResult costs one
// allocation per record and reflection per field; these decoders read the
// canonical form (what the Recorder writes) directly, leaving strings as
// slices of the event's value so that a value already known costs a map
// lookup and nothing else. On anything outside that form they fall back to
// encoding/json and the histories types, so they accept exactly what the
// contract accepts (FuzzDecode checks that both paths agree).

// sendVal is a decoded send value; its byte slices alias the event's value.
type sendVal struct {
	topic     []byte
	partition int32
	value     []byte
	offset    int64
	hasOffset bool
	has       uint8 // hasTopic | hasPartition | hasValue | hasOffset
}

// Presence bits of a send value's and a record's fields: the format
// requires them, so a missing one is bad input rather than a zero.
const (
	hasTopic uint8 = 1 << iota
	hasPartition
	hasValue
	hasOffsetBit
	hasEpoch
)

// missing names the first of the fields in want that has lacks.
func missing(has, want uint8) error {
	for _, f := range []struct {
		bit  uint8
		name string
	}{{hasTopic, "topic"}, {hasPartition, "partition"}, {hasOffsetBit, "offset"}, {hasValue, "value"}, {hasEpoch, "leader_epoch"}} {
		if want&f.bit != 0 && has&f.bit == 0 {
			return fmt.Errorf("missing field %q", f.name)
		}
	}
	return nil
}

// fieldError names the field of an encoding/json type error (a number out
// of range, a string where a number belongs).
func fieldError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		f := te.Field
		if i := strings.LastIndexByte(f, '.'); i >= 0 {
			f = f[i+1:]
		}
		return fmt.Errorf("field %q: %s is not a valid %v", f, te.Value, te.Type)
	}
	return err
}

// present reports whether a raw field was there and not null.
func present(r *json.RawMessage) bool { return r != nil && string(*r) != "null" }

// rawRec is a decoded record of a poll or final read.
type rawRec struct {
	partition int32
	offset    int64
	value     []byte
	epoch     int32
	has       uint8
}

// readVal is a decoded read result. recs is reused between calls.
type readVal struct {
	topic    []byte
	hasTopic bool
	recs     []rawRec
	ends     map[int32]int64
	starts   map[int32]int64
	// Final reads only, on the slow path (fastRead refuses their keys):
	// high watermarks, last stable offsets and open transactions.
	hws, lsos map[int32]int64
	open      map[int32][]histories.OpenTxn
}

func decodeSend(raw []byte, v *sendVal) error {
	*v = sendVal{}
	if len(raw) == 0 || fastSend(raw, v) {
		return nil
	}
	*v = sendVal{}
	var sv histories.SendValue
	if err := json.Unmarshal(raw, &sv); err != nil {
		return fieldError(err)
	}
	var p struct{ Topic, Partition, Value, Offset *json.RawMessage }
	if err := json.Unmarshal(raw, &p); err != nil {
		return err
	}
	v.topic, v.partition, v.value = []byte(sv.Topic), sv.Partition, []byte(sv.Value)
	if sv.Offset != nil {
		v.offset, v.hasOffset = *sv.Offset, true
		v.has |= hasOffsetBit
	}
	for _, f := range []struct {
		r   *json.RawMessage
		bit uint8
	}{{p.Topic, hasTopic}, {p.Partition, hasPartition}, {p.Value, hasValue}} {
		if present(f.r) {
			v.has |= f.bit
		}
	}
	return nil
}

func decodeRead(raw []byte, v *readVal) error {
	recs := v.recs[:0]
	*v = readVal{recs: recs}
	if len(raw) == 0 || fastRead(raw, v) {
		return nil
	}
	*v = readVal{recs: recs[:0]}
	var rr histories.ReadResult
	if err := json.Unmarshal(raw, &rr); err != nil {
		return fieldError(err)
	}
	var p struct {
		Topic   *json.RawMessage
		Records []struct {
			Partition, Offset, Value *json.RawMessage
			LeaderEpoch              *json.RawMessage `json:"leader_epoch"`
		}
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return err
	}
	v.topic, v.hasTopic = []byte(rr.Topic), present(p.Topic)
	for i, r := range rr.Records {
		var has uint8
		if i < len(p.Records) {
			pr := &p.Records[i]
			for _, f := range []struct {
				r   *json.RawMessage
				bit uint8
			}{{pr.Partition, hasPartition}, {pr.Offset, hasOffsetBit}, {pr.Value, hasValue}, {pr.LeaderEpoch, hasEpoch}} {
				if present(f.r) {
					has |= f.bit
				}
			}
		}
		v.recs = append(v.recs, rawRec{r.Partition, r.Offset, []byte(r.Value), r.LeaderEpoch, has})
	}
	var err error
	if v.ends, err = partitionMap(rr.EndOffsets); err != nil {
		return err
	}
	if v.starts, err = partitionMap(rr.StartOffsets); err != nil {
		return err
	}
	if v.hws, err = partitionMap(rr.HighWatermarks); err != nil {
		return err
	}
	if v.lsos, err = partitionMap(rr.LastStableOffsets); err != nil {
		return err
	}
	if rr.OpenTxns != nil {
		v.open = make(map[int32][]histories.OpenTxn, len(rr.OpenTxns))
		for k, txns := range rr.OpenTxns {
			p, err := histories.ParsePartitionKey(k)
			if err != nil {
				return &json.UnsupportedValueError{Str: "partition key " + k}
			}
			v.open[p] = txns
		}
	}
	return nil
}

func partitionMap(m map[string]int64) (map[int32]int64, error) {
	if m == nil {
		return nil, nil
	}
	out := make(map[int32]int64, len(m))
	for k, o := range m {
		p, err := histories.ParsePartitionKey(k)
		if err != nil {
			return nil, &json.UnsupportedValueError{Str: "partition key " + k}
		}
		out[p] = o
	}
	return out, nil
}

// fastSend decodes {"topic":..,"partition":..,"value":..,"offset":..,"key":..}.
func fastSend(b []byte, v *sendVal) bool {
	s := histories.NewScanner(b)
	var seen uint8
	return s.Object(func(key []byte) bool {
		var bit uint8
		ok := false
		switch string(key) {
		case "topic":
			bit = hasTopic
			v.topic, ok = s.Plain()
		case "partition":
			bit = hasPartition
			v.partition, ok = s.Int32()
		case "value":
			bit = hasValue
			v.value, ok = s.Plain()
		case "offset":
			bit = hasOffsetBit
			v.offset, ok = s.Int()
			v.hasOffset = ok
		case "key":
			bit = 16
			_, ok = s.Plain()
		}
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		v.has = seen &^ 16
		return true
	}) && s.End()
}

// fastRead decodes {"topic":..,"records":[..],"end_offsets":{..},"start_offsets":{..}}.
func fastRead(b []byte, v *readVal) bool {
	s := histories.NewScanner(b)
	var seen uint8
	return s.Object(func(key []byte) bool {
		var bit uint8
		ok := false
		switch string(key) {
		case "topic":
			bit = 1
			v.topic, ok = s.Plain()
			v.hasTopic = ok
		case "records":
			bit = 2
			ok = scanRecords(&s, v)
		case "end_offsets":
			bit = 4
			v.ends, ok = scanOffsets(&s)
		case "start_offsets":
			bit = 8
			v.starts, ok = scanOffsets(&s)
		}
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		return true
	}) && s.End()
}

func scanRecords(s *histories.Scanner, v *readVal) bool {
	if s.Null() {
		return true
	}
	if !s.Byte('[') {
		return false
	}
	s.Space()
	if s.Byte(']') {
		return true
	}
	for {
		var r rawRec
		var seen uint8
		ok := s.Object(func(key []byte) bool {
			var bit uint8
			ok := false
			switch string(key) {
			case "partition":
				bit = hasPartition
				r.partition, ok = s.Int32()
			case "offset":
				bit = hasOffsetBit
				r.offset, ok = s.Int()
			case "value":
				bit = hasValue
				r.value, ok = s.Plain()
			case "leader_epoch":
				bit = hasEpoch
				r.epoch, ok = s.Int32()
			}
			if !ok || seen&bit != 0 {
				return false
			}
			seen |= bit
			r.has = seen
			return true
		})
		if !ok {
			return false
		}
		v.recs = append(v.recs, r)
		s.Space()
		if s.Byte(']') {
			return true
		}
		if !s.Byte(',') {
			return false
		}
		s.Space()
	}
}

func scanOffsets(s *histories.Scanner) (map[int32]int64, bool) {
	if s.Null() {
		return nil, true
	}
	m := map[int32]int64{}
	ok := s.Object(func(key []byte) bool {
		p, ok := parseKey(key)
		if !ok {
			return false
		}
		if _, dup := m[p]; dup {
			return false
		}
		m[p], ok = s.Int()
		return ok
	})
	return m, ok
}

// parseKey reads a canonical partition key ("0", "12").
func parseKey(k []byte) (int32, bool) {
	s := histories.NewScanner(k)
	p, ok := s.Int32()
	return p, ok && len(s.Rest()) == 0
}
