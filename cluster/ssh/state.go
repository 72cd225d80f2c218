package ssh

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// State is what kchaos has changed on the hosts and not yet undone, as
// written to the state file before each change is made (and updated after
// each undo), so that `kchaos clean --hosts FILE` can undo what a crashed
// run left.
type State struct {
	RunID   string               `json:"run_id"`
	Updated time.Time            `json:"updated"`
	Nodes   map[int32]*NodeState `json:"nodes,omitempty"`
}

// NodeState is one node's faults in force.
type NodeState struct {
	Addr string `json:"addr"`
	// Paused: Kafka got SIGSTOP; undone by SIGCONT.
	Paused bool `json:"paused,omitempty"`
	// Down: Kafka was killed or stopped; undone by the start command.
	Down bool `json:"down,omitempty"`
	// Rules: iptables rules tagged kchaos may be installed; undone by
	// deleting every rule with that comment.
	Rules bool `json:"rules,omitempty"`
}

func (n *NodeState) clear() bool { return !n.Paused && !n.Down && !n.Rules }

// Pending lists the nodes with a fault in force, in id order.
func (s *State) Pending() []int32 {
	var out []int32
	for _, id := range slices.Sorted(maps.Keys(s.Nodes)) {
		if !s.Nodes[id].clear() {
			out = append(out, id)
		}
	}
	return out
}

// defaultStateDir is where state files live unless a scenario says.
func defaultStateDir() string {
	if d := os.Getenv("KCHAOS_SSH_STATE_DIR"); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		home = os.TempDir()
	}
	return filepath.Join(home, ".kchaos", "ssh-state")
}

// StatePath is the state file of spec's hosts.
func StatePath(spec *Spec) string {
	dir := spec.StateDir
	if dir == "" {
		dir = defaultStateDir()
	}
	return filepath.Join(dir, spec.key()+".json")
}

// ReadState reads a state file; a missing file is an empty state.
func ReadState(path string) (*State, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &State{Nodes: map[int32]*NodeState{}}, nil
	}
	if err != nil {
		return nil, err
	}
	var s State
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("state file %s: %w", path, err)
	}
	if s.Nodes == nil {
		s.Nodes = map[int32]*NodeState{}
	}
	return &s, nil
}

// stateFile writes the state to its paths (the hosts' state file and a
// copy in the run folder) on every change, synced to disk.
type stateFile struct {
	mu    sync.Mutex
	paths []string
	s     State
}

func (f *stateFile) update(id int32, addr string, change func(*NodeState)) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.s.Nodes == nil {
		f.s.Nodes = map[int32]*NodeState{}
	}
	n := f.s.Nodes[id]
	if n == nil {
		n = &NodeState{Addr: addr}
		f.s.Nodes[id] = n
	}
	before := *n
	change(n)
	if *n == before {
		return nil
	}
	if n.clear() {
		delete(f.s.Nodes, id)
	}
	f.s.Updated = time.Now().UTC()
	return f.writeLocked()
}

func (f *stateFile) writeLocked() error {
	b, err := json.MarshalIndent(&f.s, "", "  ")
	if err != nil {
		return err
	}
	var errs []error
	for _, p := range f.paths {
		errs = append(errs, writeSynced(p, b))
	}
	return errors.Join(errs...)
}

// writeSynced replaces path with b atomically (temp file, fsync, rename).
func writeSynced(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".state-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(append(b, '\n'))
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
