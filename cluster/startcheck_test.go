package cluster

import (
	"strings"
	"testing"
)

func TestStartHint(t *testing.T) {
	tail := "ERROR Exiting Kafka due to fatal exception\norg.apache.kafka.common.config.ConfigException: Configuration 'ssl.cipher.suites' values must not be empty."
	for _, tc := range []struct {
		version, tail, want string
	}{
		{"4.4.0", tail, "Kafka 4.4.0 refused ssl.cipher.suites, a list-type config, with an empty entry"},
		{"4.2.2", tail, "KIP-1161"},
		{"4.1.2", tail, ""}, // before 4.2 the message cannot come from KIP-1161
		{"4.4.0", "ConfigException: Invalid value abc for configuration num.network.threads", ""},
	} {
		v, err := ParseVersion(tc.version)
		if err != nil {
			t.Fatal(err)
		}
		got := startHint(v, tc.tail)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("startHint(%s) = %q, want %q", tc.version, got, tc.want)
		}
	}
}
