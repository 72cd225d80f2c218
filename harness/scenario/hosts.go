package scenario

import (
	"errors"
	"fmt"
	"os"

	"gopkg.in/yaml.v3"

	sshb "github.com/kchaos/kchaos/cluster/ssh"
)

// hostsFile is what `kchaos clean --hosts FILE` reads: a scenario (its
// cluster section) or a bare hosts file with the same keys at the top.
type hostsFile struct {
	Cluster *struct {
		Backend  string        `yaml:"backend"`
		Hosts    []sshb.Host   `yaml:"hosts"`
		SSH      *sshb.Auth    `yaml:"ssh"`
		Service  *sshb.Service `yaml:"service"`
		StateDir string        `yaml:"state_dir"`
	} `yaml:"cluster"`
	Hosts    []sshb.Host   `yaml:"hosts"`
	SSH      *sshb.Auth    `yaml:"ssh"`
	Service  *sshb.Service `yaml:"service"`
	StateDir string        `yaml:"state_dir"`
}

// LoadHosts reads the SSH hosts of a scenario file (cluster.hosts, .ssh,
// .service) or of a hosts file (the same keys at the top level), validated.
func LoadHosts(file string) (*sshb.Spec, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var hf hostsFile
	if err := yaml.Unmarshal(b, &hf); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	spec := &sshb.Spec{Hosts: hf.Hosts, StateDir: hf.StateDir}
	ssh, svc := hf.SSH, hf.Service
	if c := hf.Cluster; c != nil && len(c.Hosts) > 0 {
		spec.Hosts, spec.StateDir, ssh, svc = c.Hosts, c.StateDir, c.SSH, c.Service
	}
	if ssh != nil {
		spec.SSH = *ssh
	}
	if svc != nil {
		spec.Service = *svc
	}
	spec.Defaults()
	if errs := spec.Validate("cluster"); len(errs) > 0 {
		return nil, fmt.Errorf("%s: %w", file, errors.Join(errs...))
	}
	return spec, nil
}
