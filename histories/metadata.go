package histories

// Metadata ops: an admin client's changes to what the KRaft quorum holds,
// each an invoke and its completion (ok, fail, info) on a client process
// of its own, and after the final heal a metadata read of each node. The
// checker's metadata domain (checker/metadata) reads them; a checker that
// does not know them counts them as ops outside the contract.
const (
	// FCreateTopic creates MetaOp.Topic with MetaOp.Partitions partitions.
	FCreateTopic = "create-topic"
	// FDeleteTopic deletes MetaOp.Topic.
	FDeleteTopic = "delete-topic"
	// FCreatePartitions raises MetaOp.Topic's partition count to
	// MetaOp.Partitions (CreatePartitions takes the new total).
	FCreatePartitions = "create-partitions"
	// FAlterConfig sets one config of a topic (IncrementalAlterConfigs,
	// SET): MetaOp.Topic, Key, Value. Several clients setting one key is
	// a register, judged like one.
	FAlterConfig = "alter-config"
	// FMetadataRead is one node's view of the metadata after the final
	// heal: invoke {"node":N}, ok MetadataRead.
	FMetadataRead = "metadata-read"
)

// MetadataOps are the metadata changes, for readers that route them.
var MetadataOps = []string{FCreateTopic, FDeleteTopic, FCreatePartitions, FAlterConfig}

// MetaOp is a metadata change's value: the invoke says what was asked;
// the completion repeats it.
type MetaOp struct {
	Topic      string `json:"topic"`
	Partitions int32  `json:"partitions,omitempty"`
	Key        string `json:"key,omitempty"`
	Value      string `json:"value,omitempty"`
}

// MetadataRead is what one node said of the metadata, as an ok
// metadata-read's value. Topics are the topics the run's metadata
// workload made (its prefix) that the node knows, with their partition
// counts and the configs the workload sets; LogEndOffset is the node's
// metadata log end offset as the quorum leader reported it (-1 unknown).
// A controller does not answer Metadata requests: its read carries its
// log end offset and Role only, and Topics is absent (not empty).
type MetadataRead struct {
	Node         int32                `json:"node"`
	Role         string               `json:"role"`
	Topics       map[string]TopicMeta `json:"topics,omitempty"`
	LogEndOffset int64                `json:"log_end_offset"`
	// Attempt counts the reads of this node until the brokers agreed on
	// the same view twice in a row (the convergence wait), from 1.
	Attempt int `json:"attempt,omitempty"`
}

// TopicMeta is one topic as a node knows it.
type TopicMeta struct {
	Partitions int32             `json:"partitions"`
	Configs    map[string]string `json:"configs,omitempty"`
}
