package java

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kchaos/kchaos/workloads"
)

// javaMetaAdmin is the metadata workload's admin client on Apache Kafka's
// Java Admin client (javaclient/AdminHandle.java), in the run's JVM: the
// MetaAdmin a java run's metadata workload should use. Like
// admin.NewOnce's, its requests are never retried (retries 0), so each
// change's outcome is its one request's answer.
//
// Its errors are shaped for admin.MetaOutcome, which judges franz-go's:
// a Kafka error the controller answered wraps its *kerr.Error (fail; and
// its name is in the text, where the workload looks for
// TOPIC_ALREADY_EXISTS); what the client raised itself without an answer
// (TimeoutException, a lost connection's NetworkException or
// DisconnectException) stays a bare JavaError: info, as a franz-go
// timeout or broken connection is.
type javaMetaAdmin struct{ javaHandle }

var _ workloads.MetaAdmin = (*javaMetaAdmin)(nil)

// javaMetaTimeoutMS is the controller-side timeout of each change, as
// cluster/admin's metaTimeoutMS.
const javaMetaTimeoutMS = 5000

var _ workloads.MetaAdminDriver = javaDriver{}

// NewMetaAdmin is the metadata workload's admin client for driver java
// (workloads.NewMetaAdmin asks): a javaMetaAdmin, and what closes it.
func (javaDriver) NewMetaAdmin(cfg workloads.Config, bootstrap []string) (workloads.MetaAdmin, func(), error) {
	ja, err := newJavaMetaAdmin(cfg, bootstrap)
	if err != nil {
		return nil, nil, err
	}
	return ja, ja.Close, nil
}

// newJavaMetaAdmin opens the admin client; cfg gives the client version
// (javaClientVersion) and the common client settings.
func newJavaMetaAdmin(cfg workloads.Config, bootstrap []string) (*javaMetaAdmin, error) {
	p := javaCommon(cfg, bootstrap, workloads.MetadataAdminClientID)
	p["retries"] = "0"
	p["request.timeout.ms"] = "7000"
	p["default.api.timeout.ms"] = "7000"
	j, h, err := javaOpen(cfg, bootstrap, "open-admin", p)
	if err != nil {
		return nil, err
	}
	return &javaMetaAdmin{javaHandle{j: j, h: h}}, nil
}

func (a *javaMetaAdmin) do(ctx context.Context, f map[string]any) error {
	f["handle"], f["timeout_ms"] = a.h, javaMetaTimeoutMS
	_, err := a.j.call(ctx, "admin", f)
	return javaMetaErr(err)
}

// javaClientSide are the Kafka error names the Java client gives
// exceptions it raised itself, with no broker's answer.
var javaClientSide = map[string]bool{"NETWORK_EXCEPTION": true, "REQUEST_TIMED_OUT": true}

// javaMetaErr shapes err for admin.MetaOutcome (see javaMetaAdmin).
func javaMetaErr(err error) error {
	je, ok := asJavaError(err)
	if !ok || je.Timeout || javaClientSide[je.Kafka] {
		return err
	}
	code, ok := javaCode(je)
	if !ok {
		return err
	}
	return fmt.Errorf("%w: %w", kerr.ErrorForCode(code), je)
}

func (a *javaMetaAdmin) CreateTopicOnce(ctx context.Context, topic string, n int32, rf int16) error {
	return a.do(ctx, map[string]any{"action": "create-topic", "topic": topic, "partitions": n, "replication_factor": rf})
}

func (a *javaMetaAdmin) DeleteTopicOnce(ctx context.Context, topic string) error {
	return a.do(ctx, map[string]any{"action": "delete-topic", "topic": topic})
}

func (a *javaMetaAdmin) CreatePartitionsOnce(ctx context.Context, topic string, total int32) error {
	return a.do(ctx, map[string]any{"action": "create-partitions", "topic": topic, "partitions": total})
}

func (a *javaMetaAdmin) SetTopicConfigOnce(ctx context.Context, topic, key, value string) error {
	return a.do(ctx, map[string]any{"action": "set-config", "topic": topic, "key": key, "value": value})
}
