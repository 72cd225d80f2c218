package workloads

import (
	"slices"
	"strconv"

	"github.com/kchaos/kchaos/histories"
)

// Client roles: what each of the workload's clients is. Request faults
// (nemesis's request kinds, through the proxy) select clients by these
// names, and the proxy sees a client only by its client id, so the ids
// are written here once and every driver uses them.
const (
	RoleProducer    = "producer"     // a plain producer (kchaos-producer-N)
	RoleTxnProducer = "txn-producer" // a transactional producer and its read_committed polls
	RoleConsumer    = "consumer"     // a direct (assigned) consumer
	RoleGroupMember = "group-member" // a consumer-group member
	RoleShareMember = "share-member" // a share-group member (KIP-932)
	RoleAdmin       = "admin"        // the metadata workload's admin clients
)

// MetadataAdminClientID is the metadata workload's admin clients' id.
const MetadataAdminClientID = "kchaos-metadata-admin"

// The client id prefixes of the numbered clients.
const (
	producerIDPrefix    = "kchaos-producer-"
	txnProducerIDPrefix = "kchaos-txn-producer-"
	consumerIDPrefix    = "kchaos-consumer-"
)

// ProducerClientID is plain producer i's client id.
func ProducerClientID(i int) string { return producerIDPrefix + strconv.Itoa(i) }

// TxnProducerClientID is transactional producer i's client id.
func TxnProducerClientID(i int) string { return txnProducerIDPrefix + strconv.Itoa(i) }

// ConsumerClientID is direct consumer i's client id.
func ConsumerClientID(i int) string { return consumerIDPrefix + strconv.Itoa(i) }

// GroupMemberClientID is consumer-group member name's client id.
func GroupMemberClientID(group, name string) string { return "kchaos-" + group + "-" + name }

// ShareMemberClientID is share-group member name's client id: the
// history's convention (histories.ShareMemberClientID), by which the
// checker ties a request action to the member it acted on.
func ShareMemberClientID(group, name string) string {
	return histories.ShareMemberClientID(group, name)
}

// ClientIDPrefixes is, for each role cfg's workload has clients in, the
// prefix every client id of that role starts with: what a request fault
// aimed at a role selects.
func ClientIDPrefixes(cfg Config) map[string]string {
	out := map[string]string{}
	if cfg.Producers > 0 && !cfg.Transactions.Enabled {
		out[RoleProducer] = producerIDPrefix
	}
	if cfg.Producers > 0 && cfg.Transactions.Enabled {
		out[RoleTxnProducer] = txnProducerIDPrefix
	}
	if cfg.Consumers > 0 {
		out[RoleConsumer] = consumerIDPrefix
	}
	if cfg.Group.Enabled() {
		out[RoleGroupMember] = GroupMemberClientID(cfg.Group.ID, "member-")
	}
	if cfg.Shares.Enabled() {
		out[RoleShareMember] = ShareMemberClientID(cfg.Shares.Group, "share-")
	}
	if cfg.Metadata.Enabled() {
		out[RoleAdmin] = MetadataAdminClientID
	}
	return out
}

// clientRoles are every role a workload's client may have, sorted.
func clientRoles() []string {
	return slices.Sorted(slices.Values([]string{RoleProducer, RoleTxnProducer, RoleConsumer, RoleGroupMember, RoleShareMember, RoleAdmin}))
}
