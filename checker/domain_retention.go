package checker

import "github.com/kchaos/kchaos/checker/retention"

// retentionDomain is log-start-jump, package retention: the log start
// passed acked records that the topic's retention should still keep
// (judged by the topic's configs, Options.TopicConfigs).
var retentionDomain = port(retention.Analyzer,
	func(x *Anomalies) *retention.RetentionAnomalies { return &x.RetentionAnomalies }, glue[*retention.Found]{})

// LogStartJump is the anomaly's name (package retention owns it).
const LogStartJump = retention.LogStartJump
