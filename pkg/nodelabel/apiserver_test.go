package nodelabel_test

import (
	"context"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
)

// apiServer is a real etcd + kube-apiserver (KUBEBUILDER_ASSETS) with RBAC, the ServiceAccount admission plugin
// (envtest switches it off by default; kubelet-created pods get their token volume from it) and
// ValidatingAdmissionPolicy, which is on by default since 1.30.
type apiServer struct {
	cfg   *rest.Config // admin (system:masters)
	admin kubernetes.Interface
}

func startAPIServer(t *testing.T) *apiServer {
	t.Helper()
	env := &envtest.Environment{
		BinaryAssetsDirectory:    realcomponents.KubebuilderAssets(t),
		ControlPlaneStartTimeout: time.Minute,
		ControlPlaneStopTimeout:  time.Minute,
	}
	env.ControlPlane.GetAPIServer().Configure().Disable("disable-admission-plugins")
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("starting kube-apiserver: %v", err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("stopping kube-apiserver: %v", err)
		}
	})
	// No client-side throttling: the test sends a burst of requests on purpose.
	cfg.QPS, cfg.Burst = 1000, 1000
	admin, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &apiServer{cfg: cfg, admin: admin}
}

// tokenConfig returns a connection that authenticates only with token (no client certificate).
func (s *apiServer) tokenConfig(token string) *rest.Config {
	return &rest.Config{
		Host:            s.cfg.Host,
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{CAData: s.cfg.CAData},
		QPS:             1000,
		Burst:           1000,
	}
}

// requestToken asks the TokenRequest API for a token of service account kube-system/sa, bound to pod if it is
// not nil, as kubelet does for the token it mounts.
func (s *apiServer) requestToken(ctx context.Context, t *testing.T, sa string, pod *corev1.Pod) string {
	t.Helper()
	req := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](600)}}
	if pod != nil {
		req.Spec.BoundObjectRef = &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: pod.Name, UID: pod.UID}
	}
	resp, err := s.admin.CoreV1().ServiceAccounts("kube-system").CreateToken(ctx, sa, req, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("TokenRequest for service account kube-system/%s: %v", sa, err)
	}
	return resp.Status.Token
}
