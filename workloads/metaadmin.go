package workloads

import "github.com/kchaos/kchaos/cluster/admin"

// NewMetaAdmin is the metadata workload's admin client for cfg's driver,
// and what closes it: the Java Admin client for driver java
// (JavaMetaAdmin), kchaos's unretried franz-go admin client (admin.NewOnce)
// for the Go drivers, so that a java run's metadata changes are the Java
// client's requests. Its requests are never retried: each change's outcome
// is its one request's answer.
func NewMetaAdmin(cfg Config, bootstrap []string) (MetaAdmin, func(), error) {
	if cfg.Driver == DriverJava {
		ja, err := NewJavaMetaAdmin(cfg, bootstrap)
		if err != nil {
			return nil, nil, err
		}
		return ja, ja.Close, nil
	}
	a, err := admin.NewOnce(bootstrap, MetadataAdminClientID)
	if err != nil {
		return nil, nil, err
	}
	return a, a.Close, nil
}
