// Package clients is the room of the faults on kchaos's own clients and
// on what they lean on in the cluster: the consumer-group members'
// faults (groupfault.go: member-kill, member-leave, member-start and
// member-stall, with their heal, member), the producers' (producer-crash,
// stop-producers), and the operator's moves on the coordinators and
// transactions the clients use (move-coordinator, which places a
// transaction or group coordinator; abort-hanging, which aborts the
// transactions that hold readers back). None of them touches a node's
// process, disk or links: they act through the workload's own clients
// (Env.Members, Env.Clients) or through the admin API.
//
// The room imports the seam (package nemesis) and registers its kinds
// there at init; nemesis never imports it. A program that runs schedules
// links it through nemesis/kinds. What the harness hands these kinds, the
// workload's members and producers, it hands through the seam's Env
// (nemesis.Members, nemesis.Clients), so that the harness names no room;
// the target roles group-coordinator, group-coordinator-followers and
// share-coordinator stay the seam's, as any node fault may aim at them.
package clients

import "github.com/kchaos/kchaos/nemesis"

// kinds are the room's fault kinds, in the order they are registered
// (nemesis.Register): errors and histories list them
// in this order, so a kind added later goes last. None is drawn by a
// random schedule (nemesis.NotDrawn), as in the seam before.
var kinds = []nemesis.Kind{
	moveCoordinatorKind,
	memberKillKind,
	memberLeaveKind,
	memberStartKind,
	memberStallKind,
	producerCrashKind,
	stopProducersKind,
	abortHangingKind,
}

func init() {
	for _, k := range kinds {
		nemesis.Register(k)
	}
}
