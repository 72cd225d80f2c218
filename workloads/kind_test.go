package workloads

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kchaos/kchaos/cluster/admin"
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

// TestMakeKinds: a configuration that asks for a section a kind of its
// own runs (a share group) gets that kind from the registry's maker, and
// is refused when no maker is linked (the seam runs no share group of its
// own); one that asks for none gets none.
func TestMakeKinds(t *testing.T) {
	shares := Config{Shares: ShareConfig{Group: "s"}}
	made := &fakeKind{}
	linked := func(name string) (KindFor, bool) {
		return func(Config, Driver) (Kind, error) { return made, nil }, name == KindShares
	}
	unlinked := func(string) (KindFor, bool) { return nil, false }
	for _, c := range []struct {
		name   string
		cfg    Config
		lookup func(string) (KindFor, bool)
		want   int // kinds made; -1: refused
	}{
		{"no section of a kind", Config{}, unlinked, 0},
		{"shares, linked", shares, linked, 1},
		{"shares, not linked", shares, unlinked, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			ks, err := makeKinds(c.cfg, &fakeDriver{}, c.lookup)
			if c.want < 0 {
				if err == nil || !strings.Contains(err.Error(), "workload.shares") {
					t.Fatalf("makeKinds: %v, want the share group refused without its kind", err)
				}
				return
			}
			if err != nil || len(ks) != c.want || c.want == 1 && ks[0] != Kind(made) {
				t.Fatalf("makeKinds: %v, %v; want %d kind(s)", ks, err, c.want)
			}
		})
	}
}

// TestKindsLinked: the seam's test binary, as every program that runs
// workloads, has every kind registered (workloads/kinds, linked by
// drivers_test.go): the consumer group, the share group and the
// transactional producers.
func TestKindsLinked(t *testing.T) {
	for _, name := range []string{KindGroup, KindShares, KindTransactions} {
		if _, ok := registeredKind(name); !ok {
			t.Errorf("no kind registered for workload.%s", name)
		}
	}
}

// TestRegisterKindRefuses: a second maker of a kind already registered
// (shares, here: workloads/shares, linked into the test binary by
// drivers_test.go) and a maker of a section no kind runs panic, and
// neither changes the registry.
func TestRegisterKindRefuses(t *testing.T) {
	before, ok := registeredKind(KindShares)
	if !ok {
		t.Fatal("kind shares not registered: drivers_test.go links workloads/kinds")
	}
	for _, c := range []struct{ name, want string }{
		{KindShares, `kind "shares" registered twice`},
		{"metadata", `no workload section "metadata"`},
	} {
		func() {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.Contains(s, c.want) {
					t.Errorf("RegisterKind(%q): panic %v, want %q", c.name, r, c.want)
				}
			}()
			RegisterKind(c.name, func(Config, Driver) (Kind, error) { return &fakeKind{}, nil })
		}()
	}
	after, _ := registeredKind(KindShares)
	if _, ok := registeredKind("metadata"); ok || fmt.Sprintf("%p", after) != fmt.Sprintf("%p", before) {
		t.Error("the registry changed after refused registrations")
	}
}
