// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package admissiontest

import "bytes"

// CostlyProviderConfig is a providerConfig (JSON) of about size bytes that is as costly to parse as JSON gets: many
// small objects under an unknown key named after tag (so that two of them differ).
func CostlyProviderConfig(size int, tag string) []byte {
	var b bytes.Buffer
	b.WriteString(`{"configFlags":{},"pad` + tag + `":[`)
	for b.Len() < size {
		b.WriteString(`{"a":[1,2]},`)
	}
	b.WriteString(`{}]}`)
	return b.Bytes()
}

// RequestLimit is gardener-apiserver's limit on a request body (k8s.io/apiserver's default MaxRequestBodyBytes,
// which gardener-apiserver keeps): the largest Shoot, and so the largest providerConfig, a webhook is sent.
const RequestLimit = 3 << 20
