package proxy

import (
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// normalizeName folds the spellings of one Kafka name together: kmsg's
// Go spelling (InitProducerID), Kafka's message names (InitProducerId)
// and its enum style (INIT_PRODUCER_ID) all become "initproducerid", so a
// scenario may write whichever its author copied from.
func normalizeName(s string) string {
	return strings.ToLower(strings.ReplaceAll(strings.TrimSpace(s), "_", ""))
}

var (
	apiKeysByName   = map[string]int16{}
	errorCodeByName = map[string]int16{}
)

func init() {
	for k := int16(0); k <= kmsg.MaxKey; k++ {
		if n := kmsg.NameForKey(k); n != "Unknown" {
			apiKeysByName[normalizeName(n)] = k
		}
	}
	// kerr keeps its table unexported; TypedErrorForCode answers
	// UNKNOWN_SERVER_ERROR for a code it does not know, so a code is
	// known when the error it gives back carries that code.
	for c := int16(-1); c < 1000; c++ {
		if e := kerr.TypedErrorForCode(c); e != nil && e.Code == c {
			errorCodeByName[normalizeName(e.Message)] = c
		}
	}
	for c, name := range kafkaNames {
		errorCodeByName[normalizeName(name)] = c
	}
	errorCodeByName["none"] = 0
}

// kafkaNames are the codes whose name in Kafka today differs from kerr's
// (which keeps the name the code had when franz-go added it); both names
// are accepted, ErrorName gives Kafka's.
var kafkaNames = map[int16]string{
	6: "NOT_LEADER_OR_FOLLOWER", // kerr: NOT_LEADER_FOR_PARTITION, the name before Kafka renamed it
}

// APIKeyByName is the API key of a Kafka API named as Kafka or kmsg
// spells it (EndTxn, END_TXN, InitProducerId, InitProducerID), case
// insensitive; false for a name kmsg does not know.
func APIKeyByName(name string) (int16, bool) {
	k, ok := apiKeysByName[normalizeName(name)]
	return k, ok
}

// apiName is the name of an API key as kmsg spells it ("EndTxn"), or
// "Unknown(<key>)" for a key kmsg does not know.
func apiName(key int16) string {
	if n := kmsg.NameForKey(key); n != "Unknown" {
		return n
	}
	return "Unknown(" + strconv.Itoa(int(key)) + ")"
}

// ErrorCodeByName is the code of a Kafka error named as Kafka spells it
// (NOT_LEADER_OR_FOLLOWER, REQUEST_TIMED_OUT; case and underscores do not
// matter; NONE is 0), from franz-go's kerr table.
func ErrorCodeByName(name string) (int16, bool) {
	c, ok := errorCodeByName[normalizeName(name)]
	return c, ok
}

// ErrorName is Kafka's name of an error code (NONE for 0), or
// "UNKNOWN(<code>)" for a code kerr does not know.
func ErrorName(code int16) string {
	if code == 0 {
		return "NONE"
	}
	if n, ok := kafkaNames[code]; ok {
		return n
	}
	if e := kerr.TypedErrorForCode(code); e != nil && e.Code == code {
		return e.Message
	}
	return "UNKNOWN(" + strconv.Itoa(int(code)) + ")"
}
