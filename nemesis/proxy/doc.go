// Package proxy is a Kafka-protocol proxy that can fault one request: it
// stands between Kafka clients and the brokers, forwards every request
// and response, and lets rules drop, delay, repeat, reset or fail the
// API calls they select (issue 38). The harness puts it on the clients'
// path when a scenario has a request fault; the fault kinds are built on
// its API.
//
// # Forwarding
//
// Start opens one listener (on ListenHost, port 0) per bootstrap
// address; Bootstrap gives their addresses for the clients. Every client
// connection gets its own upstream connection to the listener's broker.
// A frame is a 4-byte size and a body; a request's header (API key,
// version, correlation id, client id) is read, nothing else, and a
// request no rule acts on is forwarded as it came, byte for byte, APIs
// and versions kmsg does not know included. A frame above MaxFrameBytes
// (100 MiB, Kafka's socket.request.max.bytes default) closes the
// connection before anything is allocated for it.
//
// # Addresses
//
// Responses that name brokers (Metadata, FindCoordinator, DescribeCluster,
// Produce v10+ and Fetch v16+ node endpoints, ShareFetch,
// ShareAcknowledge; and for controllers DescribeQuorum, Vote,
// Begin/EndQuorumEpoch, FetchSnapshot, UpdateRaftVoter) are decoded with
// kmsg, each address replaced by the proxy's listener for that (node id,
// host:port), and re-encoded at the same version (kmsg keeps unknown
// tags; the response header's tags are kept too). A listener is opened
// the first time a (node, address) is named, so brokers added later are
// covered. A bootstrap listener starts with node id -1 and takes the id
// Metadata gives its address. The ApiVersions answer is rewritten too:
// every API's max version is capped to what kmsg can decode, so that no
// client speaks a version whose answer the proxy could not rewrite or
// fault. Response headers are v1 for flexible versions except
// ApiVersions (always v0); each connection keeps its requests in order to
// know the API and version of every response.
//
// # Rules and the stall model
//
// A Rule selects requests (API keys, client ids exact or by prefix, the
// broker's node id, a Filter on the decoded request, the first N, a seeded
// probability) and acts on them; rules are tried in the order added and
// the first that selects a request and fires acts alone. Kafka clients
// read answers in request order on a connection (franz-go and the Java
// client drop a connection on a correlation id mismatch), so the proxy
// delivers answers in request order: an answer the proxy makes
// (error-response) or holds (delay) keeps its place, and the answers
// after it wait. A lost answer on a real TCP link stalls the connection
// until the client's request timeout, and so does a drop here: after a
// drop-request or drop-response the client gets nothing more on that
// connection until it closes it. What still reaches the broker differs,
// as on a real link:
//
//   - drop-request: nothing after it is forwarded (the path to the broker
//     is what failed);
//   - drop-response: later requests are still forwarded and applied, and
//     their answers discarded (only the return path failed).
//
// A stalled connection is no longer looked at by rules: what it carries
// does not count as matched. Produce with acks=0 gets no answer from
// Kafka: response-side actions (drop-response, rewrite-error, a delayed
// response) and error-response do not select it.
//
// duplicate-request sends the request again, Rule.Delay after the
// original, on the same upstream connection under a correlation id the
// proxy owns (negative: -1, -2, ...); the duplicate's answer never
// reaches the client, its error codes go into the action's event.
// reset-after-request forwards the request and closes both connections
// at once; answers still owed are lost with them.
//
// # Counts and events
//
// Counts gives per rule how many requests it matched and acted on; a
// response-side action counts when the response comes, and one whose
// connection closed first gives its claim back, so First counts actions
// taken. Options.OnAction gets one Action per action: rule, kind, API and
// version, the client's correlation id, client id, broker, time, and the
// error codes the evidence needs (the dropped answer's, the duplicate's,
// the code given).
//
// Close stops every listener and connection and returns once all the
// proxy's goroutines have.
package proxy
