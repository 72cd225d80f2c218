package histories

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// The values of sends and reads are most of a history. Decoding them with
// encoding/json into SendValue and ReadResult costs one allocation per
// record and reflection per field; these decoders read the canonical form
// (what the Recorder writes) directly, leaving strings as slices of the
// event's value so that a value already known costs a map lookup and
// nothing else. On anything outside that form they fall back to
// encoding/json and the types of event.go, so they accept exactly what the
// contract accepts (FuzzDecode checks that both paths agree). They live
// beside fastparse.go so that one package owns the format's fast paths;
// they decode and report missing fields, and leave judging to the checker.

// SendFields is a decoded send value; its byte slices alias the event's value.
type SendFields struct {
	Topic     []byte
	Partition int32
	Value     []byte
	Offset    int64
	HasOffset bool
	Has       uint8 // which of FieldTopic, FieldPartition, FieldValue, FieldOffset were there
}

// Presence bits of a send value's and a record's fields: the format
// requires them, so a missing one is bad input rather than a zero.
const (
	FieldTopic uint8 = 1 << iota
	FieldPartition
	FieldValue
	FieldOffset
	FieldEpoch
)

// MissingField names the first of the fields in want that has lacks.
func MissingField(has, want uint8) error {
	for _, f := range []struct {
		bit  uint8
		name string
	}{{FieldTopic, "topic"}, {FieldPartition, "partition"}, {FieldOffset, "offset"}, {FieldValue, "value"}, {FieldEpoch, "leader_epoch"}} {
		if want&f.bit != 0 && has&f.bit == 0 {
			return fmt.Errorf("missing field %q", f.name)
		}
	}
	return nil
}

// FieldError names the field of an encoding/json type error (a number out
// of range, a string where a number belongs).
func FieldError(err error) error {
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

// RecordFields is a decoded record of a poll or final read; Value aliases
// the event's value.
type RecordFields struct {
	Partition int32
	Offset    int64
	Value     []byte
	Epoch     int32
	Has       uint8 // which of FieldPartition, FieldOffset, FieldValue, FieldEpoch were there
}

// ReadFields is a decoded read result. Records is reused between calls.
type ReadFields struct {
	Topic    []byte
	HasTopic bool
	Records  []RecordFields
	Ends     map[int32]int64
	Starts   map[int32]int64
	// Final reads only, on the slow path (fastRead refuses their keys):
	// high watermarks, last stable offsets and open transactions.
	HWs, LSOs map[int32]int64
	Open      map[int32][]OpenTxn
}

// DecodeSendValue decodes a send's value (invoke or completion) into v.
func DecodeSendValue(raw []byte, v *SendFields) error {
	if canonicalSend(raw, v) {
		return nil
	}
	*v = SendFields{}
	if len(raw) == 0 || fastSend(raw, v) {
		return nil
	}
	*v = SendFields{}
	var sv SendValue
	if err := json.Unmarshal(raw, &sv); err != nil {
		return FieldError(err)
	}
	var p struct{ Topic, Partition, Value, Offset *json.RawMessage }
	if err := json.Unmarshal(raw, &p); err != nil {
		return err
	}
	v.Topic, v.Partition, v.Value = []byte(sv.Topic), sv.Partition, []byte(sv.Value)
	if sv.Offset != nil {
		v.Offset, v.HasOffset = *sv.Offset, true
		v.Has |= FieldOffset
	}
	for _, f := range []struct {
		r   *json.RawMessage
		bit uint8
	}{{p.Topic, FieldTopic}, {p.Partition, FieldPartition}, {p.Value, FieldValue}} {
		if present(f.r) {
			v.Has |= f.bit
		}
	}
	return nil
}

// DecodeReadValue decodes a poll's or final read's result into v,
// reusing v.Records.
func DecodeReadValue(raw []byte, v *ReadFields) error {
	recs := v.Records[:0]
	*v = ReadFields{Records: recs}
	if len(raw) == 0 || fastRead(raw, v) {
		return nil
	}
	*v = ReadFields{Records: recs[:0]}
	var rr ReadResult
	if err := json.Unmarshal(raw, &rr); err != nil {
		return FieldError(err)
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
	v.Topic, v.HasTopic = []byte(rr.Topic), present(p.Topic)
	for i, r := range rr.Records {
		var has uint8
		if i < len(p.Records) {
			pr := &p.Records[i]
			for _, f := range []struct {
				r   *json.RawMessage
				bit uint8
			}{{pr.Partition, FieldPartition}, {pr.Offset, FieldOffset}, {pr.Value, FieldValue}, {pr.LeaderEpoch, FieldEpoch}} {
				if present(f.r) {
					has |= f.bit
				}
			}
		}
		v.Records = append(v.Records, RecordFields{r.Partition, r.Offset, []byte(r.Value), r.LeaderEpoch, has})
	}
	var err error
	if v.Ends, err = partitionMap(rr.EndOffsets); err != nil {
		return err
	}
	if v.Starts, err = partitionMap(rr.StartOffsets); err != nil {
		return err
	}
	if v.HWs, err = partitionMap(rr.HighWatermarks); err != nil {
		return err
	}
	if v.LSOs, err = partitionMap(rr.LastStableOffsets); err != nil {
		return err
	}
	if rr.OpenTxns != nil {
		v.Open = make(map[int32][]OpenTxn, len(rr.OpenTxns))
		for k, txns := range rr.OpenTxns {
			p, err := ParsePartitionKey(k)
			if err != nil {
				return &json.UnsupportedValueError{Str: "partition key " + k}
			}
			v.Open[p] = txns
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
		p, err := ParsePartitionKey(k)
		if err != nil {
			return nil, &json.UnsupportedValueError{Str: "partition key " + k}
		}
		out[p] = o
	}
	return out, nil
}

// fastSend decodes {"topic":..,"partition":..,"value":..,"offset":..,"key":..}.
func fastSend(b []byte, v *SendFields) bool {
	s := newScanner(b)
	seen, ok := s.fields(func(key []byte) (bit uint8, ok bool) {
		switch string(key) {
		case "topic":
			bit = FieldTopic
			v.Topic, ok = s.plain()
		case "partition":
			bit = FieldPartition
			v.Partition, ok = s.Int32()
		case "value":
			bit = FieldValue
			v.Value, ok = s.plain()
		case "offset":
			bit = FieldOffset
			v.Offset, ok = s.Int()
			v.HasOffset = ok
		case "key":
			bit = 16
			_, ok = s.plain()
		}
		return bit, ok
	})
	v.Has = seen &^ 16
	return ok && s.End()
}

// fastRead decodes {"topic":..,"records":[..],"end_offsets":{..},"start_offsets":{..}}.
func fastRead(b []byte, v *ReadFields) bool {
	s := newScanner(b)
	_, ok := s.fields(func(key []byte) (bit uint8, ok bool) {
		switch string(key) {
		case "topic":
			bit = 1
			v.Topic, ok = s.plain()
			v.HasTopic = ok
		case "records":
			bit = 2
			ok = scanRecords(&s, v)
		case "end_offsets":
			bit = 4
			v.Ends, ok = scanOffsets(&s)
		case "start_offsets":
			bit = 8
			v.Starts, ok = scanOffsets(&s)
		}
		return bit, ok
	})
	return ok && s.End()
}

func scanRecords(s *scanner, v *ReadFields) bool {
	if s.null() {
		return true
	}
	return s.array(func() bool {
		var r RecordFields
		if canonicalRecord(s, &r) {
			v.Records = append(v.Records, r)
			return true
		}
		var ok bool
		r.Has, ok = s.fields(func(key []byte) (bit uint8, ok bool) {
			switch string(key) {
			case "partition":
				bit = FieldPartition
				r.Partition, ok = s.Int32()
			case "offset":
				bit = FieldOffset
				r.Offset, ok = s.Int()
			case "value":
				bit = FieldValue
				r.Value, ok = s.plain()
			case "leader_epoch":
				bit = FieldEpoch
				r.Epoch, ok = s.Int32()
			}
			return bit, ok
		})
		if ok {
			v.Records = append(v.Records, r)
		}
		return ok
	})
}

func scanOffsets(s *scanner) (map[int32]int64, bool) {
	if s.null() {
		return nil, true
	}
	m := map[int32]int64{}
	ok := s.object(func(key []byte) bool {
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
	s := newScanner(k)
	p, ok := s.Int32()
	return p, ok && len(s.rest()) == 0
}
