package java

import (
	"testing"

	"github.com/kchaos/kchaos/workloads"
)

// TestJavaClientPropsLast: the java driver applies the service's
// properties after its own, in every client it builds from them.
func TestJavaClientPropsLast(t *testing.T) {
	c := workloads.Config{Driver: workloads.DriverJava, ClusterVersion: "4.4.0"}
	c.Group.ID, c.Consumers = "g", 0 // a consumer group
	c.ProducerProps = map[string]string{"linger.ms": "5", "compression.type": "lz4", "retry.backoff.ms": "7"}
	c.ConsumerProps = map[string]string{"fetch.max.wait.ms": "50", "heartbeat.interval.ms": "1500"}
	c.Defaults()
	bs := []string{"b:9092"}
	p := javaProducerProps(c, bs, 0)
	if p["linger.ms"] != "5" || p["compression.type"] != "lz4" || p["retry.backoff.ms"] != "7" || p["acks"] != "all" {
		t.Errorf("producer props %v", p)
	}
	if tp := javaTxnProps(c, bs, 0); tp["linger.ms"] != "5" || tp["transactional.id"] == "" {
		t.Errorf("txn props %v", tp)
	}
	for name, m := range map[string]map[string]string{"consumer": javaConsumerProps(c, bs, 0),
		"member": javaMemberProps(c, bs, 0), "txn reader": javaTxnConsumerProps(c, bs, 0)} {
		if m["fetch.max.wait.ms"] != "50" || m["heartbeat.interval.ms"] != "1500" {
			t.Errorf("%s props %v: want the file's fetch.max.wait.ms and heartbeat.interval.ms", name, m)
		}
	}
	if info := c.ProducerInfo(); info.Props["linger.ms"] != "5" || info.ConsumerProps["fetch.max.wait.ms"] != "50" {
		t.Errorf("run.json's producer section %+v", info)
	}
}

// TestJavaMemberProtocol: each member's JVM gets its own group.protocol
// in a mixed group, and the classic-only timeouts only where it is
// classic.
func TestJavaMemberProtocol(t *testing.T) {
	c := workloads.Config{Driver: workloads.DriverJava, ClusterVersion: "4.4.0"}
	c.Group = workloads.GroupConfig{ID: "g", Members: 3, Protocols: []string{"consumer", "classic", "classic"}}
	c.Defaults()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	for i, want := range c.Group.Protocols {
		p := javaMemberProps(c, []string{"b:9092"}, i)
		_, timeout := p["session.timeout.ms"]
		if p["group.protocol"] != want || timeout != (want == "classic") {
			t.Errorf("member %d: group.protocol %q, session.timeout.ms set %v; want %q", i, p["group.protocol"], timeout, want)
		}
	}
}
