// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodelabel_test

import (
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodelabel/nodelabeltest"
)

// apiServer is the real kube-apiserver of package nodelabeltest (RBAC, ServiceAccount admission, policies).
type apiServer = nodelabeltest.APIServer

func startAPIServer(t *testing.T) *apiServer { return nodelabeltest.StartAPIServer(t) }
