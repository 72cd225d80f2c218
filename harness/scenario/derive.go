package scenario

import "fmt"

// Derive re-reads s with sets applied, as Load would read a file holding
// s: for callers that change a loaded scenario (an audit drops a story's
// topic configs and applies the user's) and then apply the user's --set
// on top, validated like any other.
func Derive(s *Scenario, source string, sets []string) (*Scenario, error) {
	b, err := s.Marshal()
	if err != nil {
		return nil, &BadInputError{fmt.Errorf("%s: %v", source, err)}
	}
	d, err := parse(b, source, sets, false)
	if err != nil {
		return nil, &BadInputError{err}
	}
	d.Defaults()
	if err := d.Validate(); err != nil {
		return nil, &BadInputError{fmt.Errorf("%s: %w", source, err)}
	}
	return d, nil
}
