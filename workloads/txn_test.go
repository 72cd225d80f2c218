package workloads

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kchaos/kchaos/histories"
)

func TestTransactionalID(t *testing.T) {
	cases := []struct {
		topic string
		i     int
		want  string
	}{
		{"kchaos", 0, "kchaos-kchaos-txn-0"},
		{"orders.v2", 12, "kchaos-orders.v2-txn-12"},
	}
	for _, tc := range cases {
		if got := TransactionalID(tc.topic, tc.i); got != tc.want {
			t.Errorf("TransactionalID(%q, %d) = %q, want %q", tc.topic, tc.i, got, tc.want)
		}
	}
	c := Config{Topic: "t", Producers: 2, Transactions: TxnConfig{Enabled: true}}
	if got := strings.Join(c.TransactionalIDs(), ","); got != "kchaos-t-txn-0,kchaos-t-txn-1" {
		t.Errorf("TransactionalIDs: %s", got)
	}
	if ids := (&Config{Producers: 2}).TransactionalIDs(); ids != nil {
		t.Errorf("TransactionalIDs without transactions: %v", ids)
	}
}

func TestTxnConfig(t *testing.T) {
	var c Config
	c.Transactions.Enabled = true
	c.Defaults()
	want := TxnConfig{Enabled: true, MinSends: 1, MaxSends: 4, AbortRate: new(0.1), Timeout: Duration(10 * time.Second)}
	if !reflect.DeepEqual(c.Transactions, want) || !c.Idempotent {
		t.Errorf("defaults: %+v idempotent %v, want %+v and idempotent", c.Transactions, c.Idempotent, want)
	}
	// A written 0 is no aborts on purpose, not the default.
	var none Config
	none.Transactions = TxnConfig{Enabled: true, AbortRate: new(0.0)}
	none.Defaults()
	if got := none.Transactions.Aborts(); got != 0 {
		t.Errorf("abort_rate 0: Aborts() = %g after Defaults, want 0", got)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("defaults with transactions: %v", err)
	}
	pi := c.ProducerInfo()
	if !pi.Transactional || !pi.Idempotent {
		t.Errorf("producer info %+v: want transactional and idempotent", pi)
	}
	if c.FinalReadIsolation() != histories.ReadCommitted {
		t.Errorf("final read isolation %s with transactions", c.FinalReadIsolation())
	}
	cases := []struct {
		name  string
		edit  func(*Config)
		paths []string
	}{
		{"ok", func(c *Config) { c.Transactions.Polls, c.Transactions.CrashRate = true, 0.2 }, nil},
		{"ok read_committed consumers", func(c *Config) { c.Isolation = "read_committed" }, nil},
		{"bad isolation", func(c *Config) { c.Isolation = "serializable" }, []string{"isolation"}},
		{"kafka-go", func(c *Config) { c.Driver = DriverKafkaGo }, []string{"transactions.enabled"}},
		{"kafka-go read_committed", func(c *Config) {
			c.Driver, c.Transactions = DriverKafkaGo, TxnConfig{}
			c.Idempotent = false
			c.Isolation = histories.ReadCommitted
		},
			[]string{"isolation"}},
		{"acks 1", func(c *Config) { c.Acks = AcksLeader }, []string{"acks"}},
		{"pipelined", func(c *Config) { c.MaxInFlight = 4 }, []string{"max_in_flight"}},
		{"key partitioning", func(c *Config) { c.Partitioning, c.Keys = ByKey, 4 }, []string{"partitioning"}},
		{"min sends", func(c *Config) { c.Transactions.MinSends = -1 }, []string{"transactions.min_sends"}},
		{"max below min", func(c *Config) { c.Transactions.MinSends, c.Transactions.MaxSends = 5, 2 }, []string{"transactions.max_sends"}},
		{"abort rate", func(c *Config) { c.Transactions.AbortRate = new(1.5) }, []string{"transactions.abort_rate"}},
		{"crash rate", func(c *Config) { c.Transactions.CrashRate = -0.1 }, []string{"transactions.crash_rate"}},
		{"rates sum", func(c *Config) { c.Transactions.AbortRate, c.Transactions.CrashRate = new(0.6), 0.6 }, []string{"transactions.crash_rate"}},
		{"timeout", func(c *Config) { c.Transactions.Timeout = Duration(time.Millisecond) }, []string{"transactions.timeout"}},
		{"hold not below the timeout", func(c *Config) { c.Transactions.Hold = Duration(c.Transactions.Timeout) }, []string{"transactions.hold"}},
		{"negative hold", func(c *Config) { c.Transactions.Hold = Duration(-time.Second) }, []string{"transactions.hold"}},
		{"settings while off", func(c *Config) { c.Transactions = TxnConfig{Polls: true}; c.Idempotent = false }, []string{"transactions.enabled"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var c Config
			c.Transactions.Enabled = true
			c.Defaults()
			tc.edit(&c)
			wantProblemPaths(t, c.Validate(), tc.paths)
		})
	}
}

func TestTxnOutcome(t *testing.T) {
	timeout := context.DeadlineExceeded
	cases := []struct {
		name     string
		end      TxnEnd
		typ      histories.Type
		errName  string
		recreate bool
	}{
		{"committed", TxnEnd{CommitAsked: true}, histories.OK, "", false},
		{"intended abort", TxnEnd{AbortAsked: true}, histories.Fail, CauseAborted, false},
		{"intended abort failed", TxnEnd{AbortAsked: true, AbortErr: timeout}, histories.Fail, CauseTimeout, true},
		{"send error, abort ok", TxnEnd{StepErr: kerr.NotEnoughReplicas, AbortAsked: true}, histories.Fail, "NOT_ENOUGH_REPLICAS", false},
		{"send timeout, abort failed", TxnEnd{StepErr: timeout, AbortAsked: true, AbortErr: kerr.CoordinatorNotAvailable},
			histories.Fail, CauseTimeout, true},
		{"begin failed", TxnEnd{StepErr: errors.New("fatal producer id")}, histories.Fail, CauseUnknown, true},
		{"fenced send", TxnEnd{StepErr: fmt.Errorf("produce: %w", kerr.InvalidProducerEpoch)}, histories.Fail, "INVALID_PRODUCER_EPOCH", true},
		{"fenced zombie send", TxnEnd{StepErr: kerr.ProducerFenced, Superseded: true}, histories.Fail, "PRODUCER_FENCED", true},
		{"zombie commit fenced", TxnEnd{CommitAsked: true, CommitErr: kerr.ProducerFenced, Superseded: true},
			histories.Fail, "PRODUCER_FENCED", true},
		{"zombie commit succeeded", TxnEnd{CommitAsked: true, Superseded: true}, histories.OK, "", false},
		{"commit fenced, no successor known", TxnEnd{CommitAsked: true, CommitErr: kerr.ProducerFenced}, histories.Info, "PRODUCER_FENCED", true},
		{"commit timeout", TxnEnd{CommitAsked: true, CommitErr: timeout}, histories.Info, CauseTimeout, true},
		{"commit unknown error", TxnEnd{CommitAsked: true, CommitErr: kerr.UnknownServerError}, histories.Info, "UNKNOWN_SERVER_ERROR", true},
		{"commit not attempted", TxnEnd{CommitAsked: true, CommitErr: kerr.OperationNotAttempted}, histories.Fail, "OPERATION_NOT_ATTEMPTED", true},
		{"commit refused: topic recreated", TxnEnd{CommitAsked: true,
			CommitErr: fmt.Errorf("recreated: %w, %w", kerr.TransactionAbortable, kerr.UnknownTopicID)}, histories.Fail, "TRANSACTION_ABORTABLE", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			typ, name, recreate := TxnOutcome(tc.end)
			if typ != tc.typ || name != tc.errName || recreate != tc.recreate {
				t.Errorf("got %s %q recreate=%v, want %s %q recreate=%v", typ, name, recreate, tc.typ, tc.errName, tc.recreate)
			}
		})
	}
}
