package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kchaos/kchaos/harness"
)

// One flag layer for every command: the root's PersistentPreRunE runs
// checkFlags before any command's own work, so that what the root's flags
// and the folder flags mean is checked once, the same way everywhere
// (run, check, versions, validate, scenarios, merge, ...).

// folderFlags are the flags that name a folder kchaos writes into: blank
// is refused (it is not the default), and a folder kchaos could not make
// or write is refused before anything starts. --data names a folder
// kchaos only removes from: blank is refused.
var folderFlags = []string{"store", "out", "logs", "data"}

// checkFlags is every command's first step: --quiet with --verbose, an
// unknown --log-format, a blank folder flag, an unusable --store, --out
// or --logs, each 254 naming the flag.
func checkFlags(cmd *cobra.Command, _ []string) error {
	if output.quiet && output.verbose {
		return badInput(fmt.Errorf("--quiet and --verbose together: give one"))
	}
	if output.format != "text" && output.format != "json" {
		return badInput(fmt.Errorf("--log-format %q: want text or json", output.format))
	}
	for _, name := range folderFlags {
		f := cmd.Flags().Lookup(name)
		if f == nil || !f.Changed {
			continue
		}
		v := f.Value.String()
		if strings.TrimSpace(v) == "" {
			return badInput(fmt.Errorf("--%s %q: want a folder (leave the flag out for its default)", name, v))
		}
		if name == "data" {
			continue
		}
		if err := harness.CheckOutputDir("--"+name, v); err != nil {
			return badInput(err)
		}
	}
	return nil
}

// strict makes every command with subcommands refuse what it does not
// know: an unknown subcommand (cluster down), shell (completion tcsh) or
// help topic (help bogus) is 254 naming the valid choices, where cobra
// would print help and exit 0. Without arguments such a command prints
// its help.
func strict(root *cobra.Command) {
	root.AddCommand(completionCmd())
	root.SetHelpCommand(helpCmd(root))
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.HasSubCommands() && !c.Runnable() {
			c.Args = cobra.ArbitraryArgs
			c.RunE = func(cmd *cobra.Command, args []string) error {
				if len(args) == 0 {
					return cmd.Help()
				}
				return badInput(unknownChoice(cmd, "command", args[0], choices(cmd)))
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// unknownChoice is "unknown command "down" for "kchaos cluster": want
// up", with cobra's suggestion for a command when it has one.
func unknownChoice(c *cobra.Command, what, arg string, valid []string) error {
	msg := fmt.Sprintf("unknown %s %q for %q: want %s", what, arg, c.CommandPath(), strings.Join(valid, ", "))
	if what != "command" {
		return fmt.Errorf("%s", msg)
	}
	if c.SuggestionsMinimumDistance <= 0 {
		c.SuggestionsMinimumDistance = 2 // cobra's own default
	}
	if s := c.SuggestionsFor(arg); len(s) > 0 {
		msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(s, ", "))
	}
	return fmt.Errorf("%s", msg)
}

// choices are the names of c's available subcommands, sorted.
func choices(c *cobra.Command) []string {
	var out []string
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() || sub.Name() == "help" {
			out = append(out, sub.Name())
		}
	}
	slices.Sort(out)
	return out
}

// helpCmd is cobra's help command, but a topic it does not know is 254
// with the topics it does (cobra's prints the usage and exits 0).
func helpCmd(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Long:  "Help provides help for any command: kchaos help [path to command].",
		RunE: func(cmd *cobra.Command, args []string) error {
			target, rest, err := root.Find(args)
			switch {
			case err != nil:
				return badInput(fmt.Errorf("unknown help topic %q: want %s", strings.Join(args, " "), strings.Join(choices(root), ", ")))
			case len(rest) > 0 && target.HasSubCommands():
				return badInput(fmt.Errorf("unknown help topic %q: want %s", strings.Join(args, " "), strings.Join(choices(target), ", ")))
			}
			return target.Help()
		},
	}
}

// completionCmd is cobra's completion command as one command: a shell it
// does not know is 254 naming those it does (cobra's own prints its help
// and exits 0); the script goes to the command's output.
func completionCmd() *cobra.Command {
	var noDesc bool
	shells := map[string]func(root *cobra.Command, w io.Writer) error{
		"bash": func(r *cobra.Command, w io.Writer) error { return r.GenBashCompletionV2(w, !noDesc) },
		"fish": func(r *cobra.Command, w io.Writer) error { return r.GenFishCompletion(w, !noDesc) },
		"zsh": func(r *cobra.Command, w io.Writer) error {
			if noDesc {
				return r.GenZshCompletionNoDesc(w)
			}
			return r.GenZshCompletion(w)
		},
		"powershell": func(r *cobra.Command, w io.Writer) error {
			if noDesc {
				return r.GenPowerShellCompletion(w)
			}
			return r.GenPowerShellCompletionWithDesc(w)
		},
	}
	names := slices.Sorted(maps.Keys(shells))
	cmd := &cobra.Command{
		Use:   "completion bash|fish|powershell|zsh",
		Short: "Print the shell completion script for bash, fish, powershell or zsh",
		Long: `Print the completion script for a shell: it offers kchaos's commands, flags
and the built-in scenario and suite names. For bash:

	source <(kchaos completion bash)`,
		ValidArgs: names,
		Args:      cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 0:
				return cmd.Help()
			case len(args) > 1:
				return badInput(fmt.Errorf("completion: one shell, got %q", strings.Join(args, " ")))
			}
			gen, ok := shells[args[0]]
			if !ok {
				return badInput(unknownChoice(cmd, "shell", args[0], names))
			}
			return gen(cmd.Root(), cmd.OutOrStdout())
		},
	}
	cmd.Flags().BoolVar(&noDesc, "no-descriptions", false, "leave the completions' descriptions out")
	return cmd
}
