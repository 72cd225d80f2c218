package cluster

import (
	"fmt"
	"strings"
)

// Releases is the newest patch of every Kafka line kchaos knows, oldest
// first: the ones Maven Central served on 2026-12-01 (checked with
// `mvn dependency:get -Dartifact=org.apache.kafka:kafka_2.13:V`; the next
// patch of each was refused). `make image KAFKA_VERSION=V` builds each.
var Releases = []string{"3.9.2", "4.0.2", "4.1.2", "4.2.2", "4.3.1", "4.4.0"}

// ResolveVersion turns "4.1.x" into the newest 4.1 patch in Releases and
// "latest" into the newest release; a full version passes through.
func ResolveVersion(v string) (string, error) {
	v = strings.TrimSpace(v)
	if v == "latest" {
		return Releases[len(Releases)-1], nil
	}
	if line, ok := strings.CutSuffix(v, ".x"); ok {
		for i := len(Releases) - 1; i >= 0; i-- {
			if strings.HasPrefix(Releases[i], line+".") {
				return Releases[i], nil
			}
		}
		return "", fmt.Errorf("kafka %q: kchaos knows no %s release (known: %s)", v, line, strings.Join(Releases, ", "))
	}
	if err := KnownVersion(v); err != nil {
		return "", err
	}
	return v, nil
}

// KnownVersion refuses a version that is not a release of a line kchaos
// knows (Releases): 9.9.9 or 4.1.7 would otherwise pass every check and
// fail only when its image is missing, after a matrix or suite had run
// its good versions first. Earlier patches of a known line (4.1.0) are
// releases and pass; a suffix after '-' (a local build) is ignored.
func KnownVersion(s string) error {
	v, err := ParseVersion(s)
	if err != nil {
		return fmt.Errorf("kafka %v", err)
	}
	for _, r := range Releases {
		newest, _ := ParseVersion(r)
		if newest.Major == v.Major && newest.Minor == v.Minor && !newest.Less(v) {
			return nil
		}
	}
	return fmt.Errorf("kafka %q: not a release kchaos knows (known: %s, or an earlier patch of one of their lines; 4.1.x and latest also work)",
		s, strings.Join(Releases, ", "))
}

// Version facts kchaos depends on, each with where it was checked.
//
//   - HasELR: the eligible.leader.replicas.version feature exists from 4.0
//     (KIP-966; kafka-storage --feature eligible.leader.replicas.version=1).
//   - ELRDefault: ELR is on by default only for clusters created on 4.1+
//     (Kafka 4.1 upgrade notes); an in-place upgrade keeps it off until the
//     feature level is raised.
//   - HasConsumerProtocol: the KIP-848 consumer group protocol from 4.0.
//   - With ELR on, a broker-level min.insync.replicas is refused and the
//     cluster-level value is used (KIP-966; ConfigurationControlManager).
//   - StrictListConfigs: from 4.2, list-type configs are validated strictly
//     (KIP-1161), so a line of a user's server.properties that 4.1 took can
//     be refused at start; the start error names the key (NodeStartError
//     quotes Kafka's ConfigException).
func (v Version) StrictListConfigs() bool { return !v.Less(Version{4, 2, 0}) }
