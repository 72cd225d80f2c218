package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kchaos/kchaos/harness/scenario"
)

// printPage ends the matrix, suite and audit commands alike: the page's
// path as "label: path", then the page itself (markdown) on stdout.
func printPage(label, dir, file string) {
	if dir == "" {
		return
	}
	path := filepath.Join(dir, file)
	fmt.Println(label+":", path)
	if b, err := os.ReadFile(path); err == nil {
		fmt.Print(string(b))
	}
}

// runError maps an error a harness run returned to its exit: bad input in
// a scenario found late (254), anything else internal (255).
func runError(err error) error {
	var bad *scenario.BadInputError
	if errors.As(err, &bad) {
		return badInput(err)
	}
	return internal(err)
}

// splitList splits a comma-separated flag value, dropping blanks.
func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}
