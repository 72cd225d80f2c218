package workloadstest

import (
	"bytes"
	"testing"

	"github.com/kchaos/kchaos/histories"
)

// ReadBack closes the recorder and reads the history it wrote to buf with
// the histories reader: what a checker would see. The unit tests of the
// seam and of the driver packages read their in-memory histories so.
func ReadBack(t testing.TB, rec *histories.Recorder, buf *bytes.Buffer) []histories.Event {
	t.Helper()
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	evs, torn, err := histories.ReadAll(bytes.NewReader(buf.Bytes()))
	if err != nil || torn {
		t.Fatalf("read back: %v (torn %v)", err, torn)
	}
	return evs
}
