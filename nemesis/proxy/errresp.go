package proxy

import (
	"github.com/twmb/franz-go/pkg/kmsg"
)

// errorResponders build, per API, the answer a broker would give to a
// request that failed with one error code: the request's topics,
// partitions, groups or keys mirrored, each carrying the code, so that a
// client matches the answer to what it asked and acts on the code as it
// would on a broker's. The proxy answers error-response actions with
// them; APIs not here are refused at validation (ErrorResponseSupported).
var errorResponders = map[int16]func(kmsg.Request, int16) kmsg.Response{
	int16(kmsg.Produce):                errProduce,
	int16(kmsg.Fetch):                  errFetch,
	int16(kmsg.ListOffsets):            errListOffsets,
	int16(kmsg.Metadata):               errMetadata,
	int16(kmsg.OffsetCommit):           errOffsetCommit,
	int16(kmsg.OffsetFetch):            errOffsetFetch,
	int16(kmsg.FindCoordinator):        errFindCoordinator,
	int16(kmsg.JoinGroup):              errJoinGroup,
	int16(kmsg.Heartbeat):              errHeartbeat,
	int16(kmsg.LeaveGroup):             errLeaveGroup,
	int16(kmsg.SyncGroup):              errSyncGroup,
	int16(kmsg.InitProducerID):         errInitProducerID,
	int16(kmsg.AddPartitionsToTxn):     errAddPartitionsToTxn,
	int16(kmsg.AddOffsetsToTxn):        errAddOffsetsToTxn,
	int16(kmsg.EndTxn):                 errEndTxn,
	int16(kmsg.TxnOffsetCommit):        errTxnOffsetCommit,
	int16(kmsg.ConsumerGroupHeartbeat): errConsumerGroupHeartbeat,
	int16(kmsg.ShareGroupHeartbeat):    errShareGroupHeartbeat,
	int16(kmsg.ShareFetch):             errShareFetch,
	int16(kmsg.ShareAcknowledge):       errShareAcknowledge,
}

// ErrorResponseSupported reports whether the proxy can answer requests of
// this API key itself (action error-response).
func ErrorResponseSupported(key int16) bool {
	_, ok := errorResponders[key]
	return ok
}

// errorResponse is the proxy's own answer to req with code, at req's version.
func errorResponse(req kmsg.Request, code int16) (kmsg.Response, bool) {
	build, ok := errorResponders[req.Key()]
	if !ok {
		return nil, false
	}
	resp := build(req, code)
	resp.SetVersion(req.GetVersion())
	return resp, true
}

// sessionError reports whether code is about a fetch or share session as
// a whole: brokers put such codes at the top level of a Fetch or
// ShareFetch/ShareAcknowledge response, with no partitions.
func sessionError(code int16) bool {
	switch code {
	case 70, 71, // FETCH_SESSION_ID_NOT_FOUND, INVALID_FETCH_SESSION_EPOCH
		122, 123, 133: // SHARE_SESSION_NOT_FOUND, INVALID_SHARE_SESSION_EPOCH, SHARE_SESSION_LIMIT_REACHED
		return true
	}
	return false
}

func errProduce(r kmsg.Request, code int16) kmsg.Response {
	req := r.(*kmsg.ProduceRequest)
	resp := kmsg.NewPtrProduceResponse()
	for _, t := range req.Topics {
		rt := kmsg.NewProduceResponseTopic()
		rt.Topic, rt.TopicID = t.Topic, t.TopicID
		for _, p := range t.Partitions {
			rp := kmsg.NewProduceResponseTopicPartition()
			rp.Partition, rp.ErrorCode = p.Partition, code
			rp.BaseOffset, rp.LogAppendTime, rp.LogStartOffset = -1, -1, -1
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp
}

func errFetch(r kmsg.Request, code int16) kmsg.Response {
	req := r.(*kmsg.FetchRequest)
	resp := kmsg.NewPtrFetchResponse()
	resp.SessionID = req.SessionID
	if sessionError(code) {
		resp.ErrorCode = code
		return resp
	}
	for _, t := range req.Topics {
		rt := kmsg.NewFetchResponseTopic()
		rt.Topic, rt.TopicID = t.Topic, t.TopicID
		for _, p := range t.Partitions {
			rp := kmsg.NewFetchResponseTopicPartition()
			rp.Partition, rp.ErrorCode = p.Partition, code
			rp.HighWatermark, rp.LastStableOffset, rp.LogStartOffset = -1, -1, -1
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp
}

func errListOffsets(r kmsg.Request, code int16) kmsg.Response {
	req := r.(*kmsg.ListOffsetsRequest)
	resp := kmsg.NewPtrListOffsetsResponse()
	for _, t := range req.Topics {
		rt := kmsg.NewListOffsetsResponseTopic()
		rt.Topic = t.Topic
		for _, p := range t.Partitions {
			rp := kmsg.NewListOffsetsResponseTopicPartition()
			rp.Partition, rp.ErrorCode = p.Partition, code
			rp.Timestamp, rp.Offset, rp.LeaderEpoch = -1, -1, -1
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp
}

// errMetadata answers with no brokers, the top-level code (v13+) and the
// code on each topic asked for by name or id (a request for all topics
// gets none back).
func errMetadata(r kmsg.Request, code int16) kmsg.Response {
	req := r.(*kmsg.MetadataRequest)
	resp := kmsg.NewPtrMetadataResponse()
	resp.ControllerID = -1
	resp.ErrorCode = code
	for _, t := range req.Topics {
		rt := kmsg.NewMetadataResponseTopic()
		rt.Topic, rt.TopicID, rt.ErrorCode = t.Topic, t.TopicID, code
		resp.Topics = append(resp.Topics, rt)
	}
	return resp
}

func errOffsetCommit(r kmsg.Request, code int16) kmsg.Response {
	req := r.(*kmsg.OffsetCommitRequest)
	resp := kmsg.NewPtrOffsetCommitResponse()
	for _, t := range req.Topics {
		rt := kmsg.NewOffsetCommitResponseTopic()
		rt.Topic, rt.TopicID = t.Topic, t.TopicID
		for _, p := range t.Partitions {
			rp := kmsg.NewOffsetCommitResponseTopicPartition()
			rp.Partition, rp.ErrorCode = p.Partition, code
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp
}

// errOffsetFetch puts the code on the group (v2+ top level, v8+ per
// group) and on every partition asked for.
func errOffsetFetch(r kmsg.Request, code int16) kmsg.Response {
	req := r.(*kmsg.OffsetFetchRequest)
	resp := kmsg.NewPtrOffsetFetchResponse()
	resp.ErrorCode = code
	for _, t := range req.Topics {
		rt := kmsg.NewOffsetFetchResponseTopic()
		rt.Topic = t.Topic
		for _, p := range t.Partitions {
			rp := kmsg.NewOffsetFetchResponseTopicPartition()
			rp.Partition, rp.ErrorCode, rp.Offset, rp.LeaderEpoch = p, code, -1, -1
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	for _, g := range req.Groups {
		rg := kmsg.NewOffsetFetchResponseGroup()
		rg.Group, rg.ErrorCode = g.Group, code
		for _, t := range g.Topics {
			rt := kmsg.NewOffsetFetchResponseGroupTopic()
			rt.Topic, rt.TopicID = t.Topic, t.TopicID
			for _, p := range t.Partitions {
				rp := kmsg.NewOffsetFetchResponseGroupTopicPartition()
				rp.Partition, rp.ErrorCode, rp.Offset, rp.LeaderEpoch = p, code, -1, -1
				rt.Partitions = append(rt.Partitions, rp)
			}
			rg.Topics = append(rg.Topics, rt)
		}
		resp.Groups = append(resp.Groups, rg)
	}
	return resp
}

func errFindCoordinator(r kmsg.Request, code int16) kmsg.Response {
	req := r.(*kmsg.FindCoordinatorRequest)
	resp := kmsg.NewPtrFindCoordinatorResponse()
	resp.ErrorCode, resp.NodeID, resp.Port = code, -1, -1
	for _, k := range req.CoordinatorKeys {
		c := kmsg.NewFindCoordinatorResponseCoordinator()
		c.Key, c.ErrorCode, c.NodeID, c.Port = k, code, -1, -1
		resp.Coordinators = append(resp.Coordinators, c)
	}
	return resp
}

func errJoinGroup(r kmsg.Request, code int16) kmsg.Response {
	req := r.(*kmsg.JoinGroupRequest)
	resp := kmsg.NewPtrJoinGroupResponse()
	resp.ErrorCode, resp.Generation, resp.MemberID = code, -1, req.MemberID
	return resp
}

func errHeartbeat(_ kmsg.Request, code int16) kmsg.Response {
	resp := kmsg.NewPtrHeartbeatResponse()
	resp.ErrorCode = code
	return resp
}

func errLeaveGroup(r kmsg.Request, code int16) kmsg.Response {
	req := r.(*kmsg.LeaveGroupRequest)
	resp := kmsg.NewPtrLeaveGroupResponse()
	resp.ErrorCode = code
	for _, m := range req.Members {
		rm := kmsg.NewLeaveGroupResponseMember()
		rm.MemberID, rm.InstanceID, rm.ErrorCode = m.MemberID, m.InstanceID, code
		resp.Members = append(resp.Members, rm)
	}
	return resp
}

func errSyncGroup(_ kmsg.Request, code int16) kmsg.Response {
	resp := kmsg.NewPtrSyncGroupResponse()
	resp.ErrorCode = code
	return resp
}

func errInitProducerID(_ kmsg.Request, code int16) kmsg.Response {
	resp := kmsg.NewPtrInitProducerIDResponse()
	resp.ErrorCode, resp.ProducerID, resp.ProducerEpoch = code, -1, -1
	return resp
}

// errAddPartitionsToTxn answers per partition: v0-3 the request's
// topics, v4+ (brokers verifying) per transaction.
func errAddPartitionsToTxn(r kmsg.Request, code int16) kmsg.Response {
	req := r.(*kmsg.AddPartitionsToTxnRequest)
	resp := kmsg.NewPtrAddPartitionsToTxnResponse()
	for _, t := range req.Topics {
		rt := kmsg.NewAddPartitionsToTxnResponseTopic()
		rt.Topic = t.Topic
		for _, p := range t.Partitions {
			rp := kmsg.NewAddPartitionsToTxnResponseTopicPartition()
			rp.Partition, rp.ErrorCode = p, code
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	for _, tx := range req.Transactions {
		rtx := kmsg.NewAddPartitionsToTxnResponseTransaction()
		rtx.TransactionalID = tx.TransactionalID
		for _, t := range tx.Topics {
			rt := kmsg.NewAddPartitionsToTxnResponseTransactionTopic()
			rt.Topic = t.Topic
			for _, p := range t.Partitions {
				rp := kmsg.NewAddPartitionsToTxnResponseTransactionTopicPartition()
				rp.Partition, rp.ErrorCode = p, code
				rt.Partitions = append(rt.Partitions, rp)
			}
			rtx.Topics = append(rtx.Topics, rt)
		}
		resp.Transactions = append(resp.Transactions, rtx)
	}
	return resp
}

func errAddOffsetsToTxn(_ kmsg.Request, code int16) kmsg.Response {
	resp := kmsg.NewPtrAddOffsetsToTxnResponse()
	resp.ErrorCode = code
	return resp
}

func errEndTxn(_ kmsg.Request, code int16) kmsg.Response {
	resp := kmsg.NewPtrEndTxnResponse()
	resp.ErrorCode, resp.ProducerID, resp.ProducerEpoch = code, -1, -1
	return resp
}

func errTxnOffsetCommit(r kmsg.Request, code int16) kmsg.Response {
	req := r.(*kmsg.TxnOffsetCommitRequest)
	resp := kmsg.NewPtrTxnOffsetCommitResponse()
	for _, t := range req.Topics {
		rt := kmsg.NewTxnOffsetCommitResponseTopic()
		rt.Topic, rt.TopicID = t.Topic, t.TopicID
		for _, p := range t.Partitions {
			rp := kmsg.NewTxnOffsetCommitResponseTopicPartition()
			rp.Partition, rp.ErrorCode = p.Partition, code
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp
}

// errConsumerGroupHeartbeat keeps the member's id and epoch as the request
// gave them and no assignment: a broker's error answer changes neither.
func errConsumerGroupHeartbeat(r kmsg.Request, code int16) kmsg.Response {
	req := r.(*kmsg.ConsumerGroupHeartbeatRequest)
	resp := kmsg.NewPtrConsumerGroupHeartbeatResponse()
	resp.ErrorCode, resp.MemberEpoch = code, req.MemberEpoch
	if req.MemberID != "" {
		resp.MemberID = kmsg.StringPtr(req.MemberID)
	}
	return resp
}

func errShareGroupHeartbeat(r kmsg.Request, code int16) kmsg.Response {
	req := r.(*kmsg.ShareGroupHeartbeatRequest)
	resp := kmsg.NewPtrShareGroupHeartbeatResponse()
	resp.ErrorCode, resp.MemberEpoch = code, req.MemberEpoch
	if req.MemberID != "" {
		resp.MemberID = kmsg.StringPtr(req.MemberID)
	}
	return resp
}

// errShareFetch puts the code on each partition, and on its
// acknowledgements when the request carried some for it; a share-session
// code goes to the top level alone.
func errShareFetch(r kmsg.Request, code int16) kmsg.Response {
	req := r.(*kmsg.ShareFetchRequest)
	resp := kmsg.NewPtrShareFetchResponse()
	if sessionError(code) {
		resp.ErrorCode = code
		return resp
	}
	for _, t := range req.Topics {
		rt := kmsg.NewShareFetchResponseTopic()
		rt.TopicID = t.TopicID
		for _, p := range t.Partitions {
			rp := kmsg.NewShareFetchResponseTopicPartition()
			rp.Partition, rp.ErrorCode = p.Partition, code
			if len(p.AcknowledgementBatches) > 0 {
				rp.AcknowledgeErrorCode = code
			}
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp
}

func errShareAcknowledge(r kmsg.Request, code int16) kmsg.Response {
	req := r.(*kmsg.ShareAcknowledgeRequest)
	resp := kmsg.NewPtrShareAcknowledgeResponse()
	if sessionError(code) {
		resp.ErrorCode = code
		return resp
	}
	for _, t := range req.Topics {
		rt := kmsg.NewShareAcknowledgeResponseTopic()
		rt.TopicID = t.TopicID
		for _, p := range t.Partitions {
			rp := kmsg.NewShareAcknowledgeResponseTopicPartition()
			rp.Partition, rp.ErrorCode = p.Partition, code
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp
}
