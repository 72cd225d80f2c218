package checker

import (
	"io"

	"github.com/kchaos/kchaos/checker/synth"
)

// The checker's tests generate histories with package synth (which the
// report's benchmark shares); these names are the tests' own.
type synthConfig = synth.Config

func writeSynth(out io.Writer, cfg synthConfig) int64 { return synth.Write(out, cfg) }
