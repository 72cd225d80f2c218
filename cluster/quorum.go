package cluster

import (
	"fmt"
	"strconv"
	"strings"
)

// Quorum is the KRaft controller quorum's shape at format time: the one
// owner of the vocabulary of scenario key cluster.quorum. The zero value
// (or nil) is a static quorum, formatted as kchaos always did: every node
// lists the voters in controller.quorum.voters, kraft.version 0, and the
// voter set can never change.
//
// Facts it relies on (Kafka's source and kchaos's images, checked
// 2026-12-02):
//   - KIP-853 (dynamic quorums) is in every release from 3.9.0:
//     kafka-storage format takes --standalone, --initial-controllers
//     id@host:port:directoryId,... and --no-initial-controllers
//     (StorageTool.scala, 3.9); with --initial-controllers or --standalone
//     the Formatter sets kraft.version 1 itself (Formatter.
//     effectiveKRaftFeatureLevel) and writes a bootstrap snapshot
//     (__cluster_metadata-0/00000000000000000000-0000000000.checkpoint)
//     holding the VotersRecord; the voters' directory ids are the ones the
//     list gives, so kchaos chooses them (DirectoryID).
//   - A dynamic quorum's nodes find it through
//     controller.quorum.bootstrap.servers (host:port of controllers) and
//     leave controller.quorum.voters unset (docs/ops.html "Controller
//     membership changes", 3.9). A controller without voters must be
//     formatted with one of the three flags; a broker needs none (checked
//     by formatting on 3.9.2 and 4.4.0).
//   - A controller that joins later is formatted --no-initial-controllers,
//     runs as an observer (it fetches the metadata log), and is added with
//     AddRaftVoter once caught up: the leader answers REQUEST_TIMED_OUT
//     while it lags (raft AddVoterHandler, step 7).
//   - controller.quorum.auto.join.enable (KIP-853's auto-join: an observer
//     controller adds itself as a voter) is in QuorumConfig from 4.2.0: its
//     name is in kafka-raft-4.2.2.jar, 4.3.1 and 4.4.0, not in 3.9.2,
//     4.0.2 or 4.1.2.
type Quorum struct {
	// Dynamic formats the controllers as a dynamic quorum (kraft.version
	// 1) whose initial voters are cluster.controllers.
	Dynamic bool `yaml:"dynamic,omitempty"`
	// AutoJoin sets controller.quorum.auto.join.enable on every controller
	// (4.2+): a controller that is not a voter adds itself, including one
	// that was removed and keeps running (KAFKA-19850).
	AutoJoin bool `yaml:"auto_join,omitempty"`
	// SpareControllers are controller nodes beyond the initial voters,
	// formatted --no-initial-controllers and started with the cluster, so
	// that they run as observers: AddRaftVoter needs a running controller
	// that has caught up with the leader (a stopped one would be refused
	// with REQUEST_TIMED_OUT), and a spare that starts with the cluster is
	// caught up when a step adds it, as an operator's new controller is
	// before add-controller (the docs' procedure).
	SpareControllers int `yaml:"spare_controllers,omitempty"`
}

// maxSpareControllers bounds quorum.spare_controllers: the Docker layout
// gives controllers the addresses .10 to .19 of the run's subnet, and three
// spares are more than any reconfiguration story here needs.
const maxSpareControllers = 3

// autoJoinConfig is Kafka's name of the auto-join setting.
const autoJoinConfig = "controller.quorum.auto.join.enable"

// hasDynamicQuorum reports whether the release can format a dynamic KRaft
// quorum and change its voters (KIP-853: AddRaftVoter, RemoveRaftVoter,
// kraft.version 1): from 3.9.
func (v Version) hasDynamicQuorum() bool { return !v.Less(Version{3, 9, 0}) }

// hasQuorumAutoJoin reports whether the release has
// controller.quorum.auto.join.enable: from 4.2.
func (v Version) hasQuorumAutoJoin() bool { return !v.Less(Version{4, 2, 0}) }

// IsDynamic reports whether q formats a dynamic quorum (nil: static).
func (q *Quorum) IsDynamic() bool { return q != nil && q.Dynamic }

// Spares is how many spare controllers q asks for (nil: none).
func (q *Quorum) Spares() int {
	if q == nil {
		return 0
	}
	return q.SpareControllers
}

// validate reports the first problem with q on release v, naming its key
// under quorum.
func (q *Quorum) validate(v Version) error {
	if q == nil {
		return nil
	}
	if !q.Dynamic {
		switch {
		case q.AutoJoin:
			return fmt.Errorf("quorum.auto_join: needs quorum.dynamic: true (a static quorum's voters never change)")
		case q.SpareControllers != 0:
			return fmt.Errorf("quorum.spare_controllers: needs quorum.dynamic: true (a static quorum cannot add a controller)")
		}
		return nil
	}
	if !v.hasDynamicQuorum() {
		return fmt.Errorf("quorum.dynamic: dynamic KRaft quorums (KIP-853, kraft.version 1) need Kafka 3.9 or later; %s does not have them", v)
	}
	if q.AutoJoin && !v.hasQuorumAutoJoin() {
		return fmt.Errorf("quorum.auto_join: %s needs Kafka 4.2 or later; %s does not have it", autoJoinConfig, v)
	}
	if q.SpareControllers < 0 || q.SpareControllers > maxSpareControllers {
		return fmt.Errorf("quorum.spare_controllers: %d: want 0..%d", q.SpareControllers, maxSpareControllers)
	}
	if q.AutoJoin && q.SpareControllers > 0 {
		return fmt.Errorf("quorum.spare_controllers: with quorum.auto_join a spare controller adds itself as a voter as soon as it starts, so it would be no spare; leave one of them out")
	}
	return nil
}

// DirectoryID is the metadata log directory id kchaos gives an initial
// voter of a dynamic quorum (kafka-storage --initial-controllers names
// each voter's directory): a Kafka Uuid derived from the run id and the
// node id, so that a run is reproducible, drawn as ClusterID draws (never
// beginning with '-', never reserved).
func DirectoryID(runID string, node int32) string {
	return ClusterID(runID + "/metadata-dir/" + strconv.Itoa(int(node)))
}

// QuorumAddrs is how one node's server.properties reaches the quorum:
// a static quorum's voters, or a dynamic quorum's bootstrap servers (and,
// on a controller, the auto-join setting where Kafka has it).
type QuorumAddrs struct {
	// Voters is controller.quorum.voters ("1000@10.0.0.10:9093,...").
	Voters string
	// BootstrapServers is controller.quorum.bootstrap.servers
	// ("10.0.0.10:9093,...").
	BootstrapServers string
	// AutoJoin, when set, is controller.quorum.auto.join.enable (set on
	// controllers only).
	AutoJoin *bool
}

// StaticVoters is the QuorumAddrs of a static quorum.
func StaticVoters(voters string) QuorumAddrs { return QuorumAddrs{Voters: voters} }

// KRaftLayout is the quorum of one cluster: which controllers are its
// initial voters and which are spares, how every node reaches it and how
// each is formatted. Backends build it once (NewKRaftLayout) and ask it
// per node, so that the rules live here, not in each backend.
type KRaftLayout struct {
	quorum  *Quorum
	version Version
	runID   string
	initial []Node // the initial voters, in id order
	spares  map[int32]bool
}

// NewKRaftLayout lays out the quorum of cfg (defaults filled) over its
// controllers (initial voters first, then the spares, each in id order:
// Config.Controllers of them are the initial voters).
func NewKRaftLayout(cfg Config, controllers []Node) KRaftLayout {
	v, _ := ParseVersion(cfg.KafkaVersion)
	l := KRaftLayout{quorum: cfg.Quorum, version: v, runID: cfg.RunID, spares: map[int32]bool{}}
	for i, n := range controllers {
		if i < cfg.Controllers {
			l.initial = append(l.initial, n)
		} else {
			l.spares[n.ID] = true
		}
	}
	return l
}

// Addrs is how node n reaches the quorum.
func (l KRaftLayout) Addrs(n Node) QuorumAddrs {
	if !l.quorum.IsDynamic() {
		if n.Role == RoleBroker {
			return StaticVoters(brokerVoters(l.initial))
		}
		return StaticVoters(Voters(l.initial))
	}
	addrs := make([]string, len(l.initial))
	for i, c := range l.initial {
		addrs[i] = fmt.Sprintf("%s:%d", c.IP, ControllerPort)
	}
	out := QuorumAddrs{BootstrapServers: strings.Join(addrs, ",")}
	if n.Role == RoleController && l.version.hasQuorumAutoJoin() {
		on := l.quorum.AutoJoin
		out.AutoJoin = &on
	}
	return out
}

// FormatArgs are node n's kafka-storage format arguments for the quorum:
// an initial voter of a dynamic quorum gets --initial-controllers (the
// same list on every one of them, as Kafka requires), a spare controller
// --no-initial-controllers, a broker and every node of a static quorum
// nothing.
func (l KRaftLayout) FormatArgs(n Node) []string {
	if !l.quorum.IsDynamic() || n.Role != RoleController {
		return nil
	}
	if l.spares[n.ID] {
		return []string{"--no-initial-controllers"}
	}
	voters := make([]string, len(l.initial))
	for i, c := range l.initial {
		voters[i] = fmt.Sprintf("%d@%s:%d:%s", c.ID, c.IP, ControllerPort, DirectoryID(l.runID, c.ID))
	}
	return []string{"--initial-controllers", strings.Join(voters, ",")}
}

// isSpare reports whether controller id is a spare (not an initial voter).
func (l KRaftLayout) isSpare(id int32) bool { return l.spares[id] }
