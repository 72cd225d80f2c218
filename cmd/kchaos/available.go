package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kchaos/kchaos/cluster"
)

// kafkaArtifact is the artifact the image is built from (image/pom.xml).
const kafkaArtifact = "org.apache.kafka:kafka_2.13"

// mvnCommand runs Maven; a test puts a stand-in here.
var mvnCommand = []string{"mvn"}

// availableTimeout bounds the Maven call (a registry that does not answer).
const availableTimeout = 5 * time.Minute

// availablePOM makes Maven resolve the range [MinVersion,) of the image's
// artifact. To pick the newest release in a range Maven fetches the
// artifact's maven-metadata.xml, the registry's list of its versions,
// from the repositories it is configured with: the route image/build.sh
// takes, through the same settings (a mirror included). The plugin is
// image/pom.xml's.
const availablePOM = `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>org.kchaos</groupId>
  <artifactId>kchaos-kafka-versions</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.kafka</groupId>
      <artifactId>kafka_2.13</artifactId>
      <version>[%s,)</version>
      <type>pom</type>
    </dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-dependency-plugin</artifactId>
        <version>3.6.1</version>
      </plugin>
    </plugins>
  </build>
</project>
`

// availableReleases lists the releases of Kafka from cluster.MinVersion on
// that the registry serves, oldest first, asked through Maven: Maven
// resolves the range (-U: the registry's metadata anew, not a cached
// copy), prints where the resolved pom lies in its local repository, and
// beside it is the metadata it fetched (maven-metadata-<repository>.xml;
// maven-metadata-local.xml lists local installs, not the registry's).
func availableReleases(ctx context.Context) ([]string, error) {
	dir, err := os.MkdirTemp("", "kchaos-available-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	pom, list := filepath.Join(dir, "pom.xml"), filepath.Join(dir, "resolved.txt")
	if err := os.WriteFile(pom, []byte(fmt.Sprintf(availablePOM, cluster.MinVersion)), 0o644); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, availableTimeout)
	defer cancel()
	args := append(slices.Clone(mvnCommand[1:]), "-B", "-q", "-U", "-f", pom, "dependency:list",
		"-DexcludeTransitive=true", "-DoutputAbsoluteArtifactFilename=true", "-DoutputFile="+list)
	cmd := exec.CommandContext(ctx, mvnCommand[0], args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("versions --available asks Maven, the image build's route (image/build.sh), and %s is not installed (apt-get install maven)", mvnCommand[0])
	}
	if err != nil {
		return nil, fmt.Errorf("Maven could not resolve %s:[%s,) (%v): %s", kafkaArtifact, cluster.MinVersion, err, lastLines(out, 12))
	}
	resolved, err := os.ReadFile(list)
	if err != nil {
		return nil, fmt.Errorf("Maven resolved %s but wrote no list: %v", kafkaArtifact, err)
	}
	pomPath, err := resolvedPath(resolved)
	if err != nil {
		return nil, err
	}
	return metadataReleases(filepath.Dir(filepath.Dir(pomPath)))
}

// resolvedPath finds the artifact's file in dependency:list's output
// (group:artifact:type:version:scope:path).
func resolvedPath(list []byte) (string, error) {
	sc := bufio.NewScanner(bytes.NewReader(list))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, kafkaArtifact+":pom:") {
			continue
		}
		if f := strings.SplitN(line, ":", 6); len(f) == 6 && filepath.IsAbs(f[5]) {
			return f[5], nil
		}
	}
	return "", fmt.Errorf("Maven's dependency list names no file of %s:\n%s", kafkaArtifact, list)
}

// metadataReleases reads the versions of every registry's
// maven-metadata-*.xml in the artifact's folder of the local repository:
// well-formed releases (X.Y.Z) from cluster.MinVersion on, oldest first.
func metadataReleases(artifactDir string) ([]string, error) {
	files, _ := filepath.Glob(filepath.Join(artifactDir, "maven-metadata-*.xml"))
	var (
		seen = map[cluster.Version]string{}
		read int
	)
	for _, f := range files {
		if filepath.Base(f) == "maven-metadata-local.xml" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var md struct {
			Versions []string `xml:"versioning>versions>version"`
		}
		if err := xml.Unmarshal(b, &md); err != nil {
			return nil, fmt.Errorf("%s: %v", f, err)
		}
		read++
		for _, s := range md.Versions {
			if v, err := cluster.ParseVersion(s); err == nil && !cluster.IsLocal(s) && !v.Less(cluster.MinVersion) {
				seen[v] = s
			}
		}
	}
	if read == 0 {
		return nil, fmt.Errorf("Maven resolved %s but left no registry metadata in %s", kafkaArtifact, artifactDir)
	}
	vs := make([]cluster.Version, 0, len(seen))
	for v := range seen {
		vs = append(vs, v)
	}
	slices.SortFunc(vs, func(a, b cluster.Version) int {
		if a.Less(b) {
			return -1
		}
		if b.Less(a) {
			return 1
		}
		return 0
	})
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = seen[v]
	}
	return out, nil
}

// lastLines is the end of a command's output, for a message.
func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
