package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"os"

	"gopkg.in/yaml.v3"

	sshb "github.com/kchaos/kchaos/cluster/ssh"
)

// bareHosts is a hosts file: the ssh part of a scenario's cluster section
// at the top level.
type bareHosts struct {
	Hosts    []sshb.Host   `yaml:"hosts"`
	SSH      *sshb.Auth    `yaml:"ssh"`
	Service  *sshb.Service `yaml:"service"`
	StateDir string        `yaml:"state_dir"`
}

// LoadHosts reads the SSH hosts of a scenario file (cluster.hosts, .ssh,
// .service) or of a hosts file (the same keys at the top level), validated.
// Both are decoded strictly: an unknown or misspelt key is an error with
// its line (a `known_host:` ignored would leave no host key check to make),
// and the key and known_hosts files must exist and be readable.
func LoadHosts(file string) (*sshb.Spec, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var top map[string]yaml.Node
	if err := yaml.Unmarshal(b, &top); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	spec := &sshb.Spec{}
	if _, ok := top["cluster"]; ok {
		s, err := parse(b, file, nil)
		if err != nil {
			return nil, err
		}
		c := s.Cluster
		spec.Hosts, spec.StateDir = c.Hosts, c.StateDir
		if c.SSH != nil {
			spec.SSH = *c.SSH
		}
		if c.Service != nil {
			spec.Service = *c.Service
		}
	} else {
		dec := yaml.NewDecoder(bytes.NewReader(b))
		dec.KnownFields(true)
		var hf bareHosts
		if err := dec.Decode(&hf); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		spec.Hosts, spec.StateDir = hf.Hosts, hf.StateDir
		if hf.SSH != nil {
			spec.SSH = *hf.SSH
		}
		if hf.Service != nil {
			spec.Service = *hf.Service
		}
	}
	spec.Defaults()
	errs := spec.Validate("cluster")
	errs = append(errs, spec.CheckFiles("cluster")...)
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s: %w", file, errors.Join(errs...))
	}
	return spec, nil
}
