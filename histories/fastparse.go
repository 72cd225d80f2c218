package histories

import "encoding/json"

// fastEvent decodes the canonical form of an event line, the form Recorder
// writes (one flat object; keys index, time, process, type, f, value, error
// in any order, each at most once; plain ASCII strings without escapes;
// integers; an object as value), without encoding/json's reflection, which
// costs about five times as much and dominates reading a long history.
//
// It never decides that a line is bad: on anything else it returns false
// and the Reader takes encoding/json's path, which then accepts or rejects
// the line with its usual message. When it returns true, e is exactly what
// json.Unmarshal would have produced (FuzzFastEvent checks this).
func fastEvent(b []byte, e *Event) bool {
	s := scanner{b: b}
	if !s.byte('{') {
		return false
	}
	var seen uint8
	for first := true; ; first = false {
		s.space()
		if s.byte('}') {
			if first || s.more() {
				return false // "{}" is fine for json but pointless here; trailing data is an error
			}
			return true
		}
		if !first && !s.byte(',') {
			return false
		}
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
		var bit uint8
		switch string(key) {
		case "index":
			bit = 1
			e.Index, ok = s.int()
		case "time":
			bit = 2
			e.Time, ok = s.int()
		case "process":
			bit = 4
			var p int64
			p, ok = s.int()
			e.Process = int(p)
		case "type":
			bit = 8
			var v []byte
			v, ok = s.plain()
			e.Type = Type(intern(v))
		case "f":
			bit = 16
			var v []byte
			v, ok = s.plain()
			e.F = intern(v)
		case "error":
			bit = 32
			var v []byte
			v, ok = s.plain()
			e.Error = string(v)
		case "value":
			bit = 64
			start := s.i
			if s.i >= len(s.b) || s.b[s.i] != '{' {
				return false
			}
			ok = s.skipValue(0)
			if ok {
				e.Value = append(json.RawMessage(nil), s.b[start:s.i]...)
			}
		default:
			return false // unknown keys and other spellings: encoding/json decides
		}
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
	}
}

// common are the strings most events carry: interning them saves two
// allocations per event.
var common = func() map[string]string {
	m := map[string]string{}
	for _, s := range []string{string(Invoke), string(OK), string(Fail), string(Info),
		FSend, FPoll, FFinalRead, FAssign, FObserve} {
		m[s] = s
	}
	return m
}()

func intern(b []byte) string {
	if s, ok := common[string(b)]; ok {
		return s
	}
	return string(b)
}

// scanner walks a JSON text, conservatively: it accepts a subset of JSON.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) more() bool {
	s.space()
	return s.i < len(s.b)
}

func (s *scanner) byte(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// plain reads a string of printable ASCII without escapes and returns its
// contents (a slice of the input).
func (s *scanner) plain() ([]byte, bool) {
	if !s.byte('"') {
		return nil, false
	}
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return s.b[start : s.i-1], true
		case c == '\\' || c < 0x20 || c >= 0x7f:
			return nil, false
		}
		s.i++
	}
	return nil, false
}

// int reads an integer in canonical form (no leading zeros, no "-0"), of at
// most 18 digits so that it cannot overflow.
func (s *scanner) int() (int64, bool) {
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
	if s.i < len(s.b) {
		switch s.b[s.i] {
		case '.', 'e', 'E':
			return 0, false
		}
	}
	if neg {
		v = -v
	}
	return v, true
}

// skipValue moves past one JSON value, checking its syntax as
// encoding/json's scanner does. Deep nesting is left to encoding/json.
func (s *scanner) skipValue(depth int) bool {
	if depth > 64 || s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '{':
		s.i++
		s.space()
		if s.byte('}') {
			return true
		}
		for {
			s.space()
			if !s.str() {
				return false
			}
			s.space()
			if !s.byte(':') {
				return false
			}
			s.space()
			if !s.skipValue(depth + 1) {
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
	case c == '[':
		s.i++
		s.space()
		if s.byte(']') {
			return true
		}
		for {
			s.space()
			if !s.skipValue(depth + 1) {
				return false
			}
			s.space()
			if s.byte(']') {
				return true
			}
			if !s.byte(',') {
				return false
			}
		}
	case c == '"':
		return s.str()
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	case c == 't':
		return s.word("true")
	case c == 'f':
		return s.word("false")
	case c == 'n':
		return s.word("null")
	}
	return false
}

func (s *scanner) word(w string) bool {
	if len(s.b)-s.i >= len(w) && string(s.b[s.i:s.i+len(w)]) == w {
		s.i += len(w)
		return true
	}
	return false
}

// str moves past a string, escapes included; raw bytes >= 0x80 are kept
// verbatim by both paths, so they are fine here.
func (s *scanner) str() bool {
	if !s.byte('"') {
		return false
	}
	for s.i < len(s.b) {
		c := s.b[s.i]
		s.i++
		switch {
		case c == '"':
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if s.i >= len(s.b) {
				return false
			}
			switch s.b[s.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i++
			case 'u':
				if len(s.b)-s.i < 5 {
					return false
				}
				for _, h := range s.b[s.i+1 : s.i+5] {
					if !isHex(h) {
						return false
					}
				}
				s.i += 5
			default:
				return false
			}
		}
	}
	return false
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// number moves past a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() bool {
	s.byte('-')
	if s.byte('0') {
		// no more digits may follow a leading zero
	} else if !s.digits() {
		return false
	}
	if s.byte('.') && !s.digits() {
		return false
	}
	if s.byte('e') || s.byte('E') {
		if !s.byte('+') {
			s.byte('-')
		}
		if !s.digits() {
			return false
		}
	}
	return true
}

func (s *scanner) digits() bool {
	start := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i > start
}
