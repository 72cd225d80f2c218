package requests

import "github.com/kchaos/kchaos/nemesis/proxy"

// dropRequestKind: the request never reaches the broker, and the client
// hears nothing more on that connection until it gives up on it (its
// request timeout), as on a link that lost the request (kind.go).
var dropRequestKind = requestKind(proxy.DropRequest, "#7b2d26", 8)
