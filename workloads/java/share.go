package java

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"sync"
	"time"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/workloads"
)

var _ workloads.ShareDriver = javaDriver{}

// javaShareMember is one share-group member: a KafkaShareConsumer
// (javaclient/ShareHandle.java, kafka-clients 4.1+) in a JVM of its own,
// so that Kill is a crash (SIGKILL: its sockets close with the process
// and nothing is released), as javaMember's.
//
//   - share.acknowledgement.mode: explicit (each record acknowledged with
//     the status drawn, then commitSync) or implicit (commitSync alone
//     accepts what the last poll delivered): workload.shares.ack_mode;
//   - max.poll.records: workload.shares.max_records;
//   - its polls hand out what a ShareFetch acquired, and a ShareFetch that
//     outlives a poll's timeout is kept for the next poll, so it does not
//     acquire in its poll (AcquiresInPoll false);
//   - commitSync's result per partition is the ack's result, as
//     franz-go's ShareAckCallback's; its connections are not read (no
//     wire evidence: the acks' `wire` field stays empty).
type javaShareMember struct {
	j    *jvm
	h    int
	once sync.Once
}

// javaShareUnsupported are consumer properties KafkaShareConsumer
// refuses (ShareConsumerConfig.SHARE_GROUP_UNSUPPORTED_CONFIGS in 4.1.2
// and 4.4.0): a service's --consumer-config sets them for its other
// consumers, so they are left out of a share member's rather than failing
// it.
var javaShareUnsupported = []string{"auto.offset.reset", "enable.auto.commit", "group.instance.id",
	"isolation.level", "partition.assignment.strategy", "interceptor.classes", "session.timeout.ms",
	"heartbeat.interval.ms", "group.protocol", "group.remote.assignor"}

// javaShareProps maps the share config onto KafkaShareConsumer properties,
// then the service's consumer properties it accepts over them.
func javaShareProps(cfg workloads.Config, bootstrap []string, name string) map[string]string {
	p := javaCommon(cfg, bootstrap, workloads.ShareMemberClientID(cfg.Shares.Group, name))
	p["group.id"] = cfg.Shares.Group
	p["share.acknowledgement.mode"] = cfg.Shares.AckModeOrDefault()
	p["max.poll.records"] = strconv.Itoa(cfg.Shares.MaxRecords)
	p["fetch.max.wait.ms"] = ms(workloads.SharePollWait)
	p["request.timeout.ms"] = "10000"
	svc := maps.Clone(cfg.ConsumerProps)
	for _, k := range javaShareUnsupported {
		delete(svc, k)
	}
	return withProps(p, svc)
}

// NewShareMember starts member name's JVM and subscribes its consumer.
func (javaDriver) NewShareMember(cfg workloads.Config, bootstrap []string, name string) (workloads.ShareMember, error) {
	j, h, err := javaOwnJVM(cfg, "open-share", map[string]any{"props": javaShareProps(cfg, bootstrap, name), "topic": cfg.Topic}, nil)
	if err != nil {
		return nil, err
	}
	return &javaShareMember{j: j, h: h}, nil
}

func (m *javaShareMember) AcquiresInPoll() bool { return false }

// Poll waits for the JVM's answer even past the run's end: records it
// was handed are recorded, never dropped between the JVM and the history.
func (m *javaShareMember) Poll(ctx context.Context, _ int) ([]histories.ShareRecord, error) {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), workloads.SharePollWait+30*time.Second)
	defer cancel()
	r, err := m.j.call(wctx, "share-poll", map[string]any{"handle": m.h, "timeout_ms": workloads.SharePollWait.Milliseconds()})
	if err != nil {
		if workloads.ErrorName(err) == workloads.CauseClientClosed {
			return nil, workloads.ErrShareClosed
		}
		return nil, err
	}
	out := make([]histories.ShareRecord, 0, len(r.Records))
	for _, rec := range r.Records {
		out = append(out, histories.ShareRecord{Partition: rec.P, Offset: rec.O, Value: rec.V, DeliveryCount: rec.C})
	}
	return out, nil
}

func (m *javaShareMember) Ack(ctx context.Context, sts []string) (workloads.ShareAckResult, error) {
	out := workloads.ShareAckResult{Results: map[int32][]error{}}
	r, err := m.j.call(ctx, "share-ack", map[string]any{"handle": m.h, "statuses": sts,
		"timeout_ms": timeoutMS(ctx, 30*time.Second, 200*time.Millisecond)})
	if err != nil {
		return out, err
	}
	for ps, e := range r.Results {
		p, perr := strconv.ParseInt(ps, 10, 32)
		if perr != nil {
			return out, fmt.Errorf("java client: share-ack result for partition %q", ps)
		}
		if e == nil {
			out.Results[int32(p)] = append(out.Results[int32(p)], nil)
		} else {
			out.Results[int32(p)] = append(out.Results[int32(p)], e)
		}
	}
	return out, nil
}

// Leave closes the consumer (it releases what it holds), then its JVM.
func (m *javaShareMember) Leave() {
	m.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		_, _ = m.j.call(ctx, "share-leave", map[string]any{"handle": m.h, "timeout_ms": 10000})
		m.j.stop(5 * time.Second)
	})
}

// Kill kills the member's JVM (see javaShareMember).
func (m *javaShareMember) Kill() { m.once.Do(m.j.kill) }

// javaShareRefusals are the share settings a client version cannot
// honour: share consumers from 4.1 (KIP-932), the RENEW acknowledgement
// from 4.2 (KIP-1222).
func javaShareRefusals(cfg workloads.Config, version string) []workloads.FieldError {
	if !cfg.Shares.Enabled() {
		return nil
	}
	v, err := cluster.ParseVersion(version)
	if err != nil {
		return nil // a local build's: taken to be new enough
	}
	var out []workloads.FieldError
	if !v.HasShareGroups() {
		out = append(out, workloads.FieldError{Path: "client_version", Msg: fmt.Sprintf("%s: share groups need a client of 4.1 or later (KafkaShareConsumer, KIP-932); this one has no share consumer", version)})
	} else if cfg.Shares.Renew && v.Less(cluster.Version{Major: 4, Minor: 2}) {
		out = append(out, workloads.FieldError{Path: "shares.renew", Msg: fmt.Sprintf("client %s: AcknowledgeType.RENEW (KIP-1222) needs a client of 4.2 or later", version)})
	}
	return out
}
