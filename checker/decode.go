package checker

import (
	"encoding/json"

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
	s := histories.NewScanner(b)
	var seen uint8
	return s.Object(func(key []byte) bool {
		var bit uint8
		ok := false
		switch string(key) {
		case "topic":
			bit = 1
			v.topic, ok = s.Plain()
		case "partition":
			bit = 2
			v.partition, ok = s.Int32()
		case "value":
			bit = 4
			v.value, ok = s.Plain()
		case "offset":
			bit = 8
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
				bit = 1
				r.partition, ok = s.Int32()
			case "offset":
				bit = 2
				r.offset, ok = s.Int()
			case "value":
				bit = 4
				r.value, ok = s.Plain()
			case "leader_epoch":
				bit = 8
				r.epoch, ok = s.Int32()
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
