// Package nemesistest is what the tests of the rooms (nemesis/disk, ...)
// share, and the integration tests' of the seam too:
//
//   - harness.go, under the integration build tag: the integration tests'
//     cluster harness, one test's Docker cluster, admin client, Env and
//     history, and the steps the tests take on it (create a topic,
//     produce, inject, heal, wait for a condition, read the nemesis ops
//     back);
//   - fake.go: an Env over the unit tests' in-memory cluster and admin
//     (nemesis/nemesisfake), the history it records, and the checks the
//     rooms' tests make of their kinds (registered together, drawn or
//     not).
//
// It imports the seam, so the seam's in-package tests cannot use it (they
// use nemesis/nemesisfake directly). Only tests import it
// (internal/layers).
package nemesistest
