package requests

import "github.com/kchaos/kchaos/nemesis/proxy"

// resetAfterRequestKind forwards the request and closes the client's
// connection at once: the client cannot know whether the broker applied it
// (kind.go).
var resetAfterRequestKind = requestKind(proxy.ResetAfterRequest, "#1f618d", 12)
