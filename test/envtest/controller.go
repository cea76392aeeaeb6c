// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package envtest

import (
	"context"
	"io"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/cmd/gardener-extension-runtime-gvisor/app"
)

// Controller is the extension's controller manager running in-process (RunController).
type Controller struct {
	done chan error
}

// RunController runs the binary's entry point (app.Run: its code and flags) in-process with args until the test
// ends; the test fails if app.Run returns an error. Tests that wait for the controller check Exited so they stop
// early when it has gone.
func RunController(ctx context.Context, t testing.TB, args []string) *Controller {
	runCtx, stop := context.WithCancel(ctx)
	c := &Controller{done: make(chan error, 1)}
	go func() { c.done <- app.Run(runCtx, args, io.Discard) }()
	t.Cleanup(func() {
		stop()
		if err := <-c.done; err != nil {
			t.Errorf("controller (app.Run): %v", err)
		}
	})
	return c
}

// Exited reports whether app.Run has returned and what it returned, without taking the result from the cleanup.
func (c *Controller) Exited() (bool, error) {
	select {
	case err := <-c.done:
		c.done <- err // for the cleanup
		return true, err
	default:
		return false, nil
	}
}
