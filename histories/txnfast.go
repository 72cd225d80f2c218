package histories

import (
	"encoding/json"
	"fmt"
)

// TxnFields is a decoded txn value; a nil field was absent (or null). One
// pass of encoding/json (a txn is a handful of micro-operations, not the
// bulk of a history: its poll records go through DecodeReadValue).
type TxnFields struct {
	TransactionalID *string     `json:"transactional_id"`
	Intent          *string     `json:"intent"`
	EndInvoked      *int64      `json:"end_invoked"`
	Ops             *[]TxnMicro `json:"ops"`
}

// TxnMicro is one decoded micro-operation.
type TxnMicro struct {
	F          *string         `json:"f"`
	Topic      *string         `json:"topic"`
	Partition  *int32          `json:"partition"`
	Value      *string         `json:"value"`
	Offset     *int64          `json:"offset"`
	Partitions *[]int32        `json:"partitions"`
	Records    json.RawMessage `json:"records"`
}

// MicroOps returns the micro-operations, none when ops was absent.
func (v *TxnFields) MicroOps() []TxnMicro {
	if v.Ops == nil {
		return nil
	}
	return *v.Ops
}

// DecodeTxnValue decodes a txn value. full requires transactional_id, intent
// and ops (an invoke, an ok completion); otherwise each may be absent, but
// what is there must be well formed.
func DecodeTxnValue(what string, raw []byte, full bool) (*TxnFields, error) {
	var v TxnFields
	if !fastTxn(raw, &v) {
		v = TxnFields{}
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("%s: %w", what, FieldError(err))
		}
	}
	switch {
	case full && (v.TransactionalID == nil || *v.TransactionalID == ""):
		return nil, fmt.Errorf("%s: missing field \"transactional_id\"", what)
	case full && v.Intent == nil:
		return nil, fmt.Errorf("%s: missing field \"intent\"", what)
	case full && v.Ops == nil:
		return nil, fmt.Errorf("%s: missing field \"ops\"", what)
	}
	if v.Intent != nil && *v.Intent != TxnCommit && *v.Intent != TxnAbort {
		return nil, fmt.Errorf("%s: field \"intent\": %q, want %q or %q", what, *v.Intent, TxnCommit, TxnAbort)
	}
	for i, op := range v.MicroOps() {
		if op.F == nil {
			return nil, fmt.Errorf("%s: op %d: missing field \"f\"", what, i)
		}
		switch *op.F {
		case TxnSend:
			for _, f := range []struct {
				ok   bool
				name string
			}{{op.Topic != nil, "topic"}, {op.Partition != nil, "partition"}, {op.Value != nil, "value"}} {
				if !f.ok {
					return nil, fmt.Errorf("%s: op %d (send): missing field %q", what, i, f.name)
				}
			}
			if op.Offset != nil && *op.Offset < 0 {
				return nil, fmt.Errorf("%s: op %d (send): field \"offset\": %d is negative", what, i, *op.Offset)
			}
		case TxnPoll:
			if op.Topic == nil {
				return nil, fmt.Errorf("%s: op %d (poll): missing field \"topic\"", what, i)
			}
		default:
			return nil, fmt.Errorf("%s: op %d: field \"f\": %q, want %q or %q", what, i, *op.F, TxnSend, TxnPoll)
		}
	}
	return &v, nil
}

// fastTxn decodes the canonical form of a txn value (what the Recorder
// writes: keys once each, plain strings, canonical integers, no nulls)
// without encoding/json's reflection, which dominates reading a history
// of a million micro-operations. Like fastSend it never decides that a
// value is bad: on anything else it returns false and DecodeTxnValue takes
// encoding/json's path. When it returns true, v is what json.Unmarshal
// would have produced (TestFastTxn and FuzzDecodeTxn check this); records
// alias raw.
func fastTxn(raw []byte, v *TxnFields) bool {
	s := newScanner(raw)
	str := func() (*string, bool) {
		b, ok := s.plain()
		if !ok {
			return nil, false
		}
		x := string(b)
		return &x, true
	}
	_, ok := s.fields(func(key []byte) (bit uint8, ok bool) {
		switch string(key) {
		case "transactional_id":
			bit = 1
			v.TransactionalID, ok = str()
		case "intent":
			bit = 2
			v.Intent, ok = str()
		case "end_invoked":
			bit = 4
			var n int64
			if n, ok = s.Int(); ok {
				v.EndInvoked = &n
			}
		case "ops":
			bit = 8
			var ops []TxnMicro
			ops, ok = fastTxnOps(&s, str)
			v.Ops = &ops
		case "producer_id":
			bit = 16
			_, ok = s.Int()
		case "producer_epoch":
			bit = 32
			_, ok = s.Int()
		}
		return bit, ok
	})
	return ok && s.End()
}

// fastTxnOps reads the ops array of a txn value.
func fastTxnOps(s *scanner, str func() (*string, bool)) ([]TxnMicro, bool) {
	ops := []TxnMicro{}
	var scratch ReadFields
	ok := s.array(func() bool {
		var op TxnMicro
		_, ok := s.fields(func(key []byte) (bit uint8, ok bool) {
			switch string(key) {
			case "f":
				bit = 1
				op.F, ok = str()
			case "topic":
				bit = 2
				op.Topic, ok = str()
			case "value":
				bit = 4
				op.Value, ok = str()
			case "partition":
				bit = 8
				var p int32
				if p, ok = s.Int32(); ok {
					op.Partition = &p
				}
			case "offset":
				bit = 16
				var o int64
				if o, ok = s.Int(); ok {
					op.Offset = &o
				}
			case "partitions":
				bit = 32
				var ps []int32
				ps, ok = fastInt32s(s)
				op.Partitions = &ps
			case "records":
				bit = 64
				before := s.rest()
				scratch.Records = scratch.Records[:0]
				if ok = !s.null() && scanRecords(s, &scratch); ok {
					op.Records = before[:len(before)-len(s.rest())]
				}
			}
			return bit, ok
		})
		if ok {
			ops = append(ops, op)
		}
		return ok
	})
	if !ok {
		return nil, false
	}
	return ops, true
}

// fastInt32s reads an array of canonical int32s.
func fastInt32s(s *scanner) ([]int32, bool) {
	out := []int32{}
	ok := s.array(func() bool {
		p, ok := s.Int32()
		if ok {
			out = append(out, p)
		}
		return ok
	})
	if !ok {
		return nil, false
	}
	return out, true
}
