package disk

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/nemesis"
)

// disk-slow is a disk fault (disk.go: diskFault) whose effect is a block
// I/O limit on the dir's disk instead of a failed or full dir: its own
// parameters, rate and probe are here.

// DiskSlowParams are a disk-slow's.
type DiskSlowParams struct {
	// Dir is the log dir whose disk is slowed (DiskParams.Dir).
	Dir *int `yaml:"dir,omitempty"`
	// Rate is the limit in bytes per second ("64KiB", "1MiB") on the
	// broker's reads and writes of the dir's disk.
	Rate string `yaml:"rate,omitempty"`
}

func (sp *DiskSlowParams) Validate(p string, st *nemesis.Step, add nemesis.AddFunc) {
	nemesis.ValidateNodeTarget(p, st, add)
	validateDir(p, st.Fault, sp.Dir, add)
	if sp.Rate == "" {
		add(p+".rate", "fault disk-slow needs rate: bytes per second, e.g. 64KiB")
	} else if _, err := parseDiskRate(sp.Rate); err != nil {
		add(p+".rate", "%v", err)
	}
}

func (sp *DiskSlowParams) Build(st nemesis.Step) nemesis.Fault {
	rate, _ := parseDiskRate(sp.Rate) // Validate reported a bad one; Inject refuses 0
	return &diskFault{op: st.Fault, target: st.Target, dir: dirOrNone(sp.Dir), rate: rate}
}

// minRate is the smallest disk-slow limit: one page a second.
const minRate = 4 << 10

// parseDiskRate reads disk-slow's rate.
func parseDiskRate(s string) (int64, error) {
	n, err := cluster.ParseSize(s)
	if err != nil {
		return 0, err
	}
	if n < minRate {
		return 0, fmt.Errorf("%s: want at least %s a second", cluster.FormatSize(n), cluster.FormatSize(minRate))
	}
	return n, nil
}

// probeSlow writes twice the limit with O_DIRECT into the dir from inside
// the node (dd, as the broker's own I/O, in its cgroup): at the limit it
// takes about 2 s, and it must take at least 1 s; unlimited, milliseconds.
func (f *diskFault) probeSlow(ctx context.Context, e *nemesis.Env, disks cluster.Disks, id int32, p *diskProof) error {
	bs := max(4096, f.rate/4&^4095)
	count := (2*f.rate + bs - 1) / bs
	path := disks.LogDirs(id)[f.dir].Path + "/" + probeFile
	out, err := e.Cluster.Exec(ctx, id, "sh", "-c", fmt.Sprintf(
		"dd if=/dev/zero of=%s bs=%d count=%d oflag=direct 2>&1; rc=$?; rm -f %s; exit $rc", path, bs, count, path))
	if err != nil {
		return fmt.Errorf("broker %d: probe write: %w", id, err)
	}
	secs, ok := ddSeconds(out)
	if !ok {
		return fmt.Errorf("broker %d: probe write: cannot read dd's time in %q", id, out)
	}
	n := bs * count
	p.Write = fmt.Sprintf("%d bytes with O_DIRECT in %.2f s (%s/s; limit %s/s)", n, secs,
		cluster.FormatSize(int64(float64(n)/max(secs, 1e-3))&^1023), cluster.FormatSize(f.rate))
	if secs < 1 {
		return fmt.Errorf("broker %d: log dir %d is not slowed: %s", id, f.dir, p.Write)
	}
	return nil
}

// ddSeconds reads the time from dd's last line ("... copied, 3.91 s, 66.9 kB/s").
func ddSeconds(out string) (float64, bool) {
	i := strings.LastIndex(out, "copied, ")
	if i < 0 {
		return 0, false
	}
	rest := out[i+len("copied, "):]
	j := strings.Index(rest, " s")
	if j < 0 {
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(rest[:j]), 64)
	return v, err == nil
}

// unthrottle lifts every block I/O limit of node id and reports whether
// there was one.
func unthrottle(ctx context.Context, disks cluster.Disks, id int32) (bool, error) {
	rules, err := disks.Throttles(ctx, id)
	if err != nil || len(rules) == 0 {
		return false, err
	}
	var errs []error
	for dir, d := range disks.LogDirs(id) {
		if d.SizeBytes == 0 {
			_, err := disks.Throttle(ctx, id, dir, 0)
			errs = append(errs, err)
		}
	}
	if left, err := disks.Throttles(ctx, id); err != nil || len(left) > 0 {
		errs = append(errs, fmt.Errorf("block I/O limits left: %v %v", left, err))
	}
	return true, errors.Join(errs...)
}

func (sp *DiskSlowParams) CheckAgainst(p string, _ *nemesis.Step, v *nemesis.ScenarioView, add nemesis.AddFunc) {
	checkDir(v, p, sp.Dir, add)
}
