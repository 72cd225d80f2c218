package harness

import (
	"io/fs"
	"path/filepath"

	"github.com/kchaos/kchaos/cluster"
)

// RemoteTierFile lists a tiered run's remote tier as the brokers left it
// (cluster.tiered): every file with its size, relative to the tier's root.
// Teardown removes the tier with the run's data, so the run folder keeps
// this account of what was copied there and what retention left.
const RemoteTierFile = "remote-tier.json"

// RemoteFile is one file of the remote tier.
type RemoteFile struct {
	Path string `json:"path"`
	Size int64  `json:"size"`
}

// remoteDirOf is a backend whose remote tier is a folder on this machine
// (the Docker backend's bind mount).
type remoteDirOf interface{ HostRemoteDir() string }

// writeRemoteTier writes RemoteTierFile into dir for a tiered cluster
// whose remote tier this machine can read; a cluster without one writes
// nothing.
func writeRemoteTier(c cluster.Cluster, dir string) error {
	rd, ok := c.(remoteDirOf)
	if !ok || c.Config().Tiered == nil {
		return nil
	}
	root := rd.HostRemoteDir()
	files := []RemoteFile{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		files = append(files, RemoteFile{Path: filepath.ToSlash(rel), Size: info.Size()})
		return nil
	})
	if err != nil {
		return err
	}
	return writeJSON(filepath.Join(dir, RemoteTierFile), files)
}
