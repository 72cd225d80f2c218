package workloads

import (
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// FranzCommon are the options every kchaos franz-go client shares: fast
// metadata refresh, so that a client finds a new leader within a fraction
// of a second rather than franz-go's default 5 s minimum age, and bounded
// dials and reads, so that a paused broker costs a timeout, not a hang.
// Exported for workloads/franz, whose clients start from them, and for the
// share group's admin (workloads/shares/drain.go), which is no driver's.
func FranzCommon(cfg Config, bootstrap []string, clientID string) []kgo.Opt {
	return []kgo.Opt{
		kgo.SeedBrokers(bootstrap...),
		kgo.ClientID(clientID),
		kgo.MetadataMinAge(250 * time.Millisecond),
		kgo.MetadataMaxAge(10 * time.Second),
		kgo.DialTimeout(min(cfg.RequestTimeout.Std(), 5*time.Second)),
		kgo.RequestTimeoutOverhead(time.Second),
	}
}
