package docker

import (
	"net/netip"
	"testing"
)

// TestClientIP: client containers take addresses from the top of the
// run's subnet down (below the broadcast address), never the gateway's
// or a node's (below .32: controllers .10+, brokers .20+).
func TestClientIP(t *testing.T) {
	for _, c := range []struct {
		subnet string
		n      int
		want   string // "" for none
	}{
		{"10.231.7.0/24", 0, "10.231.7.254"},
		{"10.231.7.0/24", 1, "10.231.7.253"},
		{"10.231.7.0/24", 222, "10.231.7.32"},
		{"10.231.7.0/24", 223, ""},
		{"10.1.0.0/26", 0, "10.1.0.62"},
		{"10.1.0.0/26", 30, "10.1.0.32"},
		{"10.1.0.0/26", 31, ""},
		{"10.1.0.0/16", 0, "10.1.255.254"},
		{"10.1.0.0/27", 0, ""}, // narrower than kchaos allows
		{"10.231.7.0/24", -1, ""},
	} {
		ip, ok := clientIP(netip.MustParsePrefix(c.subnet), c.n)
		got := ""
		if ok {
			got = ip.String()
		}
		if got != c.want {
			t.Errorf("clientIP(%s, %d) = %q, want %q", c.subnet, c.n, got, c.want)
		}
	}
}

// TestClientSet: a taken address is not taken again until dropped; the
// running clients are listed in start order.
func TestClientSet(t *testing.T) {
	subnet := netip.MustParsePrefix("10.1.0.0/26")
	var s clientSet
	a, n1, err := s.take(subnet)
	if err != nil {
		t.Fatal(err)
	}
	b, n2, err := s.take(subnet)
	if err != nil {
		t.Fatal(err)
	}
	if a == b || n1 == n2 {
		t.Fatalf("take twice: %s #%d, %s #%d", a, n1, b, n2)
	}
	s.add(b, &clientProc{})
	s.add(a, &clientProc{})
	if got := s.addrs(); len(got) != 2 || got[0] != b || got[1] != a {
		t.Errorf("addrs = %v, want [%s %s]", got, b, a)
	}
	s.drop(b)
	if got := s.addrs(); len(got) != 1 || got[0] != a {
		t.Errorf("after drop: addrs = %v, want [%s]", got, a)
	}
	c, _, err := s.take(subnet)
	if err != nil || c != b {
		t.Errorf("take after drop = %s, %v; want the dropped %s again", c, err, b)
	}
	for range 29 { // .32 to .62: 31 in all
		if _, _, err := s.take(subnet); err != nil {
			t.Fatal(err)
		}
	}
	if ip, _, err := s.take(subnet); err == nil {
		t.Errorf("take beyond the subnet's room = %s, want an error", ip)
	}
}
