package report

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kchaos/kchaos/histories"
)

// A Story is what a history says a failure story did to one partition:
// the brokers its faults struck, the elections the observer saw, the
// time without a leader and the untils that held or timed out. It is the
// raw material of an audit row's words, which must come from what
// happened, never from the settings alone (a strong config whose story
// took another branch passes for a reason the history shows).
type story struct {
	Partition int32
	// Elections are the leader changes the observer saw after the first
	// fault that struck a broker (a sample without a leader is no
	// election: it counts towards the next one's Leaderless).
	Elections []election
	// Struck are the brokers faults took down, in order, with how.
	Struck []strike
	// Untils are the scenario's until steps as recorded (nil for a
	// history written before kchaos recorded them).
	Untils []untilOutcome
	// Observed is false when the history has no observer sample of the
	// partition: nothing can then be said about leaders.
	Observed bool
}

// strike is a fault that took brokers down.
type strike struct {
	Fault string // histories.FKill, FLoseUnflushed, FPause
	Nodes []int32
	// Leader is the partition's leader the observer last saw when the
	// fault struck (-1 unknown).
	Leader int32
	Time   int64 // of the op's completion, ns
}

// How an elected broker was eligible, from the last sample before it led.
const (
	fromISR    = "isr"     // it was in the ISR
	fromELR    = "elr"     // it was an eligible leader replica (KIP-966)
	fromLKELR  = "lkelr"   // it was in the last known ELR only (unclean recovery)
	unclean    = "unclean" // none of these: an unclean election
	ledAgain   = "again"   // it had led before a fault struck it
	fromUnsure = "unknown" // no sample before it to tell
)

// election is one leader change of the partition (or the same leader
// back after a time without one).
type election struct {
	Broker int32
	How    string
	Time   int64 // of the first sample that saw it lead, ns
	// Leaderless is how long the partition had no leader just before.
	Leaderless time.Duration
	// After is the strike that took the previous leader down while it
	// led, if one did.
	After *strike
	// Returned: a fault had taken the elected broker down too (it led
	// once it was back).
	Returned bool
}

// untilOutcome is one recorded until step.
type untilOutcome struct {
	histories.Until
	// Interrupted: the run was stopped during the wait.
	Interrupted bool
}

// TimedOut reports whether the wait ended without its condition holding.
func (u untilOutcome) TimedOut() bool { return !u.Held && !u.Interrupted }

// storyOf reads a history's story of partition p of topic ("" for the
// topic the observer samples first).
func storyOf(r io.Reader, topic string, p int32) (story, error) {
	st := story{Partition: p}
	rd := histories.NewReader(r)
	var (
		last     *histories.ObserveValue // the previous sample of the partition
		leader   int32                   = -1
		gapStart int64                   = -1                  // since when it has had no leader, ns
		struck                           = map[int32]*strike{} // broker -> the last strike that took it down
		ledAt                            = map[int32]int64{}   // broker -> when it last became leader
		everLed                          = map[int32]bool{}
	)
	for {
		e, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return st, err
		}
		switch {
		case e.Process == histories.NemesisProcess && e.F == histories.FUntil && e.Type != histories.Invoke:
			var v histories.NemesisValue
			if err := e.Decode(&v); err != nil {
				return st, fmt.Errorf("history event %d: until: %w", e.Index, err)
			}
			u, err := histories.UntilOf(v)
			if err != nil {
				return st, fmt.Errorf("history event %d: %w", e.Index, err)
			}
			u.Held = e.Type == histories.OK
			st.Untils = append(st.Untils, untilOutcome{Until: u, Interrupted: e.Type == histories.Info})
		case e.Process == histories.NemesisProcess && e.Type == histories.OK && strikes(e.F):
			var v histories.NemesisValue
			if err := e.Decode(&v); err != nil || len(v.Nodes) == 0 {
				continue
			}
			k := &strike{Fault: e.F, Nodes: slices.Clone(v.Nodes), Leader: leader, Time: e.Time}
			st.Struck = append(st.Struck, *k)
			for _, n := range v.Nodes {
				struck[n] = k
			}
		case e.Process == histories.ObserverProcess && e.F == histories.FObserve && e.Type == histories.OK:
			var v histories.ObserveValue
			if e.Decode(&v) != nil || v.Partition != p || topic != "" && v.Topic != topic {
				continue
			}
			topic = v.Topic
			st.Observed = true
			if v.Leader < 0 {
				if gapStart < 0 {
					gapStart = e.Time
				}
				last = &v
				continue
			}
			if len(st.Struck) > 0 && (v.Leader != leader || gapStart >= 0) {
				el := election{Broker: v.Leader, How: eligibility(v.Leader, last, everLed, struck), Time: e.Time,
					Returned: struck[v.Leader] != nil}
				if gapStart >= 0 {
					el.Leaderless = time.Duration(e.Time - gapStart)
				}
				if k := struck[leader]; leader >= 0 && k != nil && k.Time >= ledAt[leader] {
					c := *k
					el.After = &c
				}
				st.Elections = append(st.Elections, el)
			}
			if v.Leader != leader || gapStart >= 0 {
				ledAt[v.Leader] = e.Time
			}
			leader, gapStart = v.Leader, -1
			everLed[v.Leader] = true
			last = &v
		}
	}
	return st, nil
}

// strikes names the nemesis ops that take brokers down.
func strikes(f string) bool {
	return f == histories.FKill || f == histories.FLoseUnflushed || f == histories.FPause
}

// eligibility says how broker b could be elected, from the last sample
// before it led.
func eligibility(b int32, last *histories.ObserveValue, everLed map[int32]bool, struck map[int32]*strike) string {
	switch {
	case everLed[b] && struck[b] != nil:
		return ledAgain
	case last == nil:
		return fromUnsure
	case slices.Contains(last.ISR, b):
		return fromISR
	case slices.Contains(last.ELR, b):
		return fromELR
	case slices.Contains(last.LastKnownELR, b):
		return fromLKELR
	}
	return unclean
}

// storyCounts are the checker's findings the words end on.
type storyCounts struct {
	Verdict      RunVerdict
	Lost, Reused int
	Other        map[string]int // other anomalies by name
	// Refused counts the sends the brokers refused for want of in-sync
	// replicas (NOT_ENOUGH_REPLICAS, ..._AFTER_APPEND): a strong config's
	// price, where a weak one acknowledges.
	Refused int
}

// refusedCodes are the Kafka errors of a write refused because the ISR
// was below min.insync.replicas.
var refusedCodes = []string{"NOT_ENOUGH_REPLICAS", "NOT_ENOUGH_REPLICAS_AFTER_APPEND"}

// Words says the story in a reviewer's language, e.g. "when broker 0 lost
// power, ELR elected broker 1 within a second; the amnesiac leader
// (broker 0) never led again; nothing lost". Every clause comes from the
// history: the elections the observer saw, the faults that struck, the
// untils that timed out, the writes refused and the checker's counts.
func (s story) Words(c storyCounts) string {
	var clauses []string
	for _, el := range s.Elections {
		clauses = append(clauses, el.words())
	}
	// A broker that led when a fault struck it and never led again.
	said := map[int32]bool{}
	for _, k := range s.Struck {
		if !s.Observed || k.Leader < 0 || !slices.Contains(k.Nodes, k.Leader) || said[k.Leader] || len(s.Elections) == 0 {
			continue
		}
		said[k.Leader] = true
		if slices.ContainsFunc(s.Elections, func(el election) bool { return el.Broker == k.Leader && el.Time > k.Time }) {
			continue
		}
		who := fmt.Sprintf("broker %d", k.Leader)
		if k.Fault == histories.FLoseUnflushed {
			who = fmt.Sprintf("the amnesiac leader (broker %d)", k.Leader)
		}
		clauses = append(clauses, who+" never led again")
	}
	if s.Observed && len(s.Elections) == 0 && len(s.Struck) > 0 {
		clauses = append(clauses, fmt.Sprintf("the observer saw no leader change of partition %d", s.Partition))
	}
	for _, u := range s.Untils {
		if !u.TimedOut() || u.Optional && u.Leader != nil && said[*u.Leader] {
			continue // a soft wait for a leader whose fate is said already
		}
		w := u.words()
		if !u.Optional {
			w += " (a required wait: the story stopped there)"
		}
		clauses = append(clauses, w)
	}
	if !s.Observed {
		clauses = append(clauses, "no observer sample of the partition: nothing to say about its leaders")
	}
	return strings.Join(append(clauses, c.words()), "; ")
}

func (el election) words() string {
	var w string
	switch el.How {
	case fromELR:
		w = fmt.Sprintf("ELR elected broker %d", el.Broker)
	case fromISR:
		w = fmt.Sprintf("broker %d was elected from the ISR", el.Broker)
	case fromLKELR:
		w = fmt.Sprintf("broker %d was elected from the last known ELR", el.Broker)
	case unclean:
		w = fmt.Sprintf("broker %d was elected uncleanly (in neither the ISR nor the ELR)", el.Broker)
	case ledAgain:
		w = fmt.Sprintf("broker %d led again", el.Broker)
	default:
		w = fmt.Sprintf("broker %d became leader", el.Broker)
	}
	// The observer samples every 250 ms: under a second is "at once".
	if el.Returned && el.How != ledAgain {
		w += " once it was back"
	}
	if el.Leaderless >= time.Second {
		w = fmt.Sprintf("the partition had no leader for %.1f s until %s", el.Leaderless.Seconds(), w)
	} else {
		w += " within a second"
	}
	if el.After != nil {
		w = "when " + el.After.words() + ", " + w
	}
	return w
}

func (k strike) words() string {
	who := "broker " + ids(k.Nodes)
	if len(k.Nodes) > 1 {
		who = "brokers " + ids(k.Nodes)
	}
	switch k.Fault {
	case histories.FLoseUnflushed:
		return who + " lost power"
	case histories.FPause:
		return who + map[bool]string{true: " were", false: " was"}[len(k.Nodes) > 1] + " paused"
	}
	return who + map[bool]string{true: " were", false: " was"}[len(k.Nodes) > 1] + " killed"
}

func ids(n []int32) string {
	s := make([]string, len(n))
	for i, x := range n {
		s[i] = fmt.Sprint(x)
	}
	if len(s) > 1 {
		return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
	}
	return strings.Join(s, "")
}

// words renders a timed-out until as what did not happen. A condition of
// several parts did not hold as a whole, which says nothing of each part:
// it is quoted as the scenario spells it.
func (u untilOutcome) words() string {
	waited := fmt.Sprintf("%g s", float64(u.TimeoutMS)/1000)
	var w []string
	if u.Leader != nil {
		w = append(w, fmt.Sprintf("broker %d did not lead in the %s waited", *u.Leader, waited))
	}
	if len(u.ISR) > 0 {
		set := strings.Join(strings.Fields(strings.Trim(fmt.Sprint(u.ISR), "[]")), ", ")
		w = append(w, fmt.Sprintf("the ISR did not become {%s} in the %s waited", set, waited))
	}
	if u.Offline != nil && *u.Offline {
		w = append(w, fmt.Sprintf("partition %d kept a leader through the %s waited for it to go offline", u.Partition, waited))
	}
	if u.Offline != nil && !*u.Offline {
		w = append(w, fmt.Sprintf("partition %d stayed without a leader through the %s waited", u.Partition, waited))
	}
	if len(w) != 1 || u.HighWatermark != nil || len(u.Live) > 0 || len(u.Fenced) > 0 {
		return fmt.Sprintf("the wait for %s timed out after %s", u.Condition, waited)
	}
	return w[0]
}

func (c storyCounts) words() string {
	var w []string
	refused := ""
	if c.Refused > 0 {
		refused = fmt.Sprintf("%d writes refused for want of in-sync replicas (NOT_ENOUGH_REPLICAS); ", c.Refused)
	}
	if c.Lost > 0 {
		w = append(w, fmt.Sprintf("%d acked records lost", c.Lost))
	}
	if c.Reused > 0 {
		w = append(w, fmt.Sprintf("%d offsets reused", c.Reused))
	}
	if len(w) > 0 {
		return refused + strings.Join(w, ", ")
	}
	var other []string
	for _, k := range slices.Sorted(maps.Keys(c.Other)) {
		if c.Other[k] > 0 {
			other = append(other, fmt.Sprintf("%s %d", k, c.Other[k]))
		}
	}
	switch {
	case len(other) > 0:
		return refused + "nothing lost, but the checker found " + strings.Join(other, ", ")
	case c.Verdict == Valid:
		return refused + "nothing lost"
	}
	return refused + "the checker could not decide"
}

// StoryWords reads a run folder's history and results and says what
// happened to partition 0 of the run's topic.
func StoryWords(runDir string) (string, error) {
	row, err := rowFromRun(runDir, nil)
	if err != nil {
		return "", err
	}
	f, err := histories.OpenRegular(filepath.Join(runDir, HistoryFile))
	if err != nil {
		return "", err
	}
	defer f.Close()
	r, err := loadRun(runDir)
	if err != nil {
		return "", err
	}
	st, err := storyOf(f, r.Info.Topic, 0)
	if err != nil {
		return "", err
	}
	c := storyCounts{Verdict: row.Verdict, Lost: row.Lost, Reused: row.Reused, Other: row.Other}
	for _, code := range refusedCodes {
		c.Refused += row.SendErrors[code]
	}
	return st.Words(c), nil
}
