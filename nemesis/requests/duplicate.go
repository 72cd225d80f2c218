package requests

import "github.com/kchaos/kchaos/nemesis/proxy"

// duplicateRequestKind sends the request again, delay after the original,
// on the same connection: a replayed Produce or EndTxn that the broker
// must refuse or apply once (idempotence, fencing); the duplicate's answer
// goes only into the history (kind.go).
var duplicateRequestKind = requestKind(proxy.DuplicateRequest, "#6c3483", 11)
