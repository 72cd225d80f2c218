package checker

import (
	"encoding/json"
	"math"

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
}

// rawRec is a decoded record of a poll or final read.
type rawRec struct {
	partition int32
	offset    int64
	value     []byte
	epoch     int32
}

// readVal is a decoded read result. recs is reused between calls.
type readVal struct {
	topic  []byte
	recs   []rawRec
	ends   map[int32]int64
	starts map[int32]int64
}

func decodeSend(raw []byte, v *sendVal) error {
	*v = sendVal{}
	if len(raw) == 0 || fastSend(raw, v) {
		return nil
	}
	*v = sendVal{}
	var sv histories.SendValue
	if err := json.Unmarshal(raw, &sv); err != nil {
		return err
	}
	v.topic, v.partition, v.value = []byte(sv.Topic), sv.Partition, []byte(sv.Value)
	if sv.Offset != nil {
		v.offset, v.hasOffset = *sv.Offset, true
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
		return err
	}
	v.topic = []byte(rr.Topic)
	for _, r := range rr.Records {
		v.recs = append(v.recs, rawRec{r.Partition, r.Offset, []byte(r.Value), r.LeaderEpoch})
	}
	var err error
	if v.ends, err = partitionMap(rr.EndOffsets); err != nil {
		return err
	}
	v.starts, err = partitionMap(rr.StartOffsets)
	return err
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
	s := fscan{b: b}
	var seen uint8
	return s.object(func(key []byte) bool {
		var bit uint8
		ok := false
		switch string(key) {
		case "topic":
			bit = 1
			v.topic, ok = s.plain()
		case "partition":
			bit = 2
			v.partition, ok = s.int32()
		case "value":
			bit = 4
			v.value, ok = s.plain()
		case "offset":
			bit = 8
			v.offset, ok = s.int()
			v.hasOffset = ok
		case "key":
			bit = 16
			_, ok = s.plain()
		}
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		return true
	}) && s.end()
}

// fastRead decodes {"topic":..,"records":[..],"end_offsets":{..},"start_offsets":{..}}.
func fastRead(b []byte, v *readVal) bool {
	s := fscan{b: b}
	var seen uint8
	return s.object(func(key []byte) bool {
		var bit uint8
		ok := false
		switch string(key) {
		case "topic":
			bit = 1
			v.topic, ok = s.plain()
		case "records":
			bit = 2
			ok = s.records(v)
		case "end_offsets":
			bit = 4
			v.ends, ok = s.offsets()
		case "start_offsets":
			bit = 8
			v.starts, ok = s.offsets()
		}
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		return true
	}) && s.end()
}

func (s *fscan) records(v *readVal) bool {
	if s.null() {
		return true
	}
	if !s.byte('[') {
		return false
	}
	s.space()
	if s.byte(']') {
		return true
	}
	for {
		var r rawRec
		var seen uint8
		ok := s.object(func(key []byte) bool {
			var bit uint8
			ok := false
			switch string(key) {
			case "partition":
				bit = 1
				r.partition, ok = s.int32()
			case "offset":
				bit = 2
				r.offset, ok = s.int()
			case "value":
				bit = 4
				r.value, ok = s.plain()
			case "leader_epoch":
				bit = 8
				r.epoch, ok = s.int32()
			}
			if !ok || seen&bit != 0 {
				return false
			}
			seen |= bit
			return true
		})
		if !ok {
			return false
		}
		v.recs = append(v.recs, r)
		s.space()
		if s.byte(']') {
			return true
		}
		if !s.byte(',') {
			return false
		}
		s.space()
	}
}

func (s *fscan) offsets() (map[int32]int64, bool) {
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
		m[p], ok = s.int()
		return ok
	})
	return m, ok
}

// parseKey reads a canonical partition key ("0", "12").
func parseKey(k []byte) (int32, bool) {
	s := fscan{b: k}
	p, ok := s.int32()
	return p, ok && s.i == len(k)
}

// fscan is a conservative JSON reader: it accepts a subset of JSON and says
// false on anything else, never deciding that input is invalid.
type fscan struct {
	b []byte
	i int
}

// object walks {"key": value, ...} calling field with s positioned at each
// value; field must consume the value. Anything after the closing brace at
// top level is left for the caller to reject.
func (s *fscan) object(field func(key []byte) bool) bool {
	s.space()
	if !s.byte('{') {
		return false
	}
	s.space()
	if s.byte('}') {
		return true
	}
	for {
		s.space()
		key, ok := s.plain()
		if !ok {
			return false
		}
		s.space()
		if !s.byte(':') {
			return false
		}
		s.space()
		if !field(key) {
			return false
		}
		s.space()
		if s.byte('}') {
			return true
		}
		if !s.byte(',') {
			return false
		}
	}
}

// end reports whether only space is left.
func (s *fscan) end() bool {
	s.space()
	return s.i == len(s.b)
}

func (s *fscan) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

func (s *fscan) byte(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

func (s *fscan) null() bool {
	if len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "null" {
		s.i += 4
		return true
	}
	return false
}

// plain reads a string of printable ASCII without escapes.
func (s *fscan) plain() ([]byte, bool) {
	if !s.byte('"') {
		return nil, false
	}
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		if c == '"' {
			s.i++
			return s.b[start : s.i-1], true
		}
		if c == '\\' || c < 0x20 || c >= 0x7f {
			return nil, false
		}
		s.i++
	}
	return nil, false
}

// int reads a canonical integer of at most 18 digits.
func (s *fscan) int() (int64, bool) {
	neg := s.byte('-')
	start := s.i
	var v int64
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		v = v*10 + int64(s.b[s.i]-'0')
		s.i++
	}
	n := s.i - start
	if n == 0 || n > 18 || (n > 1 && s.b[start] == '0') || (neg && v == 0) {
		return 0, false
	}
	if s.i < len(s.b) && (s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}

func (s *fscan) int32() (int32, bool) {
	v, ok := s.int()
	if !ok || v < math.MinInt32 || v > math.MaxInt32 {
		return 0, false
	}
	return int32(v), true
}
