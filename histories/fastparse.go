package histories

import (
	"encoding/json"
	"math"
)

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
func fastEvent(b []byte, e *Event) bool { return fastEventIn(b, e, nil) }

// fastEventIn is fastEvent with the value copied into *arena (see carve);
// a nil arena gives each value its own allocation.
func fastEventIn(b []byte, e *Event, arena *[]byte) bool {
	if len(b) == 0 || b[0] != '{' {
		return false // the Recorder writes no leading space
	}
	if canonicalEvent(b, e, arena) {
		return true
	}
	s := scanner{b: b}
	seen, ok := s.fields(func(key []byte) (bit uint8, ok bool) {
		switch string(key) {
		case "index":
			bit = 1
			e.Index, ok = s.Int()
		case "time":
			bit = 2
			e.Time, ok = s.Int()
		case "process":
			bit = 4
			var p int64
			p, ok = s.Int()
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
				return 0, false
			}
			if ok = s.skipValue(0); ok {
				e.Value = carve(arena, s.b[start:s.i])
			}
		}
		return bit, ok // unknown keys and other spellings: encoding/json decides
	})
	// "{}" is fine for json but pointless here (it lacks the required
	// fields); trailing data is an error.
	return ok && s.End() && seen&requiredBits == requiredBits
}

// arenaChunk is the size of the blocks the Reader copies values into.
const arenaChunk = 64 << 10

// carve copies v into the arena's current block, starting a new block
// when it is full: the values are most of a history's bytes, and one
// allocation per block rather than per event spares the allocator and
// the collector two million small objects in a 1M-op history. A value
// stays valid for good (a block is never reused; one kept value keeps
// its block), and its capacity ends at its length, so an append to it
// never writes over the next. A value larger than a quarter block, or a
// nil arena, gets an allocation of its own.
func carve(arena *[]byte, v []byte) json.RawMessage {
	if arena == nil || len(v) > arenaChunk/4 {
		return append(json.RawMessage(nil), v...)
	}
	a := *arena
	if cap(a)-len(a) < len(v) {
		a = make([]byte, 0, arenaChunk)
	}
	start := len(a)
	a = append(a, v...)
	*arena = a
	return a[start:len(a):len(a)]
}

// requiredBits are index, time, process, type and f: every event has them
// (a line without one goes the slow way, which names the missing field).
const requiredBits = 1 | 2 | 4 | 8 | 16

// intern returns the strings most events carry (types and fs) without an
// allocation, saving two per event; a switch, as the compiler builds it
// (by length, then the bytes), costs a fraction of hashing for a map.
func intern(b []byte) string {
	switch string(b) {
	case string(Invoke):
		return string(Invoke)
	case string(OK):
		return string(OK)
	case string(Fail):
		return string(Fail)
	case string(Info):
		return string(Info)
	case FSend:
		return FSend
	case FPoll:
		return FPoll
	case FFinalRead:
		return FFinalRead
	case FAssign:
		return FAssign
	case FObserve:
		return FObserve
	case FTxn:
		return FTxn
	case FSubscribe:
		return FSubscribe
	case FCommit:
		return FCommit
	case FRebalance:
		return FRebalance
	}
	return string(b)
}

// scanner reads the canonical form the Recorder writes (flat objects, plain
// ASCII strings without escapes, canonical integers) straight from the
// bytes, without encoding/json's reflection. It is conservative: each
// method moves past what it reads and returns true, or returns false on
// anything else, never deciding that input is invalid, so that callers
// fall back to encoding/json, which then accepts or rejects the input with
// its usual message. Byte slices it returns alias the input.
type scanner struct {
	b []byte
	i int
}

// newScanner returns a Scanner at the start of b.
func newScanner(b []byte) scanner { return scanner{b: b} }

// rest is the input not yet read.
func (s *scanner) rest() []byte { return s.b[s.i:] }

// End skips white space and reports whether the input is used up.
func (s *scanner) End() bool {
	s.space()
	return s.i == len(s.b)
}

// null reads the literal null.
func (s *scanner) null() bool { return s.word("null") }

// object walks {"key": value, ...} (keys plain strings), calling field with
// s positioned at each value; field must read the value and return true.
// Leading white space is skipped; anything after the closing brace is left
// for the caller (see End).
func (s *scanner) object(field func(key []byte) bool) bool {
	s.space()
	return s.list('{', '}', func() bool {
		key, ok := s.plain()
		if !ok {
			return false
		}
		s.space()
		if !s.Byte(':') {
			return false
		}
		s.space()
		return field(key)
	})
}

// fields walks an object as Object does, for a decoder that knows the keys
// the Recorder writes: field reads the value at key and returns the key's
// bit, or false for a key it does not know. A key that stands twice also
// gives false (encoding/json would keep the last one; the slow path
// decides). Fields returns the bits of the keys seen.
func (s *scanner) fields(field func(key []byte) (bit uint8, ok bool)) (uint8, bool) {
	var seen uint8
	ok := s.object(func(key []byte) bool {
		bit, ok := field(key)
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		return true
	})
	return seen, ok
}

// array walks [elem, ...], calling elem with s positioned at each element;
// elem must read it and return true.
func (s *scanner) array(elem func() bool) bool { return s.list('[', ']', elem) }

// list walks open elem, elem, ... close with white space around the
// elements: the one loop of Object, Array and skipValue.
func (s *scanner) list(open, close byte, elem func() bool) bool {
	if !s.Byte(open) {
		return false
	}
	s.space()
	if s.Byte(close) {
		return true
	}
	for {
		if !elem() {
			return false
		}
		s.space()
		if s.Byte(close) {
			return true
		}
		if !s.Byte(',') {
			return false
		}
		s.space()
	}
}

// Int32 reads a canonical integer (see Int) that fits an int32.
func (s *scanner) Int32() (int32, bool) {
	v, ok := s.Int()
	if !ok || v < math.MinInt32 || v > math.MaxInt32 {
		return 0, false
	}
	return int32(v), true
}

// space skips JSON white space.
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

// Byte reads the byte c.
func (s *scanner) Byte(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// plain reads a string of printable ASCII without escapes and returns its
// contents (a slice of the input).
func (s *scanner) plain() ([]byte, bool) {
	if !s.Byte('"') {
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

// Int reads an integer in canonical form (no leading zeros, no "-0"), of at
// most 18 digits so that it cannot overflow.
func (s *scanner) Int() (int64, bool) {
	neg := s.Byte('-')
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
// encoding/json's scanner does. Containers nested deeper than 64 are
// left to encoding/json (depth is the caller's nesting already).
//
// One loop over a stack of the open containers: walking them through
// Object's closures, a call per element and per level, was half of
// decoding an event, and every event's value goes through here.
func (s *scanner) skipValue(depth int) bool {
	var open [65]byte // '{' or '[' per open container
	n := 0
	for {
		// A value starts at s.i.
		if depth+n > 64 || s.i >= len(s.b) {
			return false
		}
		switch c := s.b[s.i]; {
		case c == '{' || c == '[':
			s.i++
			s.space()
			if s.i < len(s.b) && s.b[s.i] == c+2 { // '{'+2 is '}', '['+2 is ']'
				s.i++
				break // empty: a whole value
			}
			open[n] = c
			n++
			if c == '{' && !s.key() {
				return false
			}
			continue // the first element
		case c == '"':
			if !s.str() {
				return false
			}
		case c == '-' || (c >= '0' && c <= '9'):
			if !s.number() {
				return false
			}
		case c == 't':
			if !s.word("true") {
				return false
			}
		case c == 'f':
			if !s.word("false") {
				return false
			}
		case c == 'n':
			if !s.word("null") {
				return false
			}
		default:
			return false
		}
		// A value ended: close the containers it ends, or go on to the
		// next element of the innermost.
		for {
			if n == 0 {
				return true
			}
			s.space()
			if s.i >= len(s.b) {
				return false
			}
			if c := s.b[s.i]; c == open[n-1]+2 {
				s.i++
				n--
				continue
			} else if c != ',' {
				return false
			}
			s.i++
			s.space()
			if open[n-1] == '{' && !s.key() {
				return false
			}
			break
		}
	}
}

// key moves past an object's key, its colon and the white space around:
// what precedes each member's value.
func (s *scanner) key() bool {
	if !s.str() {
		return false
	}
	s.space()
	if !s.Byte(':') {
		return false
	}
	s.space()
	return true
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
	if !s.Byte('"') {
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
	s.Byte('-')
	if s.Byte('0') {
		// no more digits may follow a leading zero
	} else if !s.digits() {
		return false
	}
	if s.Byte('.') && !s.digits() {
		return false
	}
	if s.Byte('e') || s.Byte('E') {
		if !s.Byte('+') {
			s.Byte('-')
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
