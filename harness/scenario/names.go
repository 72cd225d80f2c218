package scenario

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/kchaos/kchaos/internal/bounds"
)

// safeName is what a name that becomes a folder of the store may be: a
// letter or digit, then letters, digits, '.', '_' and '-'. No separator,
// no "..", no NUL, nothing absolute: a name can never lead outside --store.
var safeName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// reservedPrefixes are the store's own folders (store/latest,
// store/audit/, store/suite-NAME/, store/matrix-NAME/,
// store/explore-NAME/, store/bisect-NAME/): a scenario named like one
// would mix its run folders into them.
var reservedNames = []string{"latest", "audit"}
var reservedPrefixes = []string{"suite-", "matrix-", "explore-", "bisect-"}

// CheckName reports why name cannot be a folder of the store (what is the
// kind of name: "name" for a scenario's, "suite name", ...). kchaos
// refuses such names rather than mapping them to another folder, so that
// the folder a run is in is always the name it was given.
func CheckName(what, name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return fmt.Errorf("%s: missing", what)
	case !safeName.MatchString(name) || strings.Contains(name, ".."):
		return fmt.Errorf("%s: %q: want 1-128 letters, digits, '.', '_' or '-', starting with a letter or digit, and no \"..\" (it names a folder of the store)", what, bounds.Cut(name))
	case strings.HasSuffix(name, ".tmp"):
		return fmt.Errorf("%s: %q: the store keeps its own .tmp entries", what, name)
	}
	for _, r := range reservedNames {
		if strings.EqualFold(name, r) {
			return fmt.Errorf("%s: %q is the store's own entry (store/%s)", what, name, r)
		}
	}
	for _, p := range reservedPrefixes {
		if strings.HasPrefix(strings.ToLower(name), p) {
			return fmt.Errorf("%s: %q: names starting with %q are the store's own folders", what, name, p)
		}
	}
	return nil
}
