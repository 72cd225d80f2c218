package requests

import "github.com/kchaos/kchaos/nemesis/proxy"

// dropResponseKind: the broker applies the request and the client never
// hears: an EndTxn committed that the producer may report failed (KIP-890
// part 2), a Produce appended that the producer sends again, an
// OffsetCommit stored that the member thinks lost (kind.go).
var dropResponseKind = requestKind(proxy.DropResponse, "#a93226", 9)
