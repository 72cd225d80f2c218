package harness

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// DefaultStore is where runs are kept: store/<scenario>/<timestamp>/.
const DefaultStore = "store"

// newRunDir makes store/<name>/<timestamp>/ and points store/latest at it.
func newRunDir(store, name string) (string, error) {
	if store == "" {
		store = DefaultStore
	}
	stamp := time.Now().UTC().Format("20060102T150405.000Z")
	rel := filepath.Join(name, stamp)
	dir := filepath.Join(store, rel)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("store: %w", err)
	}
	latest := filepath.Join(store, "latest")
	tmp := latest + ".tmp"
	_ = os.Remove(tmp)
	if err := os.Symlink(rel, tmp); err == nil {
		if err := os.Rename(tmp, latest); err != nil {
			_ = os.Remove(tmp)
		}
	}
	return dir, nil
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
