package ssh

import (
	"strings"
	"unicode"
)

// quote makes s one word of a POSIX shell command: unchanged when it is
// plain, else in single quotes (a ' inside becomes '\”).
func quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("@%+=:,./_-", r)))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// join quotes every argument and joins them into one command line.
func join(args ...string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = quote(a)
	}
	return strings.Join(q, " ")
}

// selfSafe turns a process pattern into a regular expression that matches
// the same command lines but not itself: pkill -f kafka.Kafka run through
// sh or sudo would otherwise also match (and stop or kill) the shell or
// sudo whose own command line carries the pattern. The first letter goes
// into a bracket: "[k]afka.Kafka" matches "kafka.Kafka", not "[k]afka.Kafka".
func selfSafe(pattern string) string {
	for i, r := range pattern {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return pattern[:i] + "[" + string(r) + "]" + pattern[i+len(string(r)):]
		}
	}
	return pattern
}

// wrap is the command line the remote shell runs: through `sudo -n sh -c`
// when sudo is on, so every part of a script (redirections too) runs as root.
func wrap(script string, sudo bool) string {
	if !sudo {
		return script
	}
	return join("sudo", "-n", "sh", "-c", script)
}

// Signal names pkill accepts.
var signals = map[string]bool{"KILL": true, "TERM": true, "STOP": true, "CONT": true, "INT": true, "HUP": true}

// signalCmd sends sig to every process whose command line matches pattern.
// pkill exits 1 when nothing matched: that is not an error for a signal.
func signalCmd(sig, pattern string) string {
	return "pkill -" + sig + " -f " + quote(selfSafe(pattern)) + "; [ $? -le 1 ]"
}

// stateCmd prints one line per matching process: its pid and its state
// letter from /proc/<pid>/stat (T or t = stopped).
func stateCmd(pattern string) string {
	return "for p in $(pgrep -f " + quote(selfSafe(pattern)) + "); do " +
		"s=$(sed 's/.*) //' /proc/$p/stat 2>/dev/null | cut -c1) && echo \"$p $s\"; done; true"
}

// parseState reads stateCmd's output.
func parseState(out string) (running, paused bool) {
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		switch f[1] {
		case "Z", "X":
			continue
		case "T", "t":
			paused = true
		}
		running = true
	}
	return running, paused
}
