package scenario

import (
	"bytes"
	"errors"
	"fmt"

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
	b, err := ReadInput(file, "hosts")
	if err != nil {
		return nil, err
	}
	doc, err := ParseYAML(b, file)
	if err != nil {
		return nil, err
	}
	spec := &sshb.Spec{}
	if hasKey(doc.Content[0], "cluster") {
		s, err := parse(b, file, nil, true)
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
			o := &origins{lines: true}
			return nil, o.translate(err, file, doc, b)
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

// hasKey reports whether the mapping m has key.
func hasKey(m *yaml.Node, key string) bool {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return true
		}
	}
	return false
}
