package workloads

import "github.com/kchaos/kchaos/cluster/admin"

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
