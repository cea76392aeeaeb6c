// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package verify

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// answers plays back errors, one per call; the last one repeats.
type answers struct{ errs []error }

func (a *answers) Verify(_ context.Context, _ Expect) error {
	err := a.errs[0]
	if len(a.errs) > 1 {
		a.errs = a.errs[1:]
	}
	return err
}

func (a *answers) RuntimeVersion(context.Context) (string, string, error) {
	return "containerd", "2.4.2", nil
}

// TestUntilReportsTheTellingError: on a loaded node the call that runs into the overall deadline fails with
// DeadlineExceeded; the operator must still see why containerd was not accepted.
func TestUntilReportsTheTellingError(t *testing.T) {
	noRunsc := errors.New(`no runtime "runsc" in the CRI configuration`)
	cutOff := fmt.Errorf("CRI Status over /run/containerd/containerd.sock: %w", status.Error(codes.DeadlineExceeded, "context deadline exceeded"))
	for name, tc := range map[string]struct {
		errs []error
		want string
	}{
		"answer then cut off": {errs: []error{noRunsc, cutOff}, want: `no runtime "runsc"`},
		"only cut off":        {errs: []error{cutOff}, want: "DeadlineExceeded"},
		"only answers":        {errs: []error{noRunsc}, want: `no runtime "runsc"`},
	} {
		t.Run(name, func(t *testing.T) {
			err := Until(context.Background(), &answers{errs: tc.errs}, Runsc, 50*time.Millisecond, 10*time.Millisecond)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "not verified within 50ms") {
				t.Fatalf("want an error with %q, got %v", tc.want, err)
			}
		})
	}
}
