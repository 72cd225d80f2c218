package layers

import (
	"bytes"
	"encoding/json"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/kchaos/kchaos"

// group is a package's place in the layering.
type group string

const (
	gCmd        group = "cmd"
	gHarness    group = "harness"
	gNemesis    group = "nemesis"                 // the seam (schedules, targets, runner, Env) and nemesis/proxy
	gRoom       group = "nemesis/room"            // a room of fault kinds: nemesis/requests, ...
	gKinds      group = "nemesis/kinds"           // links every room
	gNemTest    group = "nemesis/nemesistest"     // the tests' cluster harness and in-memory cluster (nemesis/nemesisfake); tests only
	gWorkloads  group = "workloads"               // the seam (loops, Driver, registry) with the Go drivers
	gDriver     group = "workloads/driver"        // a client driver of its own: workloads/java, ...
	gWorkKind   group = "workloads/kind"          // a workload kind of its own: workloads/metadata, groups, shares, txn
	gDrivers    group = "workloads/drivers"       // links every driver
	gWorkKinds  group = "workloads/kinds"         // links every kind the seam runs
	gWorkTest   group = "workloads/workloadstest" // the integration tests' shared cluster; tests only
	gCluster    group = "cluster"                 // the interface and neutral types
	gAdmin      group = "cluster/admin"           // the admin client
	gBackend    group = "cluster/backend"         // cluster/docker and later ones
	gChecker    group = "checker"
	gReport     group = "report"
	gHistories  group = "histories"
	gBrokerLogs group = "brokerlogs" // the nodes' own logs, read (pure)
	gInternal   group = "internal"
	gImage      group = "image" // the Kafka image build; its Go tests test its scripts
)

// groupOf places a package of the module by its path below the module.
func groupOf(rel string) (group, bool) {
	top, _, _ := strings.Cut(rel, "/")
	switch {
	case top == "cmd":
		return gCmd, true
	case top == "harness":
		return gHarness, true
	case rel == "nemesis/kinds":
		return gKinds, true
	case rel == "nemesis/nemesistest", rel == "nemesis/nemesisfake":
		return gNemTest, true
	case strings.HasPrefix(rel, "nemesis/") && rel != "nemesis/proxy":
		return gRoom, true
	case rel == "workloads/drivers":
		return gDrivers, true
	case rel == "workloads/workloadstest":
		return gWorkTest, true
	case rel == "workloads/kinds":
		return gWorkKinds, true
	case rel == "workloads/metadata", rel == "workloads/groups", rel == "workloads/shares", rel == "workloads/txn":
		return gWorkKind, true
	case strings.HasPrefix(rel, "workloads/"):
		return gDriver, true
	case rel == "nemesis", rel == "workloads", rel == "checker", rel == "report", rel == "histories", rel == "brokerlogs":
		return group(rel), true
	case strings.HasPrefix(rel, "nemesis/"), strings.HasPrefix(rel, "workloads/"),
		strings.HasPrefix(rel, "checker/"), strings.HasPrefix(rel, "report/"), strings.HasPrefix(rel, "histories/"),
		strings.HasPrefix(rel, "brokerlogs/"):
		return group(top), true
	case rel == "cluster":
		return gCluster, true
	case rel == "cluster/admin":
		return gAdmin, true
	case strings.HasPrefix(rel, "cluster/"):
		return gBackend, true
	case top == "internal":
		return gInternal, true
	case rel == "image":
		return gImage, true
	}
	return "", false
}

// mayImport lists, per group, the groups its non-test code may import
// (its own group and internal are always allowed).
var mayImport = map[group][]group{
	gCmd:        {gHarness, gNemesis, gKinds, gRoom, gWorkloads, gWorkKind, gWorkKinds, gDrivers, gDriver, gCluster, gAdmin, gBackend, gChecker, gReport, gHistories, gBrokerLogs},
	gHarness:    {gNemesis, gKinds, gRoom, gWorkloads, gWorkKind, gWorkKinds, gDrivers, gDriver, gCluster, gAdmin, gBackend, gChecker, gReport, gHistories, gBrokerLogs},
	gNemesis:    {gCluster, gAdmin, gHistories},
	gRoom:       {gNemesis, gCluster, gAdmin, gHistories},
	gKinds:      {gRoom},
	gNemTest:    {gNemesis, gCluster, gAdmin, gBackend, gHistories},
	gWorkloads:  {gCluster, gAdmin, gHistories},
	gDriver:     {gWorkloads, gCluster, gAdmin, gHistories},
	gWorkKind:   {gWorkloads, gCluster, gAdmin, gHistories},
	gDrivers:    {gDriver},
	gWorkKinds:  {gWorkKind},
	gWorkTest:   {gCluster, gAdmin, gBackend, gHistories},
	gBackend:    {gCluster, gAdmin, gHistories},
	gCluster:    {gAdmin, gHistories},
	gAdmin:      {gHistories},
	gReport:     {gChecker, gHistories, gBrokerLogs},
	gChecker:    {gHistories},
	gHistories:  {},
	gBrokerLogs: {},
	gInternal:   {},
	gImage:      {},
}

// testMayImport widens mayImport for a group's tests: integration tests
// of the faults, the workloads and the admin client start a real cluster,
// so they may name the backend (never the other way round: a backend's
// tests may not use the faults). Checker and report tests get nothing
// more.
//
// The seam's external tests link every room (nemesis/kinds_test.go), so
// that its tests of every kind see them all; its code never does. The
// integration tests of the seam and of every room share one cluster
// harness, nemesis/nemesistest, and the unit tests of the seam and of
// the rooms one in-memory cluster, nemesis/nemesisfake: only tests may
// import either (no group's code lists them). A room's tests may link
// another room whose kinds they take as steps (nemesis/disk's and
// nemesis/network's rooms_test.go link nemesis/process, for start and
// resume); a room's code never imports another. The harness's unit
// tests may take the same in-memory Env (nemesis/nemesistest.NewEnv):
// explore's live chooser is tested playing steps on it, as the runner
// plays them on a cluster.
//
// The workloads are placed alike: the seam's external tests link every
// driver and every kind it runs (workloads/drivers_test.go), its code
// never does, and so may a driver's tests that name the other drivers
// (workloads/java's), and a workload kind's tests that run it on a
// driver (workloads/metadata's, groups', shares', txn's); the
// integration tests of the seam and of every driver share one cluster
// harness, workloads/workloadstest, which only tests import.
var testMayImport = map[group][]group{
	gNemesis:   {gBackend, gKinds, gRoom, gNemTest},
	gRoom:      {gBackend, gNemTest},
	gWorkloads: {gBackend, gDrivers, gWorkKinds, gWorkTest},
	gDriver:    {gBackend, gDrivers, gWorkTest},
	gWorkKind:  {gBackend, gDrivers, gWorkTest},
	gAdmin:     {gCluster, gBackend},
	gHarness:   {gNemTest},
}

// pureDeps are the external packages checker and report must not depend
// on, even indirectly: Docker, and clients that touch the network.
var pureDeps = []string{
	"github.com/moby/", "github.com/docker/", "github.com/testcontainers/",
	"github.com/twmb/franz-go/pkg/kgo", "github.com/twmb/franz-go/pkg/kadm",
	"github.com/segmentio/kafka-go",
}

// dockerDeps are what faults and workloads must not depend on, even
// indirectly: they hold a cluster through its interface.
var dockerDeps = []string{"github.com/moby/", "github.com/docker/", "github.com/testcontainers/"}

type pkg struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
	Deps         []string
}

func listPackages(t *testing.T) []pkg {
	t.Helper()
	// With the integration tag: those tests' imports must point down too,
	// and every file of the module is listed under it.
	cmd := exec.Command("go", "list", "-tags", "integration", "-json", module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 10 {
		t.Fatalf("go list found %d packages; expected the whole module", len(pkgs))
	}
	return pkgs
}

func rel(path string) (string, bool) {
	if path == module {
		return "", true
	}
	return strings.CutPrefix(path, module+"/")
}

func TestImportsPointDown(t *testing.T) {
	for _, p := range listPackages(t) {
		name, _ := rel(p.ImportPath)
		from, ok := groupOf(name)
		if !ok {
			t.Errorf("package %s has no place in the layering: add it to internal/layers and the layout table of docs/architecture.md", name)
			continue
		}
		check := func(imports []string, allowed []group, what string) {
			for _, imp := range imports {
				r, ours := rel(imp)
				if !ours {
					continue
				}
				to, ok := groupOf(r)
				if !ok || to == from || to == gInternal || slices.Contains(allowed, to) {
					continue
				}
				t.Errorf("%s%s imports %s: %s may import only %v (and internal/*)", name, what, r, from, allowed)
			}
		}
		check(p.Imports, mayImport[from], "")
		testAllowed := append(slices.Clone(mayImport[from]), testMayImport[from]...)
		check(p.TestImports, testAllowed, " (tests)")
		check(p.XTestImports, append(testAllowed, from), " (tests)")
	}
}

func TestCheckerAndReportArePure(t *testing.T) {
	for _, p := range listPackages(t) {
		name, _ := rel(p.ImportPath)
		g, _ := groupOf(name)
		var banned []string
		switch g {
		case gChecker, gReport, gBrokerLogs:
			banned = pureDeps
		case gNemesis, gRoom, gKinds, gWorkloads, gDriver, gWorkKind, gWorkKinds, gDrivers, gCluster, gAdmin:
			banned = dockerDeps
		case gBackend:
			// Only the Docker backend may use Docker: the SSH backend (and
			// its test-host helper) reaches hosts over SSH alone.
			if name == "cluster/docker" {
				continue
			}
			banned = dockerDeps
		default:
			continue
		}
		for _, d := range append(append(slices.Clone(p.Deps), p.TestImports...), p.XTestImports...) {
			if r, ours := rel(d); ours {
				if to, _ := groupOf(r); (g == gChecker || g == gReport || g == gBrokerLogs) && (to == gCluster || to == gAdmin || to == gBackend) {
					t.Errorf("%s depends on %s: checker and report never touch a cluster", name, r)
				}
				continue
			}
			for _, b := range banned {
				if strings.HasPrefix(d, b) {
					if g == gChecker || g == gReport || g == gBrokerLogs {
						t.Errorf("%s depends on %s: checker and report use no Docker and no network client", name, d)
					} else if slices.Contains(p.Deps, d) {
						// Tests of faults and workloads may start a Docker
						// cluster; their code may not.
						if g == gBackend {
							t.Errorf("%s depends on %s: only cluster/docker may use Docker", name, d)
						} else {
							t.Errorf("%s depends on %s: it must reach the cluster only through the cluster interface", name, d)
						}
					}
				}
			}
		}
	}
}

// TestGroupOf pins the table on the module's own layout, so that a
// renamed package is noticed here rather than silently unplaced.
func TestGroupOf(t *testing.T) {
	for rel, want := range map[string]group{
		"cmd/kchaos": gCmd, "harness": gHarness, "harness/scenario": gHarness,
		"nemesis": gNemesis, "nemesis/proxy": gNemesis, "nemesis/requests": gRoom, "nemesis/clients": gRoom, "nemesis/disk": gRoom, "nemesis/network": gRoom, "nemesis/quorum": gRoom, "nemesis/nemesisfake": gNemTest, "nemesis/kinds": gKinds,
		"nemesis/nemesistest": gNemTest,
		"workloads":           gWorkloads, "workloads/java": gDriver, "workloads/franz": gDriver, "workloads/kafkago": gDriver,
		"workloads/drivers": gDrivers, "workloads/metadata": gWorkKind, "workloads/groups": gWorkKind, "workloads/shares": gWorkKind, "workloads/txn": gWorkKind, "workloads/kinds": gWorkKinds,
		"workloads/workloadstest": gWorkTest, "cluster": gCluster,
		"cluster/admin": gAdmin, "cluster/docker": gBackend, "cluster/ssh": gBackend,
		"checker": gChecker, "report": gReport, "histories": gHistories, "brokerlogs": gBrokerLogs,
		"internal/ctxsleep": gInternal, "internal/layers": gInternal, "image": gImage,
	} {
		if got, ok := groupOf(rel); !ok || got != want {
			t.Errorf("groupOf(%q) = %q, %v; want %q", rel, got, ok, want)
		}
	}
	if g, ok := groupOf("tools"); ok {
		t.Errorf("groupOf(tools) = %q: an unknown top-level package must not be placed", g)
	}
}
