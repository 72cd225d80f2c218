package docker

import (
	"fmt"
	"log/slog"
	"strings"

	tclog "github.com/testcontainers/testcontainers-go/log"
)

// SetLog sends testcontainers-go's own log lines (container created,
// Docker host details, ...) to l at debug level instead of stderr; nil
// drops them. It is process-wide, as testcontainers' logger is.
func SetLog(l *slog.Logger) {
	if l == nil {
		tclog.SetDefault(tclog.NewNoopLogger())
		return
	}
	tclog.SetDefault(tcLogger{l})
}

type tcLogger struct{ l *slog.Logger }

func (t tcLogger) Printf(format string, v ...any) {
	t.l.Debug("testcontainers: " + strings.TrimSpace(fmt.Sprintf(format, v...)))
}
