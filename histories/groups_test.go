package histories

import (
	"fmt"
	"strings"
	"testing"
)

func TestOutsideAssignment(t *testing.T) {
	sub := func(p int, extra string) string {
		return fmt.Sprintf(`{"index":0,"time":0,"process":%d,"type":"ok","f":"subscribe","value":{"group":"g","member":"m","topic":"t","protocol":"classic"%s}}`, p, extra)
	}
	rebal := func(p int, assigned, revoked string) string {
		return fmt.Sprintf(`{"index":0,"time":0,"process":%d,"type":"ok","f":"rebalance","value":{"group":"g","topic":"t","generation":1,"assigned":%s,"revoked":%s}}`, p, assigned, revoked)
	}
	poll := func(p, part int) string {
		return fmt.Sprintf(`{"index":0,"time":0,"process":%d,"type":"ok","f":"poll","value":{"topic":"t","records":[{"partition":%d,"offset":5,"value":"v"}]}}`, p, part)
	}
	for _, tc := range []struct {
		name  string
		lines []string
		want  int
	}{
		{"assigned, then delivered", []string{sub(1, ""), rebal(1, "[0]", "[]"), poll(1, 0)}, 0},
		{"delivered before its assignment was recorded", []string{sub(1, ""), poll(1, 0), rebal(1, "[0]", "[]")}, 1},
		{"delivered after the revoke", []string{sub(1, ""), rebal(1, "[0]", "[]"), rebal(1, "[]", "[0]"), poll(1, 0)}, 1},
		{"another partition", []string{sub(1, ""), rebal(1, "[0]", "[]"), poll(1, 1)}, 1},
		{"a process continuing the client holds what it held", []string{sub(1, ""), rebal(1, "[0]", "[]"), sub(2, `,"continues":1`), poll(2, 0)}, 0},
		{"a new client holds nothing", []string{sub(1, ""), rebal(1, "[0]", "[]"), sub(2, ""), poll(2, 0)}, 1},
		{"a plain consumer's poll is no member's", []string{poll(3, 0)}, 0},
	} {
		for i := range tc.lines {
			tc.lines[i] = strings.Replace(tc.lines[i], `"index":0`, fmt.Sprintf(`"index":%d`, i), 1)
		}
		evs, _, err := ReadAll(strings.NewReader(strings.Join(tc.lines, "\n") + "\n"))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got, err := OutsideAssignment(evs)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(got) != tc.want {
			t.Errorf("%s: %d outside (%v), want %d", tc.name, len(got), got, tc.want)
		}
	}
}
