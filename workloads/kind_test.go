package workloads

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/histories"
)

// fakeKind is a Kind that notes what the Workload asked of it.
type fakeKind struct {
	mu      sync.Mutex
	phases  []string
	env     KindEnv
	members GroupControl
}

func (k *fakeKind) note(p string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.phases = append(k.phases, p)
}

func (k *fakeKind) Open(_ context.Context, env KindEnv) error {
	k.env = env
	k.note("open")
	return nil
}

func (k *fakeKind) Run(stop context.Context) error {
	k.note("run")
	<-stop.Done()
	k.note("stopped")
	return nil
}

func (k *fakeKind) Drain(context.Context, KindEnv) error { k.note("drain"); return nil }
func (k *fakeKind) Members() GroupControl                { return k.members }

// TestKindPhases: a kind is opened with the workload's clients' and
// evidence's addresses, runs until the run's stop, drains once however
// often the final read runs, and its members are the workload's Group.
func TestKindPhases(t *testing.T) {
	k := &fakeKind{members: MemberControl([]string{"share-0"}, []chan MemberFault{make(chan MemberFault)})}
	d := &fakeDriver{send: func(n int, _ Message) (int64, error) { return int64(n), nil },
		consumer: func() Consumer { return &logConsumer{logs: map[int32][]string{0: {}}, start: map[int32]int64{0: 0}} }}
	w, _, _ := newTestWorkload(t, Config{Partitions: 1, Producers: 1, Consumers: 0, Rate: 50, Duration: Duration(200 * time.Millisecond)}, d)
	w.kinds = []Kind{k}
	w.ReadEvidenceFrom([]string{"broker:9092"})
	if _, err := w.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	v := &fakeView{parts: []admin.PartitionState{{Partition: 0, Leader: 1}}, hw: map[int32]int64{0: 0}}
	for range 2 {
		if _, err := w.FinalRead(context.Background(), v); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := strings.Join(k.phases, " "), "open run stopped drain"; got != want {
		t.Errorf("phases %q, want %q", got, want)
	}
	if k.env.Bootstrap[0] != "fake:9092" || k.env.Evidence[0] != "broker:9092" || k.env.Recorder == nil || k.env.Driver == nil {
		t.Errorf("env %+v: want the clients' and the evidence's addresses, the recorder and the driver", k.env)
	}
	if g := w.Group(); g == nil || strings.Join(g.Members(), " ") != "share-0" {
		t.Errorf("Group() = %v, want the kind's members", g)
	}
}

// TestNewRefusesAKindUnmade: a configuration that asks for a share group
// is refused by New unless a KindFor makes its kind (the seam runs no
// share group of its own).
func TestNewRefusesAKindUnmade(t *testing.T) {
	cfg := Config{Driver: DriverFranz, Topic: "t", Consumers: 0, Shares: ShareConfig{Group: "s"}}
	made := func(Config) Kind { return &fakeKind{} }
	none := func(Config) Kind { return nil }
	for _, c := range []struct {
		name  string
		kinds []KindFor
		fails bool
	}{
		{"no kind", nil, true},
		{"a kind that makes none", []KindFor{none}, true},
		{"the kind", []KindFor{none, made}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, err := New(cfg, []string{"fake:9092"}, histories.NewRecorder(&bytes.Buffer{}), c.kinds...)
			if c.fails {
				if err == nil || !strings.Contains(err.Error(), "shares.For") {
					t.Fatalf("New: %v, want the share group refused without its kind", err)
				}
				return
			}
			if err != nil || len(w.kinds) != 1 {
				t.Fatalf("New: %v, kinds %v", err, w)
			}
		})
	}
}
