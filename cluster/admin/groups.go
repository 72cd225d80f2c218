package admin

// ConsumerOffsetsTopic is Kafka's internal topic of consumer-group state:
// the leader of the partition that owns a group id is that group's
// coordinator, and the committed offsets live in its log.
const ConsumerOffsetsTopic = "__consumer_offsets"

// GroupPartition is the partition of ConsumerOffsetsTopic that owns a
// group id, as Kafka computes it (GroupMetadataManager.partitionFor, and
// the new coordinator's topicPartitionFor): Utils.abs(groupId.hashCode) %
// partitionCount, the same mapping as TxnStatePartition's.
func GroupPartition(groupID string, partitionCount int) int32 {
	return TxnStatePartition(groupID, partitionCount)
}
