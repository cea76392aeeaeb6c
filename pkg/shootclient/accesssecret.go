// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package shootclient

import (
	"context"
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
)

// AccessSecretVersion names the shoot access secret New builds its client from, and its resourceVersion: the one
// the extension library's NewClientForShoot picks, gardener-internal unless
// GARDENER_SHOOT_CLIENT=external, else gardener. A client built from a secret of the same name and version is
// still the client New would build, so callers that keep clients compare this instead of building a new one.
func AccessSecretVersion(ctx context.Context, seed client.Reader, namespace string) (string, error) {
	names := []string{v1beta1constants.SecretNameGardenerInternal, v1beta1constants.SecretNameGardener}
	if os.Getenv("GARDENER_SHOOT_CLIENT") == "external" {
		names = names[1:]
	}
	var err error
	for _, name := range names {
		secret := &corev1.Secret{}
		if err = seed.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, secret); err == nil {
			return name + "@" + secret.ResourceVersion, nil
		} else if !apierrors.IsNotFound(err) {
			break
		}
	}
	return "", fmt.Errorf("reading the shoot access secret of namespace %s (secret gardener or gardener-internal): %w", namespace, err)
}
