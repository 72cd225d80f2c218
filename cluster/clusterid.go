package cluster

import (
	"encoding/base64"
	"fmt"
	"hash/fnv"
)

// ClusterID derives the run's KRaft cluster id from its run id, so that a
// run is reproducible. A cluster id is a Kafka Uuid: 16 bytes, written as 22
// characters of unpadded URL-safe base64. One such string in 64 begins with
// '-', which kafka-storage's argument parser takes for an option; Kafka's own
// Uuid.randomUuid() draws again in that case, and so does ClusterID (it
// hashes the run id with a counter until the id is acceptable). It also
// skips the two ids Kafka reserves (Uuid.ZERO_UUID and
// Uuid.METADATA_TOPIC_ID).
func ClusterID(runID string) string {
	for i := 0; ; i++ {
		if id := drawClusterID(runID, i); validClusterID(id) == nil {
			return id
		}
	}
}

// drawClusterID is the i-th candidate: a 128-bit FNV-1a hash of the run id
// (and, after the first, of a counter).
func drawClusterID(runID string, i int) string {
	h := fnv.New128a()
	h.Write([]byte(runID))
	if i > 0 {
		fmt.Fprintf(h, "\x00%d", i)
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}

// reservedIDs are the Uuids Kafka never hands out (Uuid.java).
var reservedIDs = map[string]bool{
	"AAAAAAAAAAAAAAAAAAAAAA": true, // ZERO_UUID
	"AAAAAAAAAAAAAAAAAAAAAQ": true, // METADATA_TOPIC_ID
}

// validClusterID says why id is not a cluster id kafka-storage accepts on
// every parser path, or nil: 22 characters of the URL-safe base64
// alphabet, decoding to 16 bytes, not beginning with '-', not reserved.
func validClusterID(id string) error {
	if len(id) != 22 {
		return fmt.Errorf("cluster id %q: %d characters, want 22", id, len(id))
	}
	if id[0] == '-' {
		return fmt.Errorf("cluster id %q begins with '-': kafka-storage would read it as an option", id)
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(id)
	if err != nil || len(b) != 16 {
		return fmt.Errorf("cluster id %q: not 16 bytes of URL-safe base64", id)
	}
	if reservedIDs[id] {
		return fmt.Errorf("cluster id %q is reserved by Kafka", id)
	}
	return nil
}
