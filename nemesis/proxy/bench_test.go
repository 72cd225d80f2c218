package proxy

import (
	"context"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// BenchmarkForward sends acks=1 Produce requests (two partitions of 16
// KiB each) and waits for each answer, to the in-process broker directly
// and through the proxy, with a rule active that matches nothing (so the
// rule path is paid too). The difference per op is the proxy's cost on
// one round trip; the in-process broker is far faster than Kafka, so on
// a real cluster the relative cost is smaller.
func BenchmarkForward(b *testing.B) {
	for _, through := range []string{"direct", "proxy"} {
		b.Run(through, func(b *testing.B) {
			br := startTestBroker(b, 0)
			addr := br.addr()
			if through == "proxy" {
				p := New(Options{})
				if err := p.Start(context.Background(), []string{addr}); err != nil {
					b.Fatal(err)
				}
				defer p.Close()
				if _, err := p.Add(Rule{APIKeys: endTxnKey(), Action: DropResponse}); err != nil {
					b.Fatal(err)
				}
				addr = p.Bootstrap()[0]
			}
			c := dialRaw(b, addr, "p1")
			defer c.c.Close()
			req := produce(9, 1)
			for i := range req.Topics[0].Partitions {
				req.Topics[0].Partitions[i].Records = make([]byte, 16<<10)
			}
			frame := kmsg.NewRequestFormatter(kmsg.FormatterClientID("p1")).AppendRequest(nil, req, 1)
			b.SetBytes(int64(len(frame)))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := c.c.Write(frame); err != nil {
					b.Fatal(err)
				}
				if _, err := readFrame(c.c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
