package nemesis

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// NetemSpec is what a netem step does to each chosen link, e.g.
// {delay: 100ms, jitter: 20ms, loss: 5%, duplicate: 1%, reorder: 25%,
// rate: 1mbit}. Delay, jitter, duplicate and reorder are a netem qdisc;
// rate is the htb class above it, so a rate alone needs no netem. Loss is
// iptables' statistic match, never netem (nemesis/network/netem_loss.go
// says why), so it too works on kernels without sch_netem.
//
// The spec is the schedule format's, so its type is the seam's: a netem
// step's `netem:` and a random schedule's (RandomSchedule.Netem) are one.
// What it does to a link, its validation and its default are the netem
// kind's, in nemesis/network.
type NetemSpec struct {
	Delay     Duration `yaml:"delay,omitempty" json:"delay,omitempty"`
	Jitter    Duration `yaml:"jitter,omitempty" json:"jitter,omitempty"`
	Loss      Percent  `yaml:"loss,omitempty" json:"loss,omitempty"`
	Duplicate Percent  `yaml:"duplicate,omitempty" json:"duplicate,omitempty"`
	Reorder   Percent  `yaml:"reorder,omitempty" json:"reorder,omitempty"`
	// Rate is a bandwidth limit in bits per second: 800kbit, 1mbit, 1.5gbit.
	Rate string `yaml:"rate,omitempty" json:"rate,omitempty"`
}

// Percent is a share written with its sign, "5%" or "0.5%", so that 5 and
// 0.05 cannot be confused.
type Percent float64

func (p Percent) String() string { return strconv.FormatFloat(float64(p), 'f', -1, 64) + "%" }

func parsePercent(s string) (Percent, error) {
	num, ok := strings.CutSuffix(strings.TrimSpace(s), "%")
	if !ok {
		return 0, fmt.Errorf("%q: write a percentage with its sign, e.g. 5%%", s)
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v <= 0 || v > 100 {
		return 0, fmt.Errorf("%q: want more than 0%% and at most 100%%", s)
	}
	return Percent(v), nil
}

// UnmarshalYAML names the file line: a decoder error has no field path.
func (p *Percent) UnmarshalYAML(n *yaml.Node) error {
	v, err := parsePercent(n.Value)
	*p = v
	if err != nil {
		return fmt.Errorf("line %d: netem percentage %w", n.Line, err)
	}
	return nil
}

func (p Percent) MarshalYAML() (any, error) { return p.String(), nil }

func (p *Percent) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := parsePercent(s)
	*p = v
	return err
}

func (p Percent) MarshalJSON() ([]byte, error) { return json.Marshal(p.String()) }
