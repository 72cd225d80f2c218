package checker

import "github.com/kchaos/kchaos/histories"

// fastTxn decodes the canonical form of a txn value (what the Recorder
// writes: keys once each, plain strings, canonical integers, no nulls)
// without encoding/json's reflection, which dominates reading a history
// of a million micro-operations. Like fastSend it never decides that a
// value is bad: on anything else it returns false and decodeTxn takes
// encoding/json's path. When it returns true, v is what json.Unmarshal
// would have produced (TestFastTxn and FuzzDecodeTxn check this); records
// alias raw.
func fastTxn(raw []byte, v *txnVal) bool {
	s := histories.NewScanner(raw)
	var seen uint8
	str := func() (*string, bool) {
		b, ok := s.Plain()
		if !ok {
			return nil, false
		}
		x := string(b)
		return &x, true
	}
	return s.Object(func(key []byte) bool {
		var bit uint8
		ok := false
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
			var ops []txnMicro
			ops, ok = fastTxnOps(&s, str)
			v.Ops = &ops
		case "producer_id":
			bit = 16
			_, ok = s.Int()
		case "producer_epoch":
			bit = 32
			_, ok = s.Int()
		}
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		return true
	}) && s.End()
}

// fastTxnOps reads the ops array of a txn value.
func fastTxnOps(s *histories.Scanner, str func() (*string, bool)) ([]txnMicro, bool) {
	if !s.Byte('[') {
		return nil, false
	}
	ops := []txnMicro{}
	s.Space()
	if s.Byte(']') {
		return ops, true
	}
	var scratch readVal
	for {
		var op txnMicro
		var seen uint8
		ok := s.Object(func(key []byte) bool {
			var bit uint8
			ok := false
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
				before := s.Rest()
				scratch.recs = scratch.recs[:0]
				if ok = !s.Null() && scanRecords(s, &scratch); ok {
					op.Records = before[:len(before)-len(s.Rest())]
				}
			}
			if !ok || seen&bit != 0 {
				return false
			}
			seen |= bit
			return true
		})
		if !ok {
			return nil, false
		}
		ops = append(ops, op)
		s.Space()
		if s.Byte(']') {
			return ops, true
		}
		if !s.Byte(',') {
			return nil, false
		}
		s.Space()
	}
}

// fastInt32s reads an array of canonical int32s.
func fastInt32s(s *histories.Scanner) ([]int32, bool) {
	if !s.Byte('[') {
		return nil, false
	}
	out := []int32{}
	s.Space()
	if s.Byte(']') {
		return out, true
	}
	for {
		p, ok := s.Int32()
		if !ok {
			return nil, false
		}
		out = append(out, p)
		s.Space()
		if s.Byte(']') {
			return out, true
		}
		if !s.Byte(',') {
			return nil, false
		}
		s.Space()
	}
}
