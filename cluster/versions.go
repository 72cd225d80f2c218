package cluster

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Releases is the newest patch of every Kafka line kchaos knows, oldest
// first: the ones Maven Central served on 2026-12-05 (`kchaos versions
// --available`, which asks Maven). `make image KAFKA_VERSION=V` builds
// each. It is a floor, not a fence: "X.Y.x" and "latest" resolve over it,
// and any other well-formed release from MinVersion on is accepted and
// resolved by the image build (docs/validation.md, "Kafka versions").
var Releases = []string{"3.9.2", "4.0.2", "4.1.2", "4.2.2", "4.3.2", "4.4.0"}

// MinVersion is the oldest release kchaos runs: 3.9, the first line whose
// KRaft kchaos drives (and the first with production tiered storage).
var MinVersion = Version{3, 9, 0}

// LocalPrefix names a local build: "local:4.5.0-SNAPSHOT" runs the image
// kchaos/kafka:4.5.0-SNAPSHOT that its user built (image/build.sh
// 4.5.0-SNAPSHOT resolves the jars from the local Maven repository too).
const LocalPrefix = "local:"

// VersionForms is the grammar, as every message about a version says it.
const VersionForms = "X.Y.Z, X.Y.x, latest or local:NAME"

// The grammar, in one place. A number has no leading zero and no sign.
var (
	releaseRE = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$`)
	lineRE    = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.x$`)
	// A local build's name is the release it builds and a suffix, as a
	// Docker tag allows (at most 128 characters): the release gives its
	// features (ELR, share groups, ...), the suffix keeps its image apart
	// from the release's own.
	localRE = regexp.MustCompile(`^((0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*))-[A-Za-z0-9_.-]+$`)
)

// localName reports whether name is a local build's name (after
// "local:").
func localName(name string) bool { return len(name) <= 128 && localRE.MatchString(name) }

// notAVersion is the message for anything outside the grammar.
func notAVersion(s string) error {
	return fmt.Errorf("%q is not a Kafka version (want %s)", s, VersionForms)
}

// ResolveVersion checks s against the grammar and turns it into the
// version a cluster runs:
//
//   - "X.Y.Z": a release, as is; from MinVersion on, whether kchaos lists
//     it or not (the image build resolves it from Maven Central: a patch
//     or line newer than Releases needs no change to kchaos);
//   - "X.Y.x": the newest patch of the line in Releases;
//   - "latest": the newest of Releases;
//   - "local:NAME": a local build, as is (NAME is X.Y.Z-SUFFIX, the image
//     kchaos/kafka:NAME).
//
// Anything else ("4.4", "04.04.00", "4.4.0-rc1", "3.9.2-4.4.0") is refused
// with the valid forms.
func ResolveVersion(s string) (string, error) {
	switch {
	case s == "latest":
		return Releases[len(Releases)-1], nil
	case lineRE.MatchString(s):
		line := strings.TrimSuffix(s, ".x")
		for i := len(Releases) - 1; i >= 0; i-- {
			if strings.HasPrefix(Releases[i], line+".") {
				return Releases[i], nil
			}
		}
		return "", fmt.Errorf("%q: kchaos knows no %s release (X.Y.x picks the newest patch of a line kchaos lists: %s; name a release X.Y.Z to run another)",
			s, line, knownLines())
	case releaseRE.MatchString(s), IsLocal(s) && localName(strings.TrimPrefix(s, LocalPrefix)):
		v, _ := ParseVersion(s)
		if v.Less(MinVersion) {
			return "", fmt.Errorf("%q: kchaos supports %d.%d and later", s, MinVersion.Major, MinVersion.Minor)
		}
		return s, nil
	case IsLocal(s):
		return "", fmt.Errorf("%q: a local build is local:X.Y.Z-SUFFIX, the image kchaos/kafka:X.Y.Z-SUFFIX you built (e.g. local:4.5.0-SNAPSHOT; SUFFIX of letters, digits, '.', '_', '-')", s)
	}
	return "", notAVersion(s)
}

// ResolveVersions resolves a list of versions (a --kafka list, a suite's
// kafka:) and refuses two that resolve to one version ("latest" and
// 4.4.0; "4.4.x" and 4.4.0): the same cells would run twice. label(i)
// names element i in messages ("--kafka", "kafka[1]"). Every problem is
// reported.
func ResolveVersions(list []string, label func(i int) string) ([]string, error) {
	var (
		out  []string
		errs []error
	)
	first := map[string]int{}
	for i, s := range list {
		r, err := ResolveVersion(s)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", label(i), err))
			continue
		}
		if j, dup := first[r]; dup {
			errs = append(errs, fmt.Errorf("%s: %q is %s, as %q (%s) is: give each version once (use --runs for repeats)",
				label(i), s, r, list[j], label(j)))
			continue
		}
		first[r] = i
		out = append(out, r)
	}
	return out, errors.Join(errs...)
}

// ParseVersion reads a resolved version, "X.Y.Z" or a local build
// "local:X.Y.Z-SUFFIX" (the release it builds), for its features.
func ParseVersion(s string) (Version, error) {
	core := s
	if name, ok := strings.CutPrefix(s, LocalPrefix); ok && localName(name) {
		core, _, _ = strings.Cut(name, "-")
	}
	m := releaseRE.FindStringSubmatch(core)
	if m == nil {
		return Version{}, notAVersion(s)
	}
	var n [3]int
	for i := range n {
		n[i], _ = strconv.Atoi(m[i+1])
	}
	return Version{n[0], n[1], n[2]}, nil
}

// IsLocal reports whether v names a local build.
func IsLocal(v string) bool { return strings.HasPrefix(v, LocalPrefix) }

// ImageTag is the tag of version v's image: the release, or a local
// build's NAME.
func ImageTag(v string) string { return strings.TrimPrefix(v, LocalPrefix) }

// Image is version v's Kafka image (image/build.sh builds it).
func Image(v string) string { return "kchaos/kafka:" + ImageTag(v) }

// knownLines is "3.9.x, 4.0.x, ..." for messages.
func knownLines() string {
	var lines []string
	for _, r := range Releases {
		v, _ := ParseVersion(r)
		lines = append(lines, fmt.Sprintf("%d.%d.x", v.Major, v.Minor))
	}
	return strings.Join(lines, ", ")
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
//
// A release newer than every line kchaos lists is taken to have the newest
// line's features.
func (v Version) strictListConfigs() bool { return !v.Less(Version{4, 2, 0}) }
