package requests

import "github.com/kchaos/kchaos/nemesis/proxy"

// rewriteErrorKind forwards the request and replaces the errors of the
// broker's answer with the chosen one: the broker applied it, the client
// is told it failed (kind.go).
var rewriteErrorKind = requestKind(proxy.RewriteError, "#239b56", 14)
