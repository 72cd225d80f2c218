package admin

import "unicode/utf16"

// TransactionStateTopic is Kafka's internal topic of transaction state: the
// leader of the partition that owns a transactional id is that id's
// transaction coordinator.
const TransactionStateTopic = "__transaction_state"

// TxnStatePartition is the partition of TransactionStateTopic that owns a
// transactional id, as Kafka's TransactionStateManager.partitionFor
// computes it: Utils.abs(transactionalId.hashCode) % partitionCount, where
// hashCode is Java's String.hashCode over UTF-16 code units and Utils.abs
// maps Integer.MIN_VALUE to 0.
func TxnStatePartition(transactionalID string, partitionCount int) int32 {
	if partitionCount <= 0 {
		return -1
	}
	return int32(javaAbs(javaStringHash(transactionalID)) % int32(partitionCount))
}

// javaStringHash is java.lang.String.hashCode: s[0]*31^(n-1) + ... + s[n-1]
// with int32 overflow, over UTF-16 code units.
func javaStringHash(s string) int32 {
	var h int32
	for _, u := range utf16.Encode([]rune(s)) {
		h = 31*h + int32(u)
	}
	return h
}

// javaAbs is org.apache.kafka.common.utils.Utils.abs.
func javaAbs(n int32) int32 {
	if n == -1<<31 {
		return 0
	}
	if n < 0 {
		return -n
	}
	return n
}
