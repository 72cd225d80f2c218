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
// restart (package groupcheck's cause).

// continueProcess moves process from's group state to process to.
func (c *checker) continueProcess(from, to int32) {
	moveProcess(c.seqs, from, to)
	moveProcess(c.resume, from, to)
	moveProcess(c.deliv, from, to)
	if g, ok := c.lastGen[from]; ok {
		c.lastGen[to] = g
	}
	delete(c.GoneAt, from) // the client did not go
	if c.ContTo == nil {
		c.ContTo = map[int32]int32{}
	}
	c.ContTo[from] = to
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
func (c *checker) checkContinues(what string, from, to int32, m *member) error {
	fm := c.Members[from]
	if from < 0 || fm == nil || !fm.OK || fm.Group != m.Group || fm.Name != m.Name {
		return fmt.Errorf("%s: field \"continues\": process %d is not member %q of group %q (no ok subscribe)",
			what, from, m.Name, c.GroupNames.List[m.Group])
	}
	if c.HeldBy(to) == from {
		return fmt.Errorf("%s: field \"continues\": process %d would continue itself", what, from)
	}
	if _, done := c.ContTo[from]; done {
		return fmt.Errorf("%s: field \"continues\": process %d was already continued by process %d", what, from, c.ContTo[from])
	}
	return nil
}
