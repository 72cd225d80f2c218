package docker

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/cluster"
)

// TestLayoutSpares: a dynamic quorum's spare controllers are controllers
// of the run after the initial voters (ids and addresses next to theirs,
// below the brokers'), formatted --no-initial-controllers, while the
// voters get --initial-controllers naming only the voters.
func TestLayoutSpares(t *testing.T) {
	for _, tc := range []struct {
		name        string
		quorum      *cluster.Quorum
		controllers string
		spareFormat string
	}{
		{"static", nil, "[1000@10.231.9.10 1001@10.231.9.11 1002@10.231.9.12]", ""},
		{"two spares", &cluster.Quorum{Dynamic: true, SpareControllers: 2},
			"[1000@10.231.9.10 1001@10.231.9.11 1002@10.231.9.12 1003@10.231.9.13 1004@10.231.9.14]", "--no-initial-controllers"},
	} {
		cfg := cluster.Config{RunID: "r", Controllers: 3, Brokers: 3, Quorum: tc.quorum}
		cfg.Defaults()
		c := &Cluster{cfg: cfg, nodes: map[int32]cluster.Node{}}
		c.layout(netip.MustParsePrefix("10.231.9.0/24"))
		var got []string
		for _, n := range c.Controllers() {
			got = append(got, fmt.Sprintf("%d@%s", n.ID, n.IP))
		}
		if fmt.Sprint(got) != tc.controllers {
			t.Errorf("%s: controllers %v, want %s", tc.name, got, tc.controllers)
		}
		if b := c.Brokers(); b[0].IP != "10.231.9.20" {
			t.Errorf("%s: broker 0 at %s, want .20", tc.name, b[0].IP)
		}
		l := cluster.NewKRaftLayout(cfg, c.Controllers())
		ctrls := c.Controllers()
		if got := strings.Join(l.FormatArgs(ctrls[len(ctrls)-1]), " "); tc.spareFormat != "" && got != tc.spareFormat {
			t.Errorf("%s: the last controller formats with %q, want %q", tc.name, got, tc.spareFormat)
		}
		if voters := strings.Join(l.FormatArgs(ctrls[0]), " "); tc.quorum != nil && strings.Contains(voters, "1003@") {
			t.Errorf("%s: the initial voters' list names a spare: %s", tc.name, voters)
		}
	}
}
