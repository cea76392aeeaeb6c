package nodelabel

import (
	"errors"
	"fmt"
	"net"
	"os"

	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
)

// NodeNameEnv is the environment variable that names the node the installer runs on. The installation
// chart sets it from the downward API (fieldRef spec.nodeName) when the readiness gate is on.
const NodeNameEnv = "NODE_NAME"

// UserAgent identifies the installer's requests in the API server's audit log.
const UserAgent = "gvisor-installer"

// NodeNameFromEnv returns $NODE_NAME, or an error saying how to set it.
func NodeNameFromEnv() (string, error) {
	name := os.Getenv(NodeNameEnv)
	if name == "" {
		return "", fmt.Errorf("%s is not set: the installation pod must set it from the downward API "+
			"(env: [{name: %s, valueFrom: {fieldRef: {fieldPath: spec.nodeName}}}])", NodeNameEnv, NodeNameEnv)
	}
	return name, nil
}

// InClusterClient returns a client for Nodes that authenticates with the pod's service account token
// (mounted by kubelet at /var/run/secrets/kubernetes.io/serviceaccount, refreshed by client-go as kubelet
// rotates it). The token must be pod-bound (the default for mounted tokens), since the admission policy
// checks the node name it carries.
func InClusterClient() (corev1client.NodesGetter, error) {
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

// NewClient returns a client for Nodes with cfg (tests pass a token-only config of the service account).
func NewClient(cfg *rest.Config) (corev1client.NodesGetter, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.UserAgent = UserAgent
	c, err := corev1client.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("building the Node client: %w", err)
	}
	return c, nil
}

// isConnectionError reports network errors (API server restarting, load balancer switching).
func isConnectionError(err error) bool {
	var netErr net.Error
	return errors.As(err, &netErr)
}
