package histories

import (
	"encoding/json"
	"strconv"
	"sync"
)

// A share member writes every delivery and every ack (three records'
// worth of JSON per record it accepts, in its synchronous poll, ack, flush
// loop), so its values render themselves, into pooled buffers
// (appendPerRecord): the same bytes encoding/json writes for them
// (TestShareValuesEncodeAsEncodingJSON holds the two equal), without
// reflection and without allocating. encoding/json stays the encoder of
// every other value; these are the only ones written per record at a
// group's full rate (BenchmarkRecordShareRound, BenchmarkShareAccept).

// valueBuf is a pooled buffer a per-record value is encoded into.
type valueBuf struct{ b []byte }

var valueBufs = sync.Pool{New: func() any { return &valueBuf{b: make([]byte, 0, 16<<10)} }}

// put returns the buffer to the pool, unless it grew very large (one huge
// poll should not pin its memory).
func (v *valueBuf) put() {
	if cap(v.b) <= 1<<20 {
		v.b = v.b[:0]
		valueBufs.Put(v)
	}
}

// appendPerRecord encodes one of the values a share member writes per
// record into a pooled buffer (false: value is not one). The Recorder
// does not keep these in the Event it returns.
func appendPerRecord(value any) (*valueBuf, bool) {
	var enc func([]byte) []byte
	switch x := value.(type) {
	case SharePollValue:
		enc = x.appendJSON
	case ShareAckValue:
		enc = x.appendJSON
	default:
		return nil, false
	}
	buf := valueBufs.Get().(*valueBuf)
	buf.b = enc(buf.b[:0])
	return buf, true
}

func (v SharePollValue) appendJSON(b []byte) []byte {
	b = appendMemberHead(b, v.Group, v.Member, v.Topic)
	if len(v.Records) > 0 {
		b = append(b, `,"records":[`...)
		for i, r := range v.Records {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendRecordHead(b, r.Partition, r.Offset, r.Value, r.DeliveryCount)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

func (v ShareAckValue) appendJSON(b []byte) []byte {
	b = appendMemberHead(b, v.Group, v.Member, v.Topic)
	b = append(b, `,"acks":`...)
	if v.Acks == nil {
		b = append(b, "null"...)
		return append(b, '}')
	}
	b = append(b, '[')
	for i, a := range v.Acks {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendRecordHead(b, a.Partition, a.Offset, a.Value, a.DeliveryCount)
		b = append(b, `,"status":`...)
		b = appendJSONString(b, a.Status)
		if a.Outcome != "" {
			b = append(b, `,"outcome":`...)
			b = appendJSONString(b, a.Outcome)
		}
		if a.Error != "" {
			b = append(b, `,"error":`...)
			b = appendJSONString(b, a.Error)
		}
		if w := a.Wire; w != nil {
			b = append(b, `,"wire":{"request":`...)
			b = appendJSONString(b, w.Request)
			b = append(b, `,"session_epoch":`...)
			b = strconv.AppendInt(b, int64(w.SessionEpoch), 10)
			b = append(b, `,"answered":`...)
			b = strconv.AppendBool(b, w.Answered)
			if w.TopError != "" {
				b = append(b, `,"top_error":`...)
				b = appendJSONString(b, w.TopError)
			}
			if w.Error != "" {
				b = append(b, `,"error":`...)
				b = appendJSONString(b, w.Error)
			}
			b = append(b, `,"attempts":`...)
			b = strconv.AppendInt(b, int64(w.Attempts), 10)
			if len(w.Earlier) > 0 {
				b = append(b, `,"earlier":[`...)
				for j, s := range w.Earlier {
					if j > 0 {
						b = append(b, ',')
					}
					b = appendJSONString(b, s)
				}
				b = append(b, ']')
			}
			b = append(b, '}')
		}
		b = append(b, '}')
	}
	return append(b, ']', '}')
}

// appendMemberHead opens a member op's value: group, member, topic.
func appendMemberHead(b []byte, group, member, topic string) []byte {
	b = append(b, `{"group":`...)
	b = appendJSONString(b, group)
	b = append(b, `,"member":`...)
	b = appendJSONString(b, member)
	b = append(b, `,"topic":`...)
	return appendJSONString(b, topic)
}

// appendRecordHead opens a record's object, up to its delivery count.
func appendRecordHead(b []byte, p int32, off int64, value string, count int32) []byte {
	b = append(b, `{"partition":`...)
	b = strconv.AppendInt(b, int64(p), 10)
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, off, 10)
	b = append(b, `,"value":`...)
	b = appendJSONString(b, value)
	b = append(b, `,"delivery_count":`...)
	return strconv.AppendInt(b, int64(count), 10)
}

// appendJSONString appends s quoted as encoding/json quotes it. A string
// of printable ASCII without the characters encoding/json escapes (quote,
// backslash, and the HTML-sensitive <, >, &) is copied as is; any other
// goes through encoding/json itself, so its escapes (control characters,
// invalid UTF-8, U+2028 and U+2029) are exactly encoding/json's.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always encodes
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
