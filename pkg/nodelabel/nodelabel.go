// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodelabel

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
)

const (
	// Key is the label the installer puts on its node once runsc is registered and verified. The charts
	// hard-code the same key (RuntimeClass selector, admission policy); a test keeps them in step.
	Key = "gvisor.runtime.extensions.gardener.cloud/ready"
	// Value is the only value the label ever has: the policy rejects any other.
	Value = "true"
	// FieldManager names the installer in the Node's managedFields.
	FieldManager = "gvisor-installer"
)

// backoff is how Set and Remove retry errors that a later attempt can fix (API server unavailable,
// throttled, timed out, connection refused): 7 attempts over about 30 seconds, so a control plane rolling
// its kube-apiserver does not fail an installation. A denial (RBAC, admission policy) or a missing node is
// returned at once, and ctx's end stops the retries.
func backoff() wait.Backoff {
	return wait.Backoff{Duration: 500 * time.Millisecond, Factor: 2, Jitter: 0.1, Steps: 7}
}

// Set labels node nodeName with Key=Value. It is idempotent: setting an existing label succeeds.
// c is a REST client for the core API group (/api, v1): NewClient's or InClusterClient's, or a clientset's
// CoreV1().RESTClient().
func Set(ctx context.Context, c rest.Interface, nodeName string) error {
	value := Value
	if err := patch(ctx, c, nodeName, &value); err != nil {
		return fmt.Errorf("setting label %s=%s on node %q: %w", Key, Value, nodeName, err)
	}
	return nil
}

// Remove deletes the label Key from node nodeName. It is idempotent: removing a missing label, or from a node
// that no longer exists, succeeds. Call it before runsc is unregistered, so that no new gVisor pod is
// scheduled onto a node that is about to lose runsc (pods already running stay: node selectors are only
// checked at scheduling time).
func Remove(ctx context.Context, c rest.Interface, nodeName string) error {
	err := patch(ctx, c, nodeName, nil)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("removing label %s from node %q: %w", Key, nodeName, err)
	}
	return nil
}

// patch sends {"metadata":{"labels":{Key: value}}} as a JSON merge patch; a nil value (JSON null) deletes
// the label. Unlike a strategic merge patch or an update, a merge patch needs no schema knowledge and no
// resourceVersion, and cannot touch anything else of the Node.
func patch(ctx context.Context, c rest.Interface, nodeName string, value *string) error {
	if nodeName == "" {
		return ErrNoNodeName
	}
	body, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]*string{Key: value}}})
	if err != nil {
		return fmt.Errorf("encoding the patch: %w", err)
	}
	var last error
	err = wait.ExponentialBackoffWithContext(ctx, backoff(), func(ctx context.Context) (bool, error) {
		last = c.Patch(types.MergePatchType).Resource("nodes").Name(nodeName).
			Param("fieldManager", FieldManager).Body(body).Do(ctx).Error()
		switch {
		case last == nil:
			return true, nil
		case retriable(last):
			return false, nil
		default:
			return false, last
		}
	})
	if wait.Interrupted(err) && last != nil {
		// Out of attempts or time: report the API server's last answer, which says more than "timed out".
		return fmt.Errorf("gave up after retrying: %w", last)
	}
	return explain(err)
}

// retriable reports errors that say nothing about the request itself.
func retriable(err error) bool {
	return apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) || apierrors.IsTooManyRequests(err) ||
		apierrors.IsServiceUnavailable(err) || apierrors.IsInternalError(err) || apierrors.IsUnexpectedServerError(err) ||
		isConnectionError(err)
}

// explain adds the likely fix to a denial; the API server's message (RBAC or the admission policy's) stays in
// the error.
func explain(err error) error {
	if apierrors.IsForbidden(err) {
		return fmt.Errorf("%w (the installer's service account may patch only this label on its own node: is the "+
			"readiness gate switched on in the extension, so that its ClusterRole, ClusterRoleBinding and "+
			"ValidatingAdmissionPolicy exist? see docs/readiness-gate.md)", err)
	}
	return err
}
