package histories

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestSkipValue: the one-loop skipValue accepts a prefix of the input
// only if it is one valid JSON value (encoding/json's json.Valid), ends
// where that value ends, and stops at the nesting depth of the recursive
// walk it replaced (64), on a table of values and on random cuts and
// changes of them.
func TestSkipValue(t *testing.T) {
	deep := func(n int, o, c string) string { return strings.Repeat(o, n) + strings.Repeat(c, n) }
	cases := []struct {
		in   string
		ok   bool
		rest int // bytes left after the value
	}{
		{`{"topic":"t","partition":1,"value":"v0"}`, true, 0},
		{`{}`, true, 0},
		{`[]`, true, 0},
		{`{ }`, true, 0},
		{`[ 1 , 2 ]`, true, 0},
		{`{"a":[1,{"b":null,"c":[true,false]}],"d":-0.5e+3}`, true, 0},
		{`{"a":1}}`, true, 1},
		{`{"a":1} `, true, 1},
		{`"x\u00e9\n"`, true, 0},
		{`01`, true, 1},
		{`{"a":1,}`, false, 0},
		{`{"a" 1}`, false, 0},
		{`{"a":}`, false, 0},
		{`{1:2}`, false, 0},
		{`[1,]`, false, 0},
		{`[1 2]`, false, 0},
		{`{"a":[1}`, false, 0},
		{`{"a":1]`, false, 0},
		{`{"a":tru}`, false, 0},
		{`{"a":"\x"}`, false, 0},
		{"{\"a\":\"\x01\"}", false, 0},
		{`{"a":1`, false, 0},
		{``, false, 0},
		{deep(65, "[", "]"), true, 0},
		{deep(66, "[", "]"), false, 0},
		{deep(65, `{"a":`, "}") + "", false, 0},
	}
	for _, tc := range cases {
		s := newScanner([]byte(tc.in))
		ok := s.skipValue(0)
		if ok != tc.ok || (ok && len(s.rest()) != tc.rest) {
			t.Errorf("%.40q: got %v with %d left, want %v with %d", tc.in, ok, len(s.rest()), tc.ok, tc.rest)
		}
	}
	// Random damage, shallow: skipValue takes the whole input exactly when
	// it is valid JSON (but for leading white space, left to the caller).
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte(`{}[]:,"\ 0123456789-+.eEtrufalsn` + "\x01")
	for range 200000 {
		b := []byte(cases[rng.IntN(6)].in)
		for range 1 + rng.IntN(3) {
			switch i := rng.IntN(len(b) + 1); rng.IntN(3) {
			case 0:
				b = b[:i]
			case 1:
				if i < len(b) {
					b[i] = alphabet[rng.IntN(len(alphabet))]
				}
			default:
				b = append(b[:i:i], append([]byte{alphabet[rng.IntN(len(alphabet))]}, b[i:]...)...)
			}
		}
		s := newScanner(b)
		whole := s.skipValue(0) && s.End()
		if valid := json.Valid(b); whole != valid && (len(b) == 0 || b[0] != ' ') {
			t.Fatalf("%q: skipValue %v, json.Valid %v", b, whole, valid)
		}
	}
}

// TestIntern: the common strings come back equal (and shared), others
// as themselves.
func TestIntern(t *testing.T) {
	for _, w := range []string{string(Invoke), string(OK), string(Fail), string(Info), FSend, FPoll,
		FFinalRead, FAssign, FObserve, FTxn, FSubscribe, FCommit, FRebalance, "", "sendx", "Send", "other"} {
		if got := intern([]byte(w)); got != w {
			t.Errorf("intern(%q) = %q", w, got)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = intern([]byte("final-read")) }); n != 0 {
		t.Errorf("interning a common string allocated %v times", n)
	}
}
