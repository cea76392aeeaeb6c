// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package admission_test

import (
	"fmt"
	"strings"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/admission/admissiontest"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/apis/gvisor/v1alpha1"
)

// RequestLimit is gardener-apiserver's limit on a request body (admissiontest.RequestLimit).
const RequestLimit = admissiontest.RequestLimit

// shootWithWorkers is a Shoot (JSON) with one containerd worker with gVisor per providerConfig.
func shootWithWorkers(name string, providerConfigs func(i int) string, size int) []byte {
	var b strings.Builder
	b.WriteString(`{"apiVersion":"core.gardener.cloud/v1beta1","kind":"Shoot","metadata":{"name":"` + name + `","namespace":"garden-dev"},` +
		`"spec":{"cloudProfileName":"local","region":"local","provider":{"type":"local","workers":[`)
	const tail = `]}}}`
	for i := 0; ; i++ {
		w := fmt.Sprintf(`{"name":"w%05d","minimum":1,"maximum":1,"machine":{"type":"local"},"cri":{"name":"containerd","containerRuntimes":[{"type":"gvisor","providerConfig":%s}]}}`,
			i, providerConfigs(i))
		if i > 0 {
			w = "," + w
		}
		if b.Len()+len(w)+len(tail) > size {
			if i == 0 {
				panic("one worker does not fit")
			}
			break
		}
		b.WriteString(w)
	}
	b.WriteString(tail)
	return []byte(b.String())
}

// unknownFlagsConfig is a providerConfig just under v1alpha1.MaxProviderConfigBytes, every flag unknown: the
// content that cost the square of its errors before the error budget.
func unknownFlagsConfig(i int) string {
	var b strings.Builder
	b.WriteString(`{"configFlags":{`)
	for j := 0; b.Len() < v1alpha1.MaxProviderConfigBytes-32; j++ {
		if j > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"u%d-%d":"x"`, i, j)
	}
	b.WriteString("}}")
	return b.String()
}

// distinctValidConfig is the smallest providerConfig that the policy accepts and runsc must judge anew per
// worker (no two workers share a flag set).
func distinctValidConfig(i int) string {
	return fmt.Sprintf(`{"configFlags":{"debug-log":"/var/log/runsc/%05d"}}`, i)
}

// invalidValueConfig is the smallest providerConfig with one error per worker.
func invalidValueConfig(i int) string { return fmt.Sprintf(`{"configFlags":{"platform":"k%05d"}}`, i) }
