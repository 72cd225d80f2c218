package histories

import (
	"fmt"
	"net/url"
	"regexp"
)

// A scenario may name the Kafka bugs it guards against (RunInfo.Jira) and
// documents that explain it (RunInfo.Docs): the run report, the suite page
// and junit.xml show them, so that a red cell leads to its bug.

var jiraID = regexp.MustCompile(`^KAFKA-[1-9][0-9]{0,5}$`)

// CheckJira refuses an id that is not an Apache Kafka JIRA key.
func CheckJira(id string) error {
	if !jiraID.MatchString(id) {
		return fmt.Errorf("%q: want an Apache Kafka JIRA key, KAFKA-NNNNN", id)
	}
	return nil
}

// Finding is what a regression cell proves beyond its checks, in the
// scenario's words: its JIRA's own status (or that no JIRA describes it)
// and the fewest steps that show the bug. The run report and the suite
// page show it beside the JIRA keys, so that a red cell says how far
// upstream the bug has got and how to reproduce it by hand.
type Finding struct {
	Status string `json:"status"`
	Steps  string `json:"steps"`
	// Needs is what kchaos lacks to drive the bug, in words, one entry a
	// need (harness/scenario's Needs): a cell that has any is refused,
	// never run.
	Needs []string `json:"needs,omitempty"`
}

// JiraURL is the page.
func JiraURL(id string) string { return "https://issues.apache.org/jira/browse/" + id }

// CheckDocURL refuses a link that is not an absolute http(s) URL.
func CheckDocURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("%q: want an absolute http(s) URL", s)
	}
	return nil
}
