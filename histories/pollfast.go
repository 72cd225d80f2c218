package histories

import (
	"encoding/json"
	"strings"
)

// PollRequest is what the checker reads of a poll's invoke value: its
// isolation and, for a group member's poll, its group, member id and
// generation (nil when absent).
type PollRequest struct {
	Isolation  string  `json:"isolation"`
	Group      *string `json:"group"`
	MemberID   *string `json:"member_id"`
	Generation *int32  `json:"generation"`
}

// DecodePollRequest decodes a poll invoke's value into v exactly as
// json.Unmarshal does (a poll is a quarter of a history's ops, and
// encoding/json's reflection cost more than the rest of taking one): the
// canonical form is read directly, anything else (escapes, nulls, a key
// that differs from one of these only in case) by encoding/json, whose
// error is returned. The value's syntax was checked when its line was read.
func DecodePollRequest(raw []byte, v *PollRequest) error {
	*v = PollRequest{}
	if fastPoll(raw, v) {
		return nil
	}
	*v = PollRequest{}
	return json.Unmarshal(raw, v)
}

var pollKeys = []string{"isolation", "group", "member_id", "generation"}

func fastPoll(b []byte, v *PollRequest) bool {
	s := newScanner(b)
	ok := s.object(func(key []byte) bool {
		var ok bool
		switch string(key) {
		case "isolation":
			var iso []byte
			iso, ok = s.plain()
			v.Isolation = string(iso)
		case "group", "member_id":
			var str []byte
			if str, ok = s.plain(); ok {
				p := new(string)
				*p = string(str)
				if key[0] == 'g' {
					v.Group = p
				} else {
					v.MemberID = p
				}
			}
		case "generation":
			var g int32
			if g, ok = s.Int32(); ok {
				v.Generation = &g
			}
		default:
			for _, k := range pollKeys {
				if strings.EqualFold(string(key), k) {
					return false // encoding/json would match it
				}
			}
			ok = s.skipValue(0)
		}
		return ok
	})
	return ok && s.End()
}
