package progress

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Verbosity is how much a Printer shows.
type Verbosity int

const (
	// Normal: the progress lines and warnings.
	Normal Verbosity = iota
	// Quiet: warnings and errors only.
	Quiet
	// Verbose: plain progress lines and every log line, down to debug
	// (testcontainers' own lines included).
	Verbose
)

// Options tune a Printer.
type Options struct {
	Verbosity Verbosity
	// JSON writes events and log lines as JSON records, one a line.
	JSON bool
	// Terminal redraws the phase lines in place; default: whether the
	// writer is a character device.
	Terminal *bool
}

// Printer renders events and log lines on one writer (stderr). Write
// errors are ignored: a dead terminal must not stop a shutdown.
type Printer struct {
	w    io.Writer
	o    Options
	tty  bool
	json slog.Handler

	mu    sync.Mutex
	lines []line // every phase line so far (terminal mode)
	top   int    // first line that may still be redrawn
	drawn int    // lines drawn from top
	begin time.Time
}

type line struct {
	phase Phase
	text  string
	done  bool
}

// NewPrinter renders on w.
func NewPrinter(w io.Writer, o Options) *Printer {
	p := &Printer{w: w, o: o, begin: time.Now()}
	if o.Terminal != nil {
		p.tty = *o.Terminal
	} else if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil {
			p.tty = st.Mode()&os.ModeCharDevice != 0
		}
	}
	if o.Verbosity == Verbose || o.JSON {
		p.tty = false
	}
	if o.JSON {
		p.json = slog.NewJSONHandler(lockedWriter{p}, &slog.HandlerOptions{Level: p.level()})
	}
	return p
}

func (p *Printer) level() slog.Level {
	switch p.o.Verbosity {
	case Quiet:
		return slog.LevelWarn
	case Verbose:
		return slog.LevelDebug
	}
	if p.o.JSON {
		return slog.LevelInfo
	}
	return slog.LevelWarn
}

// Event shows e.
func (p *Printer) Event(e Event) {
	if p.o.Verbosity == Quiet {
		return
	}
	if p.o.JSON {
		attrs := []any{"phase", string(e.Phase), "text", e.Text}
		if e.Done {
			attrs = append(attrs, "done", true)
		}
		if e.Failed {
			attrs = append(attrs, "failed", true)
		}
		if e.Steps > 0 {
			attrs = append(attrs, "step", e.Step, "steps", e.Steps)
		}
		if st := e.Stats; st != nil {
			attrs = append(attrs, "elapsed_s", st.Elapsed.Seconds(), "ops_per_s", st.OpsPerSec,
				"acked", st.Acked, "failed_sends", st.Failed, "indeterminate", st.Indeterminate, "errors", st.Errors)
			if st.Txns > 0 {
				attrs = append(attrs, "txn_committed", st.TxnCommitted, "txn_aborted", st.TxnAborted, "txn_unknown", st.TxnUnknown,
					"txn_crashes", st.TxnCrashes, "txn_fenced", st.TxnFenced)
			}
		}
		r := slog.NewRecord(time.Now(), slog.LevelInfo, "progress", 0)
		r.Add(attrs...)
		_ = p.json.Handle(context.Background(), r)
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	text := e.line()
	if !p.tty {
		p.write(fmt.Sprintf("[%6.1fs] %s\n", time.Since(p.begin).Seconds(), text))
		return
	}
	i := len(p.lines) - 1
	for ; i >= p.top; i-- {
		if p.lines[i].phase == e.Phase {
			break
		}
	}
	if i < p.top {
		p.lines = append(p.lines, line{phase: e.Phase})
		i = len(p.lines) - 1
	}
	p.lines[i].text, p.lines[i].done = text, e.Done
	p.redraw()
}

// redraw rewrites the lines from top, then commits the finished ones at
// the top (they are never drawn again). Called with mu held.
func (p *Printer) redraw() {
	var b strings.Builder
	b.WriteString("\r")
	if p.drawn > 1 {
		fmt.Fprintf(&b, "\x1b[%dA", p.drawn-1)
	}
	width := termWidth(p.w)
	for i := p.top; i < len(p.lines); i++ {
		if i > p.top {
			b.WriteString("\n")
		}
		b.WriteString("\x1b[K")
		b.WriteString(clip(p.lines[i].text, width))
	}
	p.drawn = len(p.lines) - p.top
	for p.top < len(p.lines) && p.lines[p.top].done {
		p.top++
		p.drawn--
	}
	if p.drawn == 0 {
		b.WriteString("\n")
	}
	p.write(b.String())
}

// clear removes the live lines so a log line can be printed; mu held.
func (p *Printer) clear() {
	if !p.tty || p.drawn == 0 {
		return
	}
	var b strings.Builder
	b.WriteString("\r")
	if p.drawn > 1 {
		fmt.Fprintf(&b, "\x1b[%dA", p.drawn-1)
	}
	b.WriteString("\x1b[J")
	p.write(b.String())
	p.drawn = 0
}

// Finish ends the live lines (before the command prints its summary).
func (p *Printer) Finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && p.drawn > 0 {
		p.write("\n")
		p.top, p.drawn = len(p.lines), 0
	}
}

func (p *Printer) write(s string) { _, _ = io.WriteString(p.w, s) }

// lockedWriter writes a log line between the live lines.
type lockedWriter struct{ p *Printer }

func (l lockedWriter) Write(b []byte) (int, error) {
	p := l.p
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	p.write(string(b))
	if p.tty && p.top < len(p.lines) {
		p.redraw()
	}
	return len(b), nil
}

func clip(s string, width int) string {
	if width <= 1 || len([]rune(s)) < width {
		return s
	}
	r := []rune(s)
	return string(r[:width-2]) + "…"
}

func termWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ); err == nil && ws.Col > 0 {
			return int(ws.Col)
		}
	}
	return 100
}

// Logger is the log to hand to the harness: at the verbosity's level, as
// JSON or as readable lines ("warning: nemesis schedule: err ..."), printed
// between the live lines.
func (p *Printer) Logger() *slog.Logger {
	if p.o.JSON {
		return slog.New(p.json)
	}
	return slog.New(&textHandler{w: lockedWriter{p}, level: p.level()})
}

// textHandler writes "level: message: key value, key value" with every
// value Readable (no Go map syntax).
type textHandler struct {
	w     io.Writer
	level slog.Level
	attrs []slog.Attr
	group string
}

func (h *textHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level }

func (h *textHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	switch {
	case r.Level >= slog.LevelError:
		b.WriteString("error: ")
	case r.Level >= slog.LevelWarn:
		b.WriteString("warning: ")
	case r.Level < slog.LevelInfo:
		b.WriteString("debug: ")
	}
	b.WriteString(r.Message)
	var parts []string
	add := func(a slog.Attr) bool {
		if a.Key != "" {
			k := a.Key
			if h.group != "" {
				k = h.group + "." + k
			}
			parts = append(parts, k+" "+Readable(a.Value.Resolve().Any()))
		}
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	if len(parts) > 0 {
		b.WriteString(": ")
		b.WriteString(strings.Join(parts, ", "))
	}
	b.WriteString("\n")
	_, _ = io.WriteString(h.w, b.String())
	return nil
}

func (h *textHandler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(append([]slog.Attr{}, h.attrs...), as...)
	return &c
}

func (h *textHandler) WithGroup(name string) slog.Handler {
	c := *h
	if c.group != "" {
		name = c.group + "." + name
	}
	c.group = name
	return &c
}
