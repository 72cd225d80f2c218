// Package layers holds the test that keeps kchaos's imports pointing down.
// It reads every package's imports with `go list -json ./...` (with the
// `integration` build tag, so integration tests count too) and fails
// when a package imports one above it or beside it:
//
//	cmd → harness (run, matrix, store, scenario) → nemesis, workloads
//	    → cluster (the interface) → cluster/admin
//	harness → nemesis/kinds → nemesis/<room> (disk, requests, ...) → nemesis
//	    (the seam: schedules, targets, runner, Env; with nemesis/proxy)
//	nemesis/nemesistest (the integration tests' cluster harness, and the
//	    rooms' unit tests' Env on the fakes) → nemesis, cluster/docker,
//	    and nemesis/nemesisfake (the unit tests' in-memory cluster and
//	    admin client) → cluster, cluster/admin; imported by the tests of
//	    nemesis, its rooms and harness only
//	cluster/<backend> (docker, ...) → cluster, cluster/admin
//	checker → histories;  report → checker, histories, brokerlogs
//	histories, brokerlogs (the nodes' logs, read), image (the Kafka
//	image build) → nothing of kchaos
//	internal/* may be imported by anyone
//
// Only harness and cmd may name a cluster backend, so that faults and
// workloads run unchanged on any backend. checker and report are pure
// functions of a history: no cluster, no Docker, no Kafka client, not
// even through another package. A package this table does not place is
// an error too: a new package must take its place in the layering (and a
// row in the layout table of docs/architecture.md).
package layers
