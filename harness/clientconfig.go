package harness

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/workloads"
)

// ClientConfigs are a service's own Java client settings
// (--producer-config, --consumer-config), read; nil for a flag not given.
type ClientConfigs struct {
	Producer, Consumer *workloads.ClientProps
}

// ReadClientConfigs reads the two files with the one properties parser
// (scenario.ReadProperties: bounded by bounds.InputFile, a line Java
// would refuse named as "FILE: line N"). "" is a flag not given. Errors
// are bad input naming the flag.
func ReadClientConfigs(producerFile, consumerFile string) (ClientConfigs, error) {
	var out ClientConfigs
	read := func(flag, file string, side workloads.ClientSide) (*workloads.ClientProps, error) {
		if file == "" {
			return nil, nil
		}
		m, err := scenario.ReadProperties(file)
		if err != nil {
			return nil, &scenario.BadInputError{Err: fmt.Errorf("%s %w", flag, err)}
		}
		return &workloads.ClientProps{Side: side, File: flag + " " + file, Props: m}, nil
	}
	var err error
	if out.Producer, err = read("--producer-config", producerFile, workloads.ProducerSide); err != nil {
		return out, err
	}
	out.Consumer, err = read("--consumer-config", consumerFile, workloads.ConsumerSide)
	return out, err
}

// empty reports whether no client file was given.
func (c ClientConfigs) empty() bool { return c.Producer == nil && c.Consumer == nil }

// ApplyClientConfigs applies the client files to s's workload, on top of
// its workload section; sets are the --set values s was loaded with, and
// a file's key whose workload field a --set names is left alone, so that
// a --set wins over both (the precedence docs/running.md states). Every
// problem of both files is bad input, each naming its file and key; the
// scenario is then validated as a whole.
func ApplyClientConfigs(s *scenario.Scenario, c ClientConfigs, sets []string) error {
	if c.empty() {
		return nil
	}
	setBy := setPaths(sets)
	var errs []error
	for _, p := range []*workloads.ClientProps{c.Producer, c.Consumer} {
		if p == nil {
			continue
		}
		if err := s.Workload.ApplyClientProps(*p, setBy); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return &scenario.BadInputError{Err: errors.Join(errs...)}
	}
	if err := s.Validate(); err != nil {
		return &scenario.BadInputError{Err: fmt.Errorf("%s with %s: %w", s.Name, c.sources(), err)}
	}
	return nil
}

// sources names the files given, for a message.
func (c ClientConfigs) sources() string {
	var out []string
	for _, p := range []*workloads.ClientProps{c.Producer, c.Consumer} {
		if p != nil {
			out = append(out, p.Source())
		}
	}
	return strings.Join(out, " and ")
}

// setPaths reports, for a path under workload (e.g. "acks",
// "group.commit", "producer_props.linger.ms"), whether a --set names it
// or a mapping that holds it ("workload.group=..." holds group.commit).
func setPaths(sets []string) func(string) bool {
	var named []string
	for _, s := range sets {
		k, _, _ := strings.Cut(s, "=")
		named = append(named, strings.TrimSpace(k))
	}
	return func(field string) bool {
		path := "workload." + field
		for _, n := range named {
			if path == n || strings.HasPrefix(path, n+".") {
				return true
			}
		}
		return false
	}
}
