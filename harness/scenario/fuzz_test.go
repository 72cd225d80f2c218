package scenario

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad feeds raw bytes through scenario loading and validation, as a
// file given to `kchaos run` is: no input may panic, and a scenario that
// validates never fails a later check that validation could have made:
// its cluster, workload and cross-field checks pass, its Kafka configs
// pass, and the scenario as run (written into the run folder) loads back.
func FuzzLoad(f *testing.F) {
	entries, _ := fs.ReadDir(builtinFS, "builtin")
	for _, e := range entries {
		f.Add(mustRead("builtin/" + e.Name()))
	}
	for _, s := range []string{"", "name: x\n", "name: x\nworkload: {rate: .nan}\n", "name: ../x\n",
		"name: x\ntopic: {name: __consumer_offsets}\n", "name: x\nnemesis: {steps: [{until: {leader: 9}}]}\n",
		"name: x\ntopic: {configs: {min.insync.replicas: abc}}\n", "a: &a [*a]\n", "\x00\xff"} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64<<10 {
			return
		}
		file := filepath.Join(dir, "s.yaml")
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Load(file, nil)
		if err != nil {
			var bad *BadInputError
			if !errors.As(err, &bad) {
				t.Fatalf("error is not bad input: %v", err)
			}
			return
		}
		cc := s.Cluster.ClusterConfig()
		cc.Defaults()
		if err := cc.Validate(); err != nil {
			t.Fatalf("valid scenario, invalid cluster: %v", err)
		}
		w := s.WorkloadConfig()
		if err := w.Validate(); err != nil {
			t.Fatalf("valid scenario, invalid workload: %v", err)
		}
		if errs := s.crossCheck(); len(errs) > 0 {
			t.Fatalf("valid scenario, cross-field problems: %v", errs)
		}
		if err := CheckName("name", s.Name); err != nil {
			t.Fatalf("valid scenario, unsafe name: %v", err)
		}
		b, err := s.Marshal()
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		again := filepath.Join(dir, "again.yaml")
		if err := os.WriteFile(again, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(again, nil); err != nil {
			t.Fatalf("the scenario as run does not load back: %v\n%s", err, b)
		}
	})
}
