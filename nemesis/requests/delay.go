package requests

import "github.com/kchaos/kchaos/nemesis/proxy"

// delayKind holds the request (or, with response: true, its response) for
// delay; later requests on the same connection wait behind it, as TCP
// keeps them in order (kind.go).
var delayKind = requestKind(proxy.Delay, "#b9770e", 10)
