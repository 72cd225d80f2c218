package harness

import (
	"reflect"
	"testing"
)

func TestParseProperties(t *testing.T) {
	tests := []struct {
		name, text string
		want       map[string]string
	}{
		{"as cluster.Render writes", "# server.properties of broker 0, written by kchaos\nmin.insync.replicas=2\nnode.id=0\n",
			map[string]string{"min.insync.replicas": "2", "node.id": "0"}},
		{"value with =", "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT\na=b=c\n",
			map[string]string{"listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT", "a": "b=c"}},
		{"blanks, comments, CRLF", "\r\n! note\n  k = v \r\n", map[string]string{"k": "v"}},
		{"empty", "", map[string]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := parseProperties(tt.text); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}
