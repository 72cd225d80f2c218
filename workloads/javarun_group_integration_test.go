//go:build integration

package workloads

import (
	"testing"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/internal/testenv"
)

// TestJavaGroupWorkload is TestGroupWorkload with the java driver: three
// members (each a KafkaConsumer in a JVM of its own) for 25 s on 4
// partitions, member-1 killed at 6 s (its JVM SIGKILLed: no LeaveGroup)
// and started again at 10 s, member-2 leaving at 14 s (close: revoke,
// commit, LeaveGroup) and rejoining at 16 s; the history is judged as
// franz-go's and kafka-go's are (groupIntegration, which gives the java
// driver the cluster's version as the harness does): subscribes before
// polls, several generations, every partition assigned and committed, nothing below a commit undelivered,
// no delivery outside the recorded assignment, and the broker listing
// the group with the protocol asked for, and the coordinator holding the
// group's last commits (group-final). KCHAOS_JAVA_CLIENT=3.9.2 runs an
// older client against the cluster (3.9's consumer protocol is a preview).
func TestJavaGroupWorkload(t *testing.T) {
	for _, tc := range []struct{ protocol, commit string }{
		{histories.ProtocolClassic, CommitManual},
		{histories.ProtocolConsumer, CommitAuto},
	} {
		t.Run(tc.protocol+"/"+tc.commit, func(t *testing.T) {
			if tc.protocol != histories.ProtocolClassic {
				// make test runs one variant; make test-scenarios both.
				testenv.AllScenarios(t)
			}
			groupIntegration(t, DriverJava, tc.protocol, tc.commit)
		})
	}
}
