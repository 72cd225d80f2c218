package java

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kchaos/kchaos/workloads"
)

// fakeMemberJVM speaks the member side of the protocol as
// javaclient/MemberHandle.java does: the first poll runs an "assigned"
// callback (an event line, then commits served until rebalance-done)
// before it answers with records; a leave runs a "revoked" callback the
// same way, then answers. Each start is a JVM of its own.
type fakeMemberJVM struct {
	mu      sync.Mutex
	started int
	commits []map[string]any
	order   []string // what the JVM did, in order
}

type recHandler struct {
	mu   sync.Mutex
	m    workloads.GroupMember
	evs  []workloads.RebalanceEvent
	errs []error
}

func (h *recHandler) Rebalanced(ctx context.Context, r workloads.RebalanceEvent) {
	h.mu.Lock()
	h.evs = append(h.evs, r)
	m := h.m
	h.mu.Unlock()
	if len(r.Revoked) > 0 { // as the member loop does: commit before giving them up
		if res := m.Commit(ctx, map[int32]int64{r.Revoked[0]: 7}, nil); res.Err != nil {
			h.mu.Lock()
			h.errs = append(h.errs, res.Err)
			h.mu.Unlock()
		}
	}
}

func (h *recHandler) AutoCommitted(workloads.CommitResult) {}

func (f *fakeMemberJVM) start(ctx context.Context, _ string) (*jvm, error) {
	f.mu.Lock()
	f.started++
	f.mu.Unlock()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	enc := json.NewEncoder(outW)
	var wmu sync.Mutex
	reply := func(m map[string]any) {
		wmu.Lock()
		defer wmu.Unlock()
		_ = enc.Encode(m)
	}
	reqs := make(chan map[string]any, 16)
	go func() { // the reader: requests to the member's thread
		defer close(reqs)
		sc := bufio.NewScanner(inR)
		for sc.Scan() {
			var req map[string]any
			if json.Unmarshal(sc.Bytes(), &req) == nil {
				reqs <- req
			}
		}
	}()
	go func() { // the member's thread
		defer outW.Close()
		reply(map[string]any{"id": 0, "ready": true, "version": "9.9.9"})
		gen, cb := -1, 0
		meta := func(m map[string]any) map[string]any {
			m["member_id"], m["generation"] = "m-1", gen
			return m
		}
		serve := func(req map[string]any) {
			if req["op"] == "commit" {
				f.mu.Lock()
				f.commits = append(f.commits, req["offsets"].(map[string]any))
				f.order = append(f.order, "commit")
				f.mu.Unlock()
				reply(meta(map[string]any{"id": req["id"], "ok": true}))
			}
		}
		callback := func(kind string, parts []int) bool {
			cb++
			f.mu.Lock()
			f.order = append(f.order, kind)
			f.mu.Unlock()
			reply(meta(map[string]any{"id": 0, "event": "rebalance", "cb": cb, "kind": kind, "partitions": parts}))
			for req := range reqs {
				if req["op"] == "rebalance-done" && int(req["cb"].(float64)) == cb {
					reply(map[string]any{"id": req["id"], "ok": true})
					f.mu.Lock()
					f.order = append(f.order, kind+"-done")
					f.mu.Unlock()
					return true
				}
				serve(req)
			}
			return false
		}
		for req := range reqs {
			switch req["op"] {
			case "open-member":
				reply(map[string]any{"id": req["id"], "handle": 1})
			case "poll":
				if gen < 0 {
					gen = 1
					if !callback("assigned", []int{1, 0}) {
						return
					}
				}
				reply(meta(map[string]any{"id": req["id"], "records": []map[string]any{{"p": 0, "o": 3, "v": "x", "e": 1}},
					"next": map[string]int64{"0": 4}}))
			case "leave":
				if !callback("revoked", []int{0}) {
					return
				}
				reply(map[string]any{"id": req["id"], "ok": true})
			default:
				serve(req)
			}
		}
	}()
	return newJVMConn(ctx, inW, outR, &tailBuffer{max: 1024})
}

// TestJavaMemberOverFakeJVM: a member's rebalance callbacks reach the
// handler before the client goes on (the assignment before the poll's
// records, the revoke's commit before the leave ends), the member id and
// generation come with every answer, and Kill ends the member's own JVM.
func TestJavaMemberOverFakeJVM(t *testing.T) {
	f := &fakeMemberJVM{}
	old := javaRegistry.startJVM
	javaRegistry.startJVM = f.start
	t.Cleanup(func() { javaRegistry.startJVM = old })

	cfg := workloads.Config{Driver: workloads.DriverJava, ClusterVersion: "4.1.2", Topic: "t", Group: workloads.GroupConfig{ID: "g"}}
	cfg.Defaults()
	h := &recHandler{}
	h.mu.Lock()
	m, err := javaDriver{}.NewGroupMember(cfg, []string{"b:9092"}, 0, h)
	if err != nil {
		t.Fatal(err)
	}
	h.m = m
	h.mu.Unlock()
	if mid, gen := m.Meta(); mid != "" || gen != -1 {
		t.Errorf("before joining: %q %d, want \"\" -1", mid, gen)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	fe, err := m.Poll(ctx)
	if err != nil || len(fe.Records) != 1 || fe.Next[0] != 4 {
		t.Fatalf("poll: %+v %v", fe, err)
	}
	if mid, gen := m.Meta(); mid != "m-1" || gen != 1 {
		t.Errorf("after the poll: %q %d, want m-1 1", mid, gen)
	}
	res := m.Commit(ctx, map[int32]int64{0: 4}, nil)
	if res.Err != nil || res.Committed[0] != 4 || res.MemberID != "m-1" || res.Generation != 1 {
		t.Errorf("commit: %+v", res)
	}
	m.Leave(ctx)
	h.mu.Lock()
	evs, errs := h.evs, h.errs
	h.mu.Unlock()
	if len(evs) != 2 || !slices.Equal(evs[0].Assigned, []int32{0, 1}) || !slices.Equal(evs[1].Revoked, []int32{0}) ||
		evs[0].Generation != 1 || evs[0].MemberID != "m-1" || len(errs) > 0 {
		t.Errorf("rebalances %+v, commit errors %v", evs, errs)
	}
	f.mu.Lock()
	order := slices.Clone(f.order)
	f.mu.Unlock()
	want := []string{"assigned", "assigned-done", "commit", "revoked", "commit", "revoked-done"}
	if !slices.Equal(order, want) {
		t.Errorf("the JVM did %v, want %v (the revoke's commit inside the callback)", order, want)
	}

	// A second member: its own JVM; Kill ends it, and its requests fail
	// as a closed client's.
	m2, err := javaDriver{}.NewGroupMember(cfg, []string{"b:9092"}, 1, &recHandler{})
	if err != nil {
		t.Fatal(err)
	}
	if f.started != 2 {
		t.Errorf("%d JVMs started, want one per member", f.started)
	}
	m2.Kill()
	if r := m2.Commit(ctx, map[int32]int64{0: 1}, nil); workloads.RuleFor(r.Err).Name != workloads.CauseClientClosed {
		t.Errorf("commit after kill: %v, want %s", r.Err, workloads.CauseClientClosed)
	}
}
