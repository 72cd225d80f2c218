package histories

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/internal/bounds"
)

// zeros is n bytes of '0' and then end, without holding them.
type zeros struct {
	n   int
	end string
}

func (z *zeros) Read(p []byte) (int, error) {
	if z.n == 0 {
		if z.end == "" {
			return 0, io.EOF
		}
		n := copy(p, z.end)
		z.end = z.end[n:]
		return n, nil
	}
	n := min(len(p), z.n)
	for i := range n {
		p[i] = '0'
	}
	z.n -= n
	return n, nil
}

// TestLineBound: a line over bounds.HistoryLine is a LineError naming it,
// newline or not; a line longer than the Reader's buffer but within the
// bound reads whole.
func TestLineBound(t *testing.T) {
	ok := `{"index":0,"time":0,"process":0,"type":"invoke","f":"send","value":{"v":"`
	long := strings.Repeat("x", 1<<20)
	for _, c := range []struct {
		name string
		r    io.Reader
		line int
		err  string
	}{
		{"over the bound", io.MultiReader(strings.NewReader(ok+`"}}`+"\n"), &zeros{n: bounds.HistoryLine + 1, end: "\n"}), 2, "longer than 256 MiB"},
		{"over the bound, no newline", &zeros{n: bounds.HistoryLine + 10}, 1, "longer than 256 MiB"},
		{"a long line within", strings.NewReader(ok + long + `"}}` + "\n"), 0, ""},
	} {
		rd := NewReader(c.r)
		var err error
		for err == nil {
			_, err = rd.Next()
		}
		var le *LineError
		switch {
		case c.err == "" && !errors.Is(err, io.EOF):
			t.Errorf("%s: %v", c.name, err)
		case c.err != "" && (!errors.As(err, &le) || le.Line != c.line || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: %v, want line %d: %s", c.name, err, c.line, c.err)
		}
	}
}
