package cluster

import "context"

// CapBootstrap: the backend starts the nodes itself and can run a
// schedule while they start (Config.DuringStart): from the moment every
// node's process is launched, before the controller quorum has a leader
// or any broker has registered. Faults during bootstrap (a scenario's
// nemesis.bootstrap: a leadership change during the controllers' first
// activation, KAFKA-20839) need it. Docker has it; an SSH backend runs
// against a Kafka already up, so it cannot.
var CapBootstrap = RegisterCapability("bootstrap")

// DuringStart is what a backend with CapBootstrap runs while it starts a
// cluster (Config.DuringStart): it gets the nodes as they start (their
// processes launched, nothing ready) and returns when its schedule,
// with the heals that end it, is done. The backend then waits for the
// cluster to be ready as it always does, so a node the schedule left down
// fails the start as any node that does not come up.
type DuringStart func(ctx context.Context, c Cluster)
