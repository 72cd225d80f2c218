package histories

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestRunInfoRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		info RunInfo
	}{
		{"zero", RunInfo{}},
		{"full", RunInfo{
			Scenario: "S2-lose-unflushed", Started: time.Date(2026, 12, 1, 10, 46, 55, 912345678, time.UTC), Seed: -7, KafkaVersion: "4.1.0", ELR: true,
			Topic: "kchaos", Partitions: 3, Replication: 3,
			Description: "d", Expect: "zero loss",
			TopicConfigs: map[string]string{"min.insync.replicas": "2", "unclean.leader.election.enable": "false"},
			TopicConfigSources: map[string]string{"min.insync.replicas": ConfigSourceTopic,
				"unclean.leader.election.enable": ConfigSourceDefault},
			BrokerConfigs:     map[int32]map[string]string{1: {"num.io.threads": "2"}, 2: {"num.io.threads": "4"}},
			ControllerConfigs: map[int32]map[string]string{101: {"unclean.leader.election.interval.ms": "1000"}},
			Producer:          ProducerInfo{Driver: "franz-go", Acks: "all", Idempotent: true, Retries: 5},
			Brokers:           []BrokerInfo{{ID: 1, Rack: "a", Address: "kafka-1:9092"}, {ID: 2}},
			Controllers:       []int32{101, 102, 103},
		}},
		{"acks=0, not idempotent", RunInfo{Producer: ProducerInfo{Acks: "0"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), RunInfoFile)
			if err := WriteRunInfo(path, tc.info); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(b) || !strings.HasSuffix(string(b), "}\n") {
				t.Fatalf("run.json is not one JSON object and a newline: %q", b)
			}
			// The checker must be able to tell "not idempotent" from
			// "not recorded": the producer's idempotence is always written.
			if !strings.Contains(string(b), `"idempotent": `) {
				t.Fatalf("idempotent not written: %s", b)
			}
			// An unknown start is left out, not written as year 1.
			if tc.info.Started.IsZero() == strings.Contains(string(b), `"started"`) {
				t.Fatalf("started written %v for %v: %s", strings.Contains(string(b), `"started"`), tc.info.Started, b)
			}
			got, err := ReadRunInfo(path)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.info) {
				t.Fatalf("read %+v\nwrote %+v", got, tc.info)
			}
		})
	}
}

func TestReadRunInfoErrors(t *testing.T) {
	for _, tc := range []struct{ name, content string }{
		{"empty", ""},
		{"not JSON", "scenario: S1\n"},
		{"truncated", `{"scenario":"S1","producer":{"idem`},
		{"wrong type", `{"producer":{"idempotent":"yes"}}`},
		{"array", `[]`},
		{"trailing garbage", `{"scenario":"S1"} {}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), RunInfoFile)
			if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ReadRunInfo(path)
			if err == nil {
				t.Fatalf("ReadRunInfo(%q) succeeded", tc.content)
			}
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("error %q does not name the file", err)
			}
		})
	}
	if _, err := ReadRunInfo(filepath.Join(t.TempDir(), "missing.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	if err := WriteRunInfo(filepath.Join(t.TempDir(), "no", "such", "dir", RunInfoFile), RunInfo{}); err == nil {
		t.Fatal("WriteRunInfo into a missing directory succeeded")
	}
}
