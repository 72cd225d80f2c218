package checker

import "fmt"

// A subscribe with "continues": P is a new history process for the same
// client as process P, whose op ended info (docs/HISTORY.md, "Consumer
// groups"): the operation model retires a process after an info, but the
// client, its membership and its assignment go on. What the checker
// follows per member process moves to the new process with it: its poll
// order per partition (a poll that goes back or skips within the
// generation is nonmonotonic-poll or poll-skip, as in one process), a
// partition assigned to P that P had not yet delivered from is still
// waiting for its first delivery (where the group resumed it), P's polls
// bound its auto commits (groupauto.go), and the partitions P held are
// held on, not given up, so that unassigned_s does not count the retire
// as a gap. A redelivery across the two is the same client's, never a
// restart (groupcheck.go's cause).

// continueProcess moves process from's group state to process to.
func (c *Checker) continueProcess(from, to int32) {
	moveProcess(c.seqs, from, to)
	moveProcess(c.resume, from, to)
	moveProcess(c.deliv, from, to)
	if g, ok := c.lastGen[from]; ok {
		c.lastGen[to] = g
	}
	delete(c.goneAt, from) // the client did not go
	if c.contTo == nil {
		c.contTo = map[int32]int32{}
	}
	c.contTo[from] = to
}

// moveProcess re-keys process from's entries of m to process to.
func moveProcess[V any](m map[procTP]V, from, to int32) {
	for k, v := range m {
		if k.proc == from {
			delete(m, k)
			m[procTP{to, k.tp}] = v
		}
	}
}

// checkContinues rejects a "continues" naming no earlier ok member of the
// same group under the same member name.
func (c *Checker) checkContinues(what string, from, to int32, m *member) error {
	fm := c.members[from]
	if from < 0 || fm == nil || !fm.ok || fm.group != m.group || fm.name != m.name {
		return fmt.Errorf("%s: field \"continues\": process %d is not member %q of group %q (no ok subscribe)",
			what, from, m.name, c.groupNames.list[m.group])
	}
	if c.heldBy(to) == from {
		return fmt.Errorf("%s: field \"continues\": process %d would continue itself", what, from)
	}
	if _, done := c.contTo[from]; done {
		return fmt.Errorf("%s: field \"continues\": process %d was already continued by process %d", what, from, c.contTo[from])
	}
	return nil
}

// heldBy is the process that holds what process p held: p, or the last
// process that continues its client.
func (c *Checker) heldBy(p int32) int32 {
	for {
		q, ok := c.contTo[p]
		if !ok {
			return p
		}
		p = q
	}
}
