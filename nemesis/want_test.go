package nemesis

import (
	"fmt"
	"strings"
	"testing"
)

// wantErr fails t unless err is nil when want is empty, or an error
// containing want otherwise: the check of every table of valid and
// refused inputs.
func wantErr(t *testing.T, err error, want string) {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Fatalf("want valid, got %v", err)
		}
		return
	}
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want %q", err, want)
	}
}

// wantResolved fails t unless Resolve returned the nodes want (as fmt
// prints them) or, with wantErr set, an error containing wantErr.
func wantResolved(t *testing.T, got []int32, err error, want, wantErrText string) {
	t.Helper()
	if wantErrText != "" {
		wantErr(t, err, wantErrText)
		return
	}
	if err != nil || fmt.Sprint(got) != want {
		t.Fatalf("got %v %v, want %s", got, err, want)
	}
}
