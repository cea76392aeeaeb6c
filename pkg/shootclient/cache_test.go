// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package shootclient

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubescheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// A kubeconfig as gardenlet writes into the gardener secret: a token, a server. The client built from it is never
// used to send a request here; what the test judges is which client Cache hands out.
const testKubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: shoot
  cluster:
    server: https://api.shoot.invalid
contexts:
- name: shoot
  context:
    cluster: shoot
    user: shoot
current-context: shoot
users:
- name: shoot
  user:
    token: abc
`

func accessSecret(namespace, name string) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Data:       map[string][]byte{"kubeconfig": []byte(testKubeconfig)},
	}
}

func TestCacheKeepsOneClientPerSecretVersion(t *testing.T) {
	ctx := context.Background()
	secret := accessSecret("shoot--a--one", "gardener")
	seed := fake.NewClientBuilder().WithScheme(kubescheme.Scheme).WithObjects(secret, accessSecret("shoot--a--two", "gardener-internal")).Build()
	c := NewCache(seed)

	first, err := c.Client(ctx, "shoot--a--one")
	if err != nil {
		t.Fatalf("first client: %v", err)
	}
	again, err := c.Client(ctx, "shoot--a--one")
	if err != nil {
		t.Fatalf("second client: %v", err)
	}
	if first != again {
		t.Errorf("the access secret is unchanged, but Cache built a second client (a TLS handshake per call again)")
	}
	other, err := c.Client(ctx, "shoot--a--two")
	if err != nil {
		t.Fatalf("client of another shoot: %v", err)
	}
	if other == first {
		t.Errorf("two shoots got the same client")
	}

	// A token rotation rewrites the secret: the kept client carries the old token and must not be handed out.
	if err := seed.Get(ctx, client.ObjectKeyFromObject(secret), secret); err != nil {
		t.Fatal(err)
	}
	secret.Data["kubeconfig"] = []byte(strings.Replace(testKubeconfig, "token: abc", "token: def", 1))
	if err := seed.Update(ctx, secret); err != nil {
		t.Fatal(err)
	}
	rotated, err := c.Client(ctx, "shoot--a--one")
	if err != nil {
		t.Fatalf("client after rotation: %v", err)
	}
	if rotated == first {
		t.Errorf("the access secret was rewritten, but Cache handed out the client built from the old one")
	}

	// The shoot's secrets gone (the shoot is deleted): an error naming the secret, and the client is dropped.
	if err := seed.Delete(ctx, secret); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Client(ctx, "shoot--a--one"); err == nil || !strings.Contains(err.Error(), "secret gardener or gardener-internal") {
		t.Errorf("Client with the access secret gone: got error %v, want one naming the secret", err)
	}
	c.mu.Lock()
	_, kept := c.clients["shoot--a--one"]
	c.mu.Unlock()
	if kept {
		t.Errorf("the client of a shoot whose access secret is gone is still kept")
	}
}
