// Package cluster is what a Kafka cluster under test is to the rest of
// kchaos, whatever runs it: the Cluster interface (nodes and addresses;
// start, stop, kill, signal, pause and resume a node; its state; a command
// inside it; the files of its log dir; its log; an admin client;
// teardown), and the types every backend shares: Node, Role, NodeState,
// Config with Racks and Version, the server.properties that Render writes,
// ClusterID, NodeStartError, and the readiness waits built on the
// interface alone (WaitBrokers, WaitStarted).
//
// Backends live in subpackages: cluster/docker runs each node in a
// container (testcontainers-go, labels, clean by label); an SSH backend
// (Kafka on hosts) is next. The split is drawn where a second backend
// would otherwise have to copy code or import Docker: anything that names
// a container, an image, a Docker network or a label is the Docker
// backend's; anything that is true of a KRaft cluster wherever it runs
// (ids, roles, racks, listeners, the rendered config, the cluster id, how
// readiness is decided) is here. Config keeps a few fields that only the
// Docker backend reads (Image, Subnet, DataRoot, KeepData) so that a
// scenario still describes a cluster in one value; another backend ignores
// them.
//
// Faults (package nemesis) hold a cluster as Nodes, the node-level part of
// Cluster, and never import a backend, so a new backend plugs in without
// changing them. The power-loss fault cuts a dead broker's log through
// LogFiles, paths relative to the node's log dir: the Docker backend reads
// its host bind mount, an SSH backend would work on the host over SSH.
// Network partitions run iptables through Exec, which any backend with a
// shell on the node provides.
//
// cluster imports only cluster/admin (the admin client is part of the
// interface) and the standard library.
package cluster
