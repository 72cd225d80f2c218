package workloads

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/kchaos/kchaos/internal/bounds"
)

// maxClientProblems bounds how many problems of one file a message lists:
// a file of thousands of unknown keys is refused in a readable message.
const maxClientProblems = 12

// ApplyClientProps applies a client properties file on top of c (the
// scenario's workload section, defaulted): each mapped key sets its
// workload field, each verbatim key goes into ProducerProps or
// ConsumerProps. setBy reports whether a --set names a workload path
// (e.g. "acks", "producer_props.linger.ms"): such a key of the file is
// left alone, because a --set wins over the file (nil: no --set).
//
// Every problem of the file is returned at once, each naming p.Source
// and the key: a key kchaos does not know, one it refuses (with why), a
// value the Java client would refuse, a key with no meaning in this
// workload (a group setting without a group) or for its driver (a
// verbatim key on a Go driver, or a mapped one the driver cannot honour).
// Nothing is silently ignored.
func (c *Config) ApplyClientProps(p ClientProps, setBy func(path string) bool) error {
	if setBy == nil {
		setBy = func(string) bool { return false }
	}
	driver := canonicalDriver(c.Driver)
	var probs []string
	bad := func(key, format string, args ...any) {
		probs = append(probs, fmt.Sprintf("%s: %s: %s", p.Source(), bounds.Cut(key), fmt.Sprintf(format, args...)))
	}
	mapped := map[string]string{} // workload field -> the file's key
	for _, key := range slices.Sorted(maps.Keys(p.Props)) {
		v := p.Props[key]
		k, ok := lookupClientKey(p.Side, key)
		switch {
		case !ok:
			bad(key, "not a %s property kchaos knows (docs/workloads.md lists them; an unknown key is refused, never ignored)", p.Side)
			continue
		case k.refused != "":
			bad(key, "refused: %s", k.refused)
			continue
		}
		if err := k.check(v); err != nil {
			bad(key, "%q: %v", bounds.Cut(v), err)
			continue
		}
		if why := needs(k, c); why != "" {
			bad(key, "has no meaning in this workload: %s", why)
			continue
		}
		if k.field != "" {
			if !setBy(k.field) {
				_ = k.set(c, v)
				mapped[k.field] = key
			}
			continue
		}
		if !capabilitiesOf(driver).VerbatimProps {
			bad(key, "no meaning for driver %s: %s", driver, whyVerbatimOnly())
			continue
		}
		if setBy(string(p.Side) + "_props." + key) {
			continue
		}
		props := &c.ProducerProps
		if p.Side == ConsumerSide {
			props = &c.ConsumerProps
		}
		if *props == nil {
			*props = map[string]string{}
		}
		(*props)[key] = strings.TrimSpace(v)
	}
	// A service that turns idempotence on and leaves retries out runs
	// with the Java default, 2147483647 bounded by delivery.timeout.ms:
	// kchaos counts retries (0..MaxRetries) and cannot run that, and the
	// scenario's own 0 would make Kafka refuse the producer. Say so here,
	// by the file's key, rather than by the workload field.
	if _, ok := mapped["idempotent"]; ok && c.Idempotent && c.Retries == 0 && !c.Transactions.Enabled {
		bad("enable.idempotence", "true needs retries > 0, and the scenario's workload.retries is 0 "+
			"(a service that leaves retries out runs the Java default, 2147483647 bounded by delivery.timeout.ms, "+
			"which kchaos cannot count): set retries=N (1..%d) in the file, or --set workload.retries=N", MaxRetries)
	}
	// The Java client refuses more than five requests in flight per
	// connection with idempotence on; the workload's own max_in_flight
	// counts concurrent sends and would run the file's value with five, so
	// the file's key is refused here, as the service's producer would be.
	if key, ok := mapped["max_in_flight"]; ok && c.IdempotentInEffect() && c.MaxInFlight > IdempotentMaxInFlight {
		bad(key, "%d with idempotence on: the Java client refuses more than %d (ConfigException), so the service's producer would not start; write at most %d, or enable.idempotence=false",
			c.MaxInFlight, IdempotentMaxInFlight, IdempotentMaxInFlight)
	}
	// A mapped key the chosen driver cannot honour is refused by the
	// driver's own rule, named by the file's key.
	if drv, ok := drivers[driver]; ok && len(mapped) > 0 {
		for _, fe := range drv.Refuse(*c) {
			if key, ok := mapped[fe.Path]; ok {
				bad(key, "driver %s: %s", driver, fe.Msg)
			}
		}
	}
	if len(probs) == 0 {
		return nil
	}
	if n := len(probs); n > maxClientProblems {
		probs = append(probs[:maxClientProblems], fmt.Sprintf("%s: and %d more problems", p.Source(), n-maxClientProblems))
	}
	return errors.New(strings.Join(probs, "\n"))
}

// Source names the file in messages: "--producer-config FILE" style when
// File already says so, else the side and the file.
func (p ClientProps) Source() string {
	if strings.HasPrefix(p.File, "--") {
		return p.File
	}
	return string(p.Side) + " config " + p.File
}

// needs is why k has no meaning in c, "" when it has one.
func needs(k clientKey, c *Config) string {
	if k.needs == nil {
		return ""
	}
	return k.needs(c)
}

// validateClientProps checks ProducerProps and ConsumerProps however they
// were set (a file, a scenario's workload section, a --set): only
// verbatim keys, with values the Java client takes, and only with driver
// java, which alone passes them on.
func (c *Config) validateClientProps() []FieldError {
	var ps []FieldError
	driver := canonicalDriver(c.Driver)
	for _, side := range []ClientSide{ProducerSide, ConsumerSide} {
		props := c.ProducerProps
		if side == ConsumerSide {
			props = c.ConsumerProps
		}
		for _, key := range slices.Sorted(maps.Keys(props)) {
			path := string(side) + "_props." + bounds.Cut(key)
			add := func(format string, args ...any) {
				ps = append(ps, FieldError{Path: path, Msg: fmt.Sprintf(format, args...)})
			}
			k, ok := lookupClientKey(side, key)
			switch {
			case !ok:
				add("not a %s property kchaos knows (docs/workloads.md lists them)", side)
			case k.refused != "":
				add("refused: %s", k.refused)
			case k.field != "":
				add("set workload.%s instead: kchaos maps %s onto it for every driver", k.field, key)
			case k.check(props[key]) != nil:
				add("%q: %v", bounds.Cut(props[key]), k.check(props[key]))
			case needs(k, c) != "":
				add("has no meaning in this workload: %s", needs(k, c))
			case !capabilitiesOf(driver).VerbatimProps:
				add("no meaning for driver %s: %s", driver, whyVerbatimOnly())
			}
		}
	}
	// The Java client's own rule, refused before a cluster starts rather
	// than by the producer's constructor in the middle of a run.
	if d, ok := c.ProducerProps["delivery.timeout.ms"]; ok && intIn(0, 1<<31-1)(d) == nil {
		linger, _ := strconv.Atoi(c.ProducerProps["linger.ms"])
		if need := int64(linger) + c.RequestTimeout.Std().Milliseconds(); int64(atoi(d)) < need {
			ps = append(ps, FieldError{Path: "producer_props.delivery.timeout.ms",
				Msg: fmt.Sprintf("%s: the Java client wants at least linger.ms + request.timeout.ms (%d)", d, need)})
		}
	}
	return ps
}

// ClientSettings are the client settings the workload runs with, in the
// Java client's names: every mapped key of side that has a meaning here,
// from its workload field, and the verbatim keys. The audit page states
// them beside the broker and topic settings.
func (c *Config) ClientSettings(side ClientSide) map[string]string {
	out := map[string]string{}
	for _, k := range clientKeys {
		if k.side == side && k.field != "" && needs(k, c) == "" {
			out[k.name] = k.get(c)
		}
	}
	props := c.ProducerProps
	if side == ConsumerSide {
		props = c.ConsumerProps
	}
	maps.Copy(out, props)
	return out
}
