// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodeagent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/gardener/gardener/pkg/nodeagent/registry"
)

// extractEnv carries an extractRequest (JSON) to a re-executed test binary: it then runs node-agent's extractor
// instead of the tests (see TestMain).
const extractEnv = "GVISOR_TEST_NODEAGENT_EXTRACT"

// extractRequest is one imageRef file for node-agent's extractor (CopyFromImage's arguments).
type extractRequest struct {
	Image, FilePathInImage, Destination string
	Permissions                         os.FileMode
}

// TestMain runs the tests, or, in the child process runExtractor starts, node-agent's real extractor, or, in the
// one nodeAgentSystemd starts, node-agent's systemd code.
func TestMain(m *testing.M) {
	if raw := os.Getenv(extractEnv); raw != "" {
		os.Exit(extractChild(raw))
	}
	if raw := os.Getenv(systemdEnv); raw != "" {
		os.Exit(systemdChild(raw))
	}
	os.Exit(m.Run())
}

// extractChild is the child's whole life: decode the request, run registry.NewExtractor().CopyFromImage (which
// dials CONTAINERD_ADDRESS and reads /etc/containerd/certs.d), report the error on stderr.
func extractChild(raw string) int {
	var req extractRequest
	if err := json.Unmarshal([]byte(raw), &req); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", extractEnv, err)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := os.MkdirAll("/var/lib/gardener-node-agent/tmp", 0o755); err != nil { // on the child's tmpfs
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := registry.NewExtractor().CopyFromImage(ctx, req.Image, req.FilePathInImage, req.Destination, req.Permissions); err != nil {
		fmt.Fprintf(os.Stderr, "node-agent's extractor: %v\n", err)
		return 1
	}
	return 0
}
