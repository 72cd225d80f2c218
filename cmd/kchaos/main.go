// Command kchaos is the CLI of the kchaos fault-injection harness for Kafka.
// It only parses flags, prints, and maps outcomes to exit codes; everything
// a test would need lives in the packages.
//
// Exit codes (as Jepsen's): 0 valid, 1 invalid, 2 unknown, 254 bad
// arguments or input, 255 internal error.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/kchaos/kchaos/internal/bounds"
	// Every client driver package: workload.driver names them all.
	_ "github.com/kchaos/kchaos/workloads/drivers"
)

// Exit codes.
const (
	exitValid    = 0
	exitInvalid  = 1
	exitUnknown  = 2
	exitBadInput = 254
	exitInternal = 255
)

// exitCodesHelp is the exit codes as help lists them (one text for all).
var exitCodesHelp = fmt.Sprintf(`Exit codes (as Jepsen's):
  %3d  valid (suite: every cell matched; audit: nothing lost)
  %3d  invalid: an anomaly (acked records lost, offsets reused, ...)
  %3d  unknown: could not be judged (also: valid, but the nemesis schedule did
       not play out; an audit story or suite cell that did not run)
  %3d  bad input: a scenario, suite, history or flag, named in the message;
       nothing was started
  %3d  internal error`, exitValid, exitInvalid, exitUnknown, exitBadInput, exitInternal)

// exitError carries an exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

// badInput wraps err as bad input (exit 254).
func badInput(err error) error { return &exitError{code: exitBadInput, err: err} }

// internal wraps err as an internal error (exit 255).
func internal(err error) error { return &exitError{code: exitInternal, err: err} }

// withCode ends the command with code and no message.
func withCode(code int) error { return &exitError{code: code} }

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "kchaos",
		Short: "Jepsen-style fault injection for Apache Kafka",
		Long: `kchaos runs Kafka clusters in containers (or on your own hosts over SSH),
injects faults, records what clients saw and checks the history.

Start with 'kchaos scenarios' (the built-in stories), 'kchaos scenarios s2'
(one as YAML, to copy) and 'kchaos validate FILE' (check a scenario or suite
without starting anything). 'kchaos completion bash|zsh|fish' prints a shell
completion script that offers the built-in scenario and suite names.

` + exitCodesHelp,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return badInput(err) })
	registerOutput(root)
	// One flag layer for every command (flags.go).
	root.PersistentPreRunE = checkFlags
	for _, add := range subcommands {
		root.AddCommand(add())
	}
	strict(root)
	return root
}

// subcommands is filled by each command's file in its init.
var subcommands []func() *cobra.Command

func main() {
	err := newRoot().Execute()
	os.Exit(exitCode(err))
}

func exitCode(err error) int { return exitCodeTo(os.Stderr, err) }

// exitCodeTo writes err's message to w and returns its exit code.
func exitCodeTo(w io.Writer, err error) int {
	if err == nil {
		return exitValid
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil && ee.code == exitBadInput {
			// Bad input may quote the input: never more than a readable
			// part of one value.
			fmt.Fprintln(w, "kchaos:", bounds.CutWords(ee.err.Error()))
		} else if ee.err != nil {
			fmt.Fprintln(w, "kchaos:", ee.err)
		}
		return ee.code
	}
	fmt.Fprintln(w, "kchaos:", bounds.CutWords(err.Error()))
	// cobra reports unknown commands and bad arguments as plain errors.
	return exitBadInput
}
