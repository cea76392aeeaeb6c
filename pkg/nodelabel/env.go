// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodelabel

import (
	"errors"
	"fmt"
	"net"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
)

// NodeNameEnv is the environment variable that names the node the installer runs on. The installation
// chart sets it from the downward API (fieldRef spec.nodeName) when the readiness gate is on.
const NodeNameEnv = "NODE_NAME"

// UserAgent identifies the installer's requests in the API server's audit log.
const UserAgent = "gvisor-installer"

// ErrNoNodeName is the one error for a missing node name: Set and Remove return it for an empty name, and the
// installer's --label-node (which reads $NODE_NAME) wraps it.
var ErrNoNodeName = errors.New(NodeNameEnv + " is not set: the installation pod must set it from the downward API " +
	"(env: [{name: " + NodeNameEnv + ", valueFrom: {fieldRef: {fieldPath: spec.nodeName}}}])")

// InClusterClient returns a REST client for the core API group that authenticates with the pod's service
// account token (mounted by kubelet at /var/run/secrets/kubernetes.io/serviceaccount; client-go re-reads it as
// kubelet rotates it). The token must be pod-bound (the default for mounted tokens), since the admission policy
// checks the node name it carries.
func InClusterClient() (rest.Interface, error) {
	cfg, err := rest.InClusterConfig()
	if errors.Is(err, rest.ErrNotInCluster) {
		return nil, fmt.Errorf("no in-cluster API server: %w (the readiness gate needs the pod's service account token: "+
			"is the gate switched on in the extension, so that the installation pod mounts it?)", err)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the in-cluster service account: %w", err)
	}
	return NewClient(cfg)
}

// NewClient returns a REST client for the core API group (/api, v1) with cfg's host and credentials. It is a
// plain REST client rather than client-go's typed clientset on purpose: the installer is a static binary in an
// image every node pulls, and k8s.io/api's types would more than double its size for two requests.
func NewClient(cfg *rest.Config) (rest.Interface, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.UserAgent = UserAgent
	cfg.APIPath = "/api"
	cfg.GroupVersion = &coreV1
	cfg.NegotiatedSerializer = codecs
	c, err := rest.RESTClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("building the API client: %w", err)
	}
	return c, nil
}

var coreV1 = schema.GroupVersion{Version: "v1"}

// codecs decode what the client reads besides raw JSON: the API server's Status answers, which client-go turns
// into errors that apierrors.IsForbidden and friends understand. Built once, read-only after.
var codecs = func() runtime.NegotiatedSerializer {
	s := runtime.NewScheme()
	metav1.AddToGroupVersion(s, coreV1)
	return serializer.NewCodecFactory(s).WithoutConversion()
}()

// isConnectionError reports network errors (API server restarting, load balancer switching).
func isConnectionError(err error) bool {
	var netErr net.Error
	return errors.As(err, &netErr)
}
