package scenario

import (
	"slices"
	"strings"
	"testing"
)

// TestFresh: every name a run leaves state under on the cluster (topic,
// transactional ids, consumer group, share group) carries the suffix, the
// original is untouched, and the copy still validates.
func TestFresh(t *testing.T) {
	for _, name := range []string{"s2", "t1", "g1", "w1"} {
		t.Run(name, func(t *testing.T) {
			s, err := Load(name, nil)
			if err != nil {
				t.Fatal(err)
			}
			topic, group, share, txn := s.Topic.Name, s.Workload.Group.ID, s.Workload.Shares.Group, s.Workload.TransactionalIDs()
			f := s.Fresh("-r2")
			if f.Topic.Name != topic+"-r2" || f.Workload.Topic != f.Topic.Name {
				t.Errorf("topic %q (workload %q), want %q", f.Topic.Name, f.Workload.Topic, topic+"-r2")
			}
			if group != "" && f.Workload.Group.ID != group+"-r2" || group == "" && f.Workload.Group.ID != "" {
				t.Errorf("group %q from %q", f.Workload.Group.ID, group)
			}
			if share != "" && f.Workload.Shares.Group != share+"-r2" || share == "" && f.Workload.Shares.Group != "" {
				t.Errorf("share group %q from %q", f.Workload.Shares.Group, share)
			}
			for i, id := range f.Workload.TransactionalIDs() {
				if slices.Contains(txn, id) || !strings.Contains(id, "-r2") {
					t.Errorf("transactional id %d: %q (before %q)", i, id, txn)
				}
			}
			if s.Topic.Name != topic || s.Workload.Group.ID != group || s.Workload.Shares.Group != share {
				t.Errorf("the original changed: %q %q %q", s.Topic.Name, s.Workload.Group.ID, s.Workload.Shares.Group)
			}
			if err := f.Validate(); err != nil {
				t.Errorf("the fresh copy does not validate: %v", err)
			}
		})
	}
}
