package main

import (
	"context"
	"os"

	"github.com/spf13/cobra"

	"github.com/kchaos/kchaos/cluster/docker"
	"github.com/kchaos/kchaos/harness/progress"
	"github.com/kchaos/kchaos/harness/shutdown"
)

// output holds the root's --quiet, --verbose and --log-format.
var output struct {
	quiet, verbose bool
	format         string
}

func registerOutput(root *cobra.Command) {
	pf := root.PersistentFlags()
	pf.BoolVarP(&output.quiet, "quiet", "q", false, "print only warnings, errors and the outcome")
	pf.BoolVarP(&output.verbose, "verbose", "v", false, "print every log line (testcontainers' included) as plain lines")
	pf.StringVar(&output.format, "log-format", "text", "text or json (progress and log lines as JSON records on stderr)")
}

// printer is the progress and log printer the output flags ask for; it
// also routes testcontainers' own log lines (debug: --verbose only). The
// flags were checked by the flag layer (checkFlags), for every command.
func printer() *progress.Printer {
	o := progress.Options{JSON: output.format == "json"}
	switch {
	case output.quiet:
		o.Verbosity = progress.Quiet
	case output.verbose:
		o.Verbosity = progress.Verbose
	}
	p := progress.NewPrinter(os.Stderr, o)
	docker.SetLog(p.Logger())
	return p
}

// session is what every command that starts a cluster runs in: the
// printer, and a shutdown that turns SIGINT, SIGTERM and SIGHUP into an
// orderly one (and keeps a dead stdout from killing kchaos).
func session(body func(ctx context.Context, p *progress.Printer) error) error {
	return sessionWith(shutdown.Options{}, body)
}

// sessionGuard, when set (by tests), is asked before any session starts
// and before any SSH host is contacted: a test of bad input sets it to
// fail, proving that no cluster, network or connection was made.
var sessionGuard func() error

func sessionWith(o shutdown.Options, body func(ctx context.Context, p *progress.Printer) error) error {
	if sessionGuard != nil {
		if err := sessionGuard(); err != nil {
			return err
		}
	}
	p := printer()
	sd := shutdown.Start(context.Background(), o)
	defer sd.Stop()
	err := body(sd.Context(), p)
	p.Finish()
	return err
}
