// Package kinds links every workload kind that the seam runs inside
// Workload.Run (workloads.Kind): a program that runs workloads imports
// it, for its side effect alone, so that every kind is registered with
// the seam (RegisterKind) before the first workload is made, as
// workloads/drivers links the drivers. Each kind package (importing the
// seam, never imported by it) is a line here. The metadata workload,
// which the harness runs beside the workload, is no such kind.
package kinds

import (
	// The consumer group (workload.group): workloads/groups.
	_ "github.com/kchaos/kchaos/workloads/groups"
	// The share group (workload.shares): workloads/shares.
	_ "github.com/kchaos/kchaos/workloads/shares"
	// The transactional producers (workload.transactions): workloads/txn.
	_ "github.com/kchaos/kchaos/workloads/txn"
)
