package histories

// The Recorder's own spelling of the two values that are most of a
// history: a send's, {"topic":T,"partition":P,"value":V} (an ack adds
// ,"offset":O), and a read's record, {"partition":P,"offset":O,"value":V,
// "leader_epoch":E}. Read as a run of literals and scalars, they cost a
// fraction of the walk by field (Scanner.Fields: a call per field through
// closures, and a key read and compared per field), which was most of
// decoding a send and a read in a 1M-op history. Anything else, even
// the same fields in another order or with white space, returns false
// with nothing consumed, and the walk by field decides: when these accept
// they give exactly what it gives (TestCanonicalAgrees).

// canonicalSend decodes a send's value in the Recorder's spelling.
func canonicalSend(b []byte, v *SendFields) bool {
	s := newScanner(b)
	if !s.word(`{"topic":`) {
		return false
	}
	topic, ok := s.plain()
	if !ok || !s.word(`,"partition":`) {
		return false
	}
	p, ok := s.Int32()
	if !ok || !s.word(`,"value":`) {
		return false
	}
	val, ok := s.plain()
	if !ok {
		return false
	}
	out := SendFields{Topic: topic, Partition: p, Value: val, Has: FieldTopic | FieldPartition | FieldValue}
	if s.word(`,"offset":`) {
		if out.Offset, ok = s.Int(); !ok {
			return false
		}
		out.HasOffset = true
		out.Has |= FieldOffset
	}
	if !s.word("}") || s.i != len(s.b) {
		return false
	}
	*v = out
	return true
}

// canonicalRecord reads one record of a read in the Recorder's spelling
// at s, moving past it only if it returns true.
func canonicalRecord(s *scanner, r *RecordFields) bool {
	t := *s
	if !t.word(`{"partition":`) {
		return false
	}
	var out RecordFields
	var ok bool
	if out.Partition, ok = t.Int32(); !ok || !t.word(`,"offset":`) {
		return false
	}
	if out.Offset, ok = t.Int(); !ok || !t.word(`,"value":`) {
		return false
	}
	if out.Value, ok = t.plain(); !ok || !t.word(`,"leader_epoch":`) {
		return false
	}
	if out.Epoch, ok = t.Int32(); !ok || !t.word("}") {
		return false
	}
	out.Has = FieldPartition | FieldOffset | FieldValue | FieldEpoch
	*s, *r = t, out
	return true
}

// canonicalEvent decodes an event line in the Recorder's spelling,
// {"index":I,"time":T,"process":P,"type":Y,"f":F} with ,"value":{..}
// and ,"error":E before the brace when it has them; fastEventIn's walk by
// field takes any other. e is written only if it returns true.
func canonicalEvent(b []byte, e *Event, arena *[]byte) bool {
	s := scanner{b: b}
	var out Event
	var ok bool
	if !s.word(`{"index":`) {
		return false
	}
	if out.Index, ok = s.Int(); !ok || !s.word(`,"time":`) {
		return false
	}
	if out.Time, ok = s.Int(); !ok || !s.word(`,"process":`) {
		return false
	}
	p, ok := s.Int()
	if !ok || !s.word(`,"type":`) {
		return false
	}
	out.Process = int(p)
	typ, ok := s.plain()
	if !ok || !s.word(`,"f":`) {
		return false
	}
	f, ok := s.plain()
	if !ok {
		return false
	}
	out.Type, out.F = Type(intern(typ)), intern(f)
	var value []byte
	if s.word(`,"value":`) {
		start := s.i
		if s.i >= len(s.b) || s.b[s.i] != '{' || !s.skipValue(0) {
			return false
		}
		value = s.b[start:s.i]
	}
	if s.word(`,"error":`) {
		msg, ok := s.plain()
		if !ok {
			return false
		}
		out.Error = string(msg)
	}
	if !s.word("}") || s.i != len(s.b) {
		return false
	}
	if value != nil {
		out.Value = carve(arena, value)
	}
	*e = out
	return true
}
