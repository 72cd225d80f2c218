package workloads

import (
	"context"
	"strings"

	"github.com/kchaos/kchaos/cluster/admin"
)

// MetaAdmin is what the metadata workload (workloads/metadata) asks of
// the cluster, here in the seam because a driver may give its own
// (MetaAdminDriver): each change is one request, never retried
// (admin.NewOnce), so its outcome is that request's answer. *admin.Client
// implements it.
type MetaAdmin interface {
	CreateTopicOnce(ctx context.Context, topic string, n int32, rf int16) error
	DeleteTopicOnce(ctx context.Context, topic string) error
	CreatePartitionsOnce(ctx context.Context, topic string, total int32) error
	SetTopicConfigOnce(ctx context.Context, topic, key, value string) error
}

var _ MetaAdmin = (*admin.Client)(nil)

// MetaAdminDriver is a Driver with an admin client of its own for the
// metadata workload (the Java Admin client: workloads/java), so that a
// run's metadata changes are its client's requests. Its requests are never
// retried, as NewMetaAdmin says.
type MetaAdminDriver interface {
	Driver
	// NewMetaAdmin is the client, and what closes it.
	NewMetaAdmin(cfg Config, bootstrap []string) (MetaAdmin, func(), error)
}

// NewMetaAdmin is the metadata workload's admin client for cfg's driver,
// and what closes it: the driver's own where it is a MetaAdminDriver (the
// Java Admin client for driver java), kchaos's unretried franz-go admin
// client (admin.NewOnce) for the Go drivers, so that a java run's
// metadata changes are the Java client's requests. Its requests are never
// retried: each change's outcome is its one request's answer.
func NewMetaAdmin(cfg Config, bootstrap []string) (MetaAdmin, func(), error) {
	if d, ok := DriverFor(canonicalDriver(cfg.Driver)); ok {
		if md, ok := d.(MetaAdminDriver); ok {
			return md.NewMetaAdmin(cfg, bootstrap)
		}
	}
	a, err := admin.NewOnce(bootstrap, MetadataAdminClientID)
	if err != nil {
		return nil, nil, err
	}
	return a, a.Close, nil
}

// IsTopicExists reports whether err is a create refused
// TOPIC_ALREADY_EXISTS, as the metadata workload tells it (by the error's
// text, which every driver's admin client names it in). Exported for the
// driver packages' tests (workloads/java), which check that their admin
// client's refusal reads so.
func IsTopicExists(err error) bool {
	return err != nil && strings.Contains(err.Error(), "TOPIC_ALREADY_EXISTS")
}
