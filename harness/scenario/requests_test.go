package scenario

import "testing"

// TestRequestFaultValidation: a request fault that names an API, an
// error, a client role or a selector the scenario cannot match is bad
// input at load (exit 254), naming the field, before any cluster starts;
// the same faults aimed at what the workload has load.
func TestRequestFaultValidation(t *testing.T) {
	step := func(fields string) string {
		return "name: rq\nnemesis:\n  steps:\n    - {" + fields + "}\n"
	}
	txn := []string{"workload.transactions.enabled=true"}
	for _, tc := range []struct {
		name, yaml string
		sets       []string
		want       string // "" loads
	}{
		{"drop-response on Produce", step("fault: drop-response, api: [Produce], clients: producer, first: 1"), nil, ""},
		{"Kafka's spelling", step("fault: drop-response, api: [END_TXN], clients: txn-producer"), txn, ""},
		{"unknown API", step("fault: drop-response, api: [Produse]"), nil, `nemesis.steps[0].api[0]: "Produse": not a Kafka API name`},
		{"no API", step("fault: drop-request"), nil, "nemesis.steps[0].api: drop-request needs api"},
		{"unknown error", step("fault: rewrite-error, api: [Produce], error: NOT_A_LEADER"), nil, `nemesis.steps[0].error: "NOT_A_LEADER": rewrite-error needs error`},
		{"error on the wrong kind", step("fault: delay, api: [Produce], delay: 1s, error: REQUEST_TIMED_OUT"), nil, "nemesis.steps[0].error: only for error-response and rewrite-error"},
		{"error-response it cannot answer", step("fault: error-response, api: [DescribeConfigs], error: REQUEST_TIMED_OUT"), nil, "nemesis.steps[0].api[0]: DescribeConfigs: error-response cannot answer it"},
		{"unknown role", step("fault: drop-response, api: [Produce], clients: producers"), nil, `nemesis.steps[0].clients: "producers": the workload's client roles are producer (or all, or replica: the brokers' own requests)`},
		{"role the workload lacks", step("fault: drop-response, api: [EndTxn], clients: txn-producer"), nil, `nemesis.steps[0].clients: "txn-producer": the workload's client roles are`},
		{"client index without a role", step("fault: drop-response, api: [Produce], client: 2"), nil, "nemesis.steps[0].client: 2: a client index within a role"},
		{"negative first", step("fault: drop-response, api: [Produce], first: -1"), nil, "nemesis.steps[0].first: -1"},
		{"probability above 1", step("fault: drop-response, api: [Produce], probability: 1.5"), nil, "nemesis.steps[0].probability: 1.5"},
		{"delay without its length", step("fault: delay, api: [Fetch]"), nil, "nemesis.steps[0].delay: delay needs delay"},
		{"broker that does not exist", step("fault: drop-response, api: [Produce], target: {role: nodes, nodes: [7]}"), nil, "nemesis.steps[0].target.nodes: node 7 does not exist"},
		{"txn coordinator without transactions", step("fault: drop-response, api: [Produce], target: {role: txn-coordinator}"), nil, "nemesis.steps[0].target.role: txn-coordinator needs workload.transactions.enabled"},
		{"the brokers' own requests", step("fault: drop-response, api: [Fetch], clients: replica, client: 1, target: {role: leader}"), nil, ""},
		{"a follower that is not a broker", step("fault: drop-response, api: [Fetch], clients: replica, client: 5"), nil,
			"nemesis.steps[0].client: 5: with clients: replica, the sending broker's id (brokers 0..2)"},
		{"the brokers' own requests beside a partition", "name: rq\nnemesis:\n  steps:\n    - {fault: drop-response, api: [Fetch], clients: replica}\n    - {fault: partition, shape: leader-followers, target: {partition: 0}}\n", nil,
			"nemesis.steps[0].clients: replica routes the brokers' replication through the request proxy, so nemesis.steps[1] (partition)"},
		{"a broker's requests to the controller", step("fault: drop-request, api: [BrokerHeartbeat], clients: replica, client: 2, target: {role: controller}"), nil, ""},
		{"a dynamic quorum's controller", "name: rq\ncluster:\n  controllers: 3\n  quorum: {dynamic: true}\nnemesis:\n  steps:\n    - {fault: drop-request, api: [BrokerHeartbeat], clients: replica, target: {role: controller}}\n", nil,
			"nemesis.steps[0].target: a dynamic quorum's brokers reach the controllers at the endpoints the quorum advertises"},
		{"drawn in a random mix", "name: rq\nnemesis:\n  random:\n    seed: 1\n    duration: 30s\n    interval: 5s\n    faults: [drop-response, delay]\n", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) { wantLoad(t, tc.yaml, tc.sets, tc.want) })
	}
}
