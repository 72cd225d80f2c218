package requests

import "github.com/kchaos/kchaos/nemesis/proxy"

// errorResponseKind answers the request in the proxy with the chosen
// error (NOT_LEADER_OR_FOLLOWER, COORDINATOR_LOAD_IN_PROGRESS, ...): the
// broker never sees it, and the client takes the error path it would take
// for a real one (kind.go).
var errorResponseKind = requestKind(proxy.ErrorResponse, "#117864", 13)
