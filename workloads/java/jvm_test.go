package java

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/kchaos/kchaos/workloads"
)

// TestJavaRealJVM builds the driver with Maven and javac (the build path
// the driver uses, into os.UserCacheDir()/kchaos/java/<version>/) and
// speaks the protocol to the real JVM, with no Kafka: the producer's send
// to an address nothing listens on expires (info `timeout`), the
// consumer's offsets time out, both close. It needs the Maven registry
// the first time, so it runs only when asked:
//
//	KCHAOS_JAVA_BUILD=1 go test -count=1 -run TestJavaRealJVM -v ./workloads/java/
func TestJavaRealJVM(t *testing.T) {
	if os.Getenv("KCHAOS_JAVA_BUILD") == "" {
		t.Skip("set KCHAOS_JAVA_BUILD=1 to build the Java driver (needs java, javac, mvn and the Maven registry)")
	}
	version := os.Getenv("KCHAOS_JAVA_CLIENT")
	if version == "" {
		version = "4.1.2"
	}
	cfg := workloads.Config{Driver: workloads.DriverJava, ClientVersion: version, RequestTimeout: workloads.Duration(time.Second)}
	cfg.Defaults()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	began := time.Now()
	if _, err := javaBuild(ctx, version); err != nil {
		t.Fatal(err)
	}
	t.Logf("built in %s", time.Since(began).Round(time.Millisecond))
	bootstrap := []string{"127.0.0.1:1"}
	p, err := javaDriver{}.NewProducer(cfg, bootstrap, 0)
	if err != nil {
		t.Fatal(err)
	}
	j := p.(*javaProducer).j
	t.Logf("JVM up: kafka-clients %s", j.version)
	if j.version != version {
		t.Errorf("the JVM loaded kafka-clients %s, want %s", j.version, version)
	}
	_, err = p.Send(ctx, workloads.Message{Partition: 0, Value: "v"})
	cl := workloads.ClassifySend(err, cfg.Acks, false)
	t.Logf("send: %v -> %s %s", err, cl.Type, cl.Name)
	if cl.Name != workloads.CauseTimeout {
		t.Errorf("send to nothing: %v is %s, want %s", err, cl.Name, workloads.CauseTimeout)
	}
	c, err := javaDriver{}.NewConsumer(cfg, bootstrap, 0)
	if err != nil {
		t.Fatal(err)
	}
	octx, ocancel := context.WithTimeout(ctx, 2*time.Second)
	_, err = c.Offsets(octx, []int32{0}, workloads.ResetEarliest)
	ocancel()
	t.Logf("offsets: %v", err)
	if err == nil {
		t.Error("offsets from nothing succeeded")
	}
	if err := c.Assign(ctx, map[int32]int64{0: 5}); err != nil {
		t.Fatal(err)
	}
	pctx, pcancel := context.WithTimeout(ctx, time.Second)
	f, err := c.Poll(pctx)
	pcancel()
	t.Logf("poll: %+v %v", f, err)
	if err != nil || len(f.Records) != 0 || f.Next[0] != 5 {
		t.Errorf("poll of nothing: %+v %v, want empty at 5", f, err)
	}
	c.Close()
	p.Close()
}
