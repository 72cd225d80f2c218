package scenario

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/nemesis/disk"
)

// TestWritebackNeedsLogAppendTime: the writeback power-loss model dates
// batches by the broker's append time, so a scenario using it must give
// the topic (or the brokers) LogAppendTime; otherwise the model would
// silently cut as the recovery point does.
func TestWritebackNeedsLogAppendTime(t *testing.T) {
	const story = "name: w\nnemesis:\n  steps:\n    - wait: 1s\n    - fault: lose-unflushed\n      target: {role: leader}\n      model: writeback\n"
	for _, tc := range []struct {
		name string
		sets []string
		err  string
	}{
		{"no timestamp type", nil, "nemesis.steps[1].model: writeback dates each batch by the broker's append time"},
		{"create time", []string{"topic.configs.message.timestamp.type=CreateTime"}, "nemesis.steps[1].model"},
		{"topic", []string{"topic.configs.message.timestamp.type=LogAppendTime"}, ""},
		{"brokers", []string{"cluster.broker_config.log.message.timestamp.type=LogAppendTime"}, ""},
		{"topic overrides brokers", []string{"cluster.broker_config.log.message.timestamp.type=LogAppendTime",
			"topic.configs.message.timestamp.type=CreateTime"}, "nemesis.steps[1].model"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := loadText(t, story, tc.sets...)
			if (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
				t.Errorf("error %v, want %q", err, tc.err)
			}
		})
	}
}

// TestExampleScenariosLoad: the scenario files under examples/ and
// examples/compare/ (the random-against-guided configs) load and validate
// (examples/s7-writeback.yaml uses the writeback model). examples/campaigns
// holds campaign files, checked by kchaos campaign's tests.
func TestExampleScenariosLoad(t *testing.T) {
	files, _ := filepath.Glob("../../examples/*.yaml")
	compare, _ := filepath.Glob("../../examples/compare/*.yaml")
	if len(files) == 0 || len(compare) == 0 {
		t.Fatal("no examples/*.yaml or examples/compare/*.yaml")
	}
	files = append(files, compare...)
	for _, f := range files {
		s, err := Load(f, nil)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if filepath.Base(f) != "s7-writeback.yaml" {
			continue
		}
		if len(s.Nemesis.Steps) < 5 {
			t.Fatalf("%s: %d steps, want the writeback power loss at step 4", f, len(s.Nemesis.Steps))
		}
		if lu, _ := s.Nemesis.Steps[4].Params.(*disk.LoseUnflushedParams); lu == nil || lu.Model != "writeback" {
			t.Errorf("%s: step 4 is %+v, want the writeback power loss", f, s.Nemesis.Steps[4])
		}
	}
}
