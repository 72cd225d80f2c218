# kchaos: the few commands a person types. See README.md.
SCENARIO      ?= s1
GO            ?= go
export TESTCONTAINERS_RYUK_DISABLED := true

# The Kafka version: KAFKA_VERSION=V, else the one kchaos runs when none is
# given, asked of kchaos itself (cluster.Releases is the only list of
# releases; none is written here). Asked only by the targets that use it.
VERSION = $(or $(KAFKA_VERSION),$(shell $(GO) run ./cmd/kchaos versions --default))
# The integration tests take KAFKA_VERSION when it is given; without it
# they run the same default.
ifdef KAFKA_VERSION
export KCHAOS_KAFKA_VERSION := $(KAFKA_VERSION)
endif

BIN := bin/kchaos

.PHONY: all build docker image upgrade-images sshhost-image run test test-short test-scenarios bench vet chromium clean distclean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/kchaos

# The Docker engine: a no-op where one already answers.
docker:
	@scripts/docker-up.sh

# The Kafka image, built offline and only when missing.
image: docker
	@image/build.sh $(VERSION)

# The releases the upgrade scenarios u1, u2 start from and end on, as the
# scenarios themselves name them (kchaos versions).
upgrade-images: docker build
	@for v in $$($(BIN) versions u1 u2); do image/build.sh $$v || exit 1; done

# The SSH backend's test host image (Kafka image + openssh-server), only when missing.
sshhost-image: image
	@image/sshhost/build.sh $(VERSION)

# Debian's Chromium, for the report's headless-browser test and screenshot.
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "installing Debian's chromium" >&2; \
	  DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

# Main job: set everything up, then run the default scenario.
run: image chromium build
	$(BIN) run $(SCENARIO) --kafka $(VERSION)

# Both builds: the unit tests' and the integration tests' (build tag).
vet:
	$(GO) vet ./...
	$(GO) vet -tags integration ./...

# Unit tests only: no Docker, no Kafka image, no browser (what plain
# `go test ./...` runs).
test-short: vet
	$(GO) test -count=1 ./...

# Everything the default CI run needs: unit tests, then the integration tests
# (build tag `integration`) on real clusters, one package at a time (2 cores),
# including one representative per story family (docs/testing.md); the rest
# run under make test-scenarios, to keep make test under 45 minutes. Under
# the tag a missing Docker engine fails the run (internal/testenv).
test: vet image upgrade-images chromium
	$(GO) test -count=1 ./...
	$(GO) test -tags integration -count=1 -p 1 -timeout 35m ./...

# Every built-in scenario on real clusters (the thirteen seeds and the rest,
# every group variant), and the group workload variants make test skips.
test-scenarios: image upgrade-images chromium
	@image/build.sh 4.3.1   # TestScenarioR1Affected: a release without KAFKA-20732's fix
	KCHAOS_ALL_SCENARIOS=1 $(GO) test -tags integration -count=1 -p 1 -timeout 80m -run 'TestScenario|TestUpgrade|TestSSHScenario' -v ./harness/...
	KCHAOS_ALL_SCENARIOS=1 $(GO) test -tags integration -count=1 -p 1 -timeout 20m -run 'TestGroupWorkload|TestJavaGroupWorkload|TestJavaMetaAdmin' -v ./workloads ./workloads/metadata

# Speed and memory targets (Go benchmarks; the cluster, workload and suite
# benchmarks need Docker, so they sit behind the integration tag).
# BenchmarkProduce gives each driver's acked sends/s and recording overhead
# in one run, the java driver's beside franz-go's (skipped without a JDK).
# One package at a time (-p 1): several benchmarks start a cluster, and
# two clusters on two cores would measure each other.
bench: image
	$(GO) test -tags integration -p 1 -run '^$$' -bench . -benchmem -timeout 30m ./...

clean:
	rm -rf bin
	-$(BIN) clean 2>/dev/null || $(GO) run ./cmd/kchaos clean

distclean: clean
	rm -rf store image/target
