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
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
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
	c.recheck = 0 // every call reads the secret: what this test judges is what a read finds

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

// The checks of a shoot's pools in one round ask within moments of each other: one Secret GET answers them all.
func TestCacheReadsTheSecretOncePerRecheck(t *testing.T) {
	ctx := context.Background()
	gets := 0
	seed := fake.NewClientBuilder().WithScheme(kubescheme.Scheme).WithObjects(accessSecret("shoot--a--one", "gardener-internal")).
		WithInterceptorFuncs(interceptor.Funcs{Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			gets++
			return c.Get(ctx, key, obj, opts...)
		}}).Build()
	c := NewCache(seed)
	first, err := c.Client(ctx, "shoot--a--one")
	if err != nil {
		t.Fatal(err)
	}
	afterFirst := gets // the version, then New's own read
	for range 4 {
		kept, err := c.Client(ctx, "shoot--a--one")
		if err != nil {
			t.Fatal(err)
		}
		if kept != first {
			t.Fatalf("a second client within %s of the first", SecretRecheck)
		}
	}
	if gets != afterFirst {
		t.Errorf("4 more calls within %s read the seed %d more times, want 0", SecretRecheck, gets-afterFirst)
	}
	c.recheck = 0
	if _, err := c.Client(ctx, "shoot--a--one"); err != nil {
		t.Fatal(err)
	}
	if gets != afterFirst+1 {
		t.Errorf("a call after the recheck time read the seed %d times, want 1 (the secret's version)", gets-afterFirst)
	}
}
