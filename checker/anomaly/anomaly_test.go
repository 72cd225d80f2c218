package anomaly

import (
	"slices"
	"strings"
	"testing"
)

func TestCounts(t *testing.T) {
	all := []Options{{}, {Idempotent: true}, {ExactlyOnce: true}, {Idempotent: true, ExactlyOnce: true}}
	for _, tc := range []struct {
		rule Rule
		want []bool // under each of all
	}{
		{Always, []bool{true, true, true, true}},
		{IfIdempotent, []bool{false, true, false, true}},
		{IfExactlyOnce, []bool{false, false, true, true}},
		{PerEntry, []bool{true, true, true, true}},
		{Never, []bool{false, false, false, false}},
		{Unjudged, []bool{false, false, false, false}},
	} {
		for i, o := range all {
			if got := (Kind{Name: "k", Unit: "u", Rule: tc.rule}).Counts(o); got != tc.want[i] {
				t.Errorf("%v under %+v: %v, want %v", tc.rule, o, got, tc.want[i])
			}
		}
	}
}

type domain []Kind

func (domain) Name() string        { return "test" }
func (d domain) Anomalies() []Kind { return d }

func TestAgainstKeepsDeclarationOrder(t *testing.T) {
	ks := Kinds(domain{{"a", "u", Always}, {"b", "u", IfIdempotent}}, domain{{"c", "u", Never}, {"d", "u", IfExactlyOnce}, {"e", "u", PerEntry}})
	for _, tc := range []struct {
		o    Options
		want []string
	}{
		{Options{}, []string{"a", "e"}},
		{Options{Idempotent: true}, []string{"a", "b", "e"}},
		{Options{Idempotent: true, ExactlyOnce: true}, []string{"a", "b", "d", "e"}},
	} {
		if got := Against(ks, tc.o); !slices.Equal(got, tc.want) {
			t.Errorf("%+v: %v, want %v", tc.o, got, tc.want)
		}
	}
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		kinds []Kind
		want  string // in the error; "" for none
	}{
		{[]Kind{{"a", "per send", Always}, {"b", "per value", Never}}, ""},
		{[]Kind{{"", "per send", Always}}, "without a name"},
		{[]Kind{{"a", "per send", Always}, {"a", "per value", Never}}, "declared twice"},
		{[]Kind{{"a", "", Always}}, "no unit"},
		{[]Kind{{"a", "per send", 0}}, "unknown rule"},
		{[]Kind{{"a", "per send", Unjudged + 1}}, "unknown rule"},
	} {
		err := Check(tc.kinds)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v: %v", tc.kinds, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%v: %v, want %q", tc.kinds, err, tc.want)
		}
	}
}

// TestParseRule: every rule reads back from its String, and nothing else
// is a rule.
func TestParseRule(t *testing.T) {
	for r := Always; r <= Unjudged; r++ {
		if got, err := ParseRule(r.String()); got != r || err != nil {
			t.Errorf("%v: %v, %v", r, got, err)
		}
	}
	for _, s := range []string{"", "Always", "sometimes", "Rule(0)"} {
		if r, err := ParseRule(s); err == nil {
			t.Errorf("%q: %v, want an error", s, r)
		}
	}
}
