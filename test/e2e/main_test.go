// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package e2e_test

import (
	"os"
	"testing"

	"github.com/go-logr/logr"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
)

// TestMain gives controller-runtime's packages that log through its global logger (envtest's CRD installation) a
// logger, so that their first line is not controller-runtime's warning with a goroutine's stack, which reads like
// a crash in a failed test's output. Their errors come back to the tests anyway.
func TestMain(m *testing.M) {
	logf.SetLogger(logr.Discard())
	os.Exit(m.Run())
}
