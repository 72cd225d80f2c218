package scenario

// Fresh is a copy of s whose topic (and with it the transactional ids,
// which are made from the topic's name), consumer group and share group
// end in suffix. A run on a cluster an earlier run used (kchaos explore's
// reuse, harness.reuse) runs under names no earlier run touched, so that
// nothing of theirs (records, committed offsets, share-partition state,
// transactions) is in its history or its way. The rest is s's, shared:
// a copy's topic is its own, not its fields' maps.
func (s *Scenario) Fresh(suffix string) *Scenario {
	c := *s
	c.Topic.Name += suffix
	c.Workload.Topic = c.Topic.Name
	if c.Workload.Group.ID != "" {
		c.Workload.Group.ID += suffix
	}
	if c.Workload.Shares.Group != "" {
		c.Workload.Shares.Group += suffix
	}
	return &c
}
