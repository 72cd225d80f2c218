package cluster

import (
	"context"
	"io"
	"net/netip"
	"time"
)

// ClientRunner is implemented by backends that run a client program in
// the cluster's own environment, beside the brokers, rather than on the
// kchaos host: on Docker, a container of the run's own on the run's
// network, from the run's Kafka image (it has the JRE), labelled with
// the run id so that the teardown and `kchaos clean` remove it. The Java
// driver runs its JVMs through it (workloads.Config.Runner); a backend
// without it (SSH) leaves them on the kchaos host.
//
// The program speaks on its standard streams, which stay attached to the
// kchaos process: what it writes reaches kchaos as it writes it, so a
// history stamped by kchaos as its lines arrive keeps one clock.
type ClientRunner interface {
	RunClient(ctx context.Context, spec ClientSpec) (ClientProc, error)
}

// ClientSpec is a client program to run.
type ClientSpec struct {
	// Name tells the client apart in names and logs ("java"); the backend
	// makes it unique.
	Name string
	// Dir is a host folder the program needs (the driver's build), made
	// visible read-only at MountDir.
	Dir, MountDir string
	// Cmd is the program and its arguments (paths under MountDir).
	Cmd []string
	// Stderr receives the program's standard error (nil: dropped).
	Stderr io.Writer
}

// ClientProc is a running client program.
type ClientProc interface {
	// Stdin is the program's standard input; closing it is the
	// program's end of input (EOF).
	Stdin() io.WriteCloser
	// Stdout is its standard output, which ends when the program ends.
	Stdout() io.Reader
	// Addr is the program's own address on the cluster's network: where
	// its connections come from, as the nodes see them.
	Addr() netip.Addr
	// Kill ends the program at once (SIGKILL), as a crashed process ends.
	Kill(ctx context.Context) error
	// Wait waits for the program to end, at most limit (then it kills
	// it), and releases what the backend holds for it (the container).
	Wait(limit time.Duration) error
}
