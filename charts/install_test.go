// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package charts_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	resourcesv1alpha1 "github.com/gardener/gardener/pkg/apis/resources/v1alpha1"
	"github.com/gardener/gardener/pkg/utils/kubernetes/health"
	"github.com/gardener/gardener/pkg/utils/managedresources"
	"github.com/go-logr/logr"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	kubernetesscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/controller/containerruntime"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/envtest"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/gardenerfixtures"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

const serviceAccount = "gardener-extension-runtime-gvisor"

// TestInstallAndRunWithChartRBAC proves that the chart's RBAC is enough and no more: it `helm install`s the
// chart into a real kube-apiserver, then runs the controller (in-process, through the binary's entry point)
// with exactly the installed Deployment's args and a token of the chart's ServiceAccount, so every request
// is authorized by the chart's ClusterRole and Role only. The controller must become ready (its informers
// list/watch what they need), renew its Leases, and reconcile and delete a ContainerRuntime; and the
// ServiceAccount must be denied what the controller does not need.
func TestInstallAndRunWithChartRBAC(t *testing.T) {
	assets := realcomponents.KubebuilderAssets(t)
	realcomponents.Helm(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	cp, err := envtest.Start(ctx, envtest.Options{AssetsDir: assets, Audit: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			// What the ServiceAccount wrote, and which writes were refused: the first thing to look at.
			events, err := cp.AuditEvents()
			for _, e := range events {
				if e.User.Username == "system:serviceaccount:"+releaseNS+":"+serviceAccount {
					t.Log("audit:", e)
				}
			}
			if err != nil {
				t.Log(err)
			}
		}
		if err := cp.Stop(); err != nil {
			t.Error(err)
		}
	})
	// The real gardener-resource-manager (as admin: it is not under test) applies the ManagedResources, so that
	// Delete takes the uninstall path (the pool's content swapped to the uninstall and rolled out) instead of
	// skipping an installation that was never applied.
	rm, err := envtest.StartResourceManager(ctx, cp.Config, logr.Discard())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := rm.Stop(); err != nil {
			t.Error(err)
		}
	})
	if _, stderr, err := helm(t, "install", releaseName, extensionChart, "--namespace", releaseNS, "--create-namespace",
		"--kubeconfig", cp.KubeconfigPath, "-f", "testdata/gardener-injected-values.yaml",
		"-f", "testdata/imagevector-overwrite-values.yaml"); err != nil {
		t.Fatalf("helm install: %v\n%s", err, stderr)
	}

	admin, err := kubernetes.NewForConfig(cp.Config)
	if err != nil {
		t.Fatal(err)
	}
	deployment, err := admin.AppsV1().Deployments(releaseNS).Get(ctx, "gardener-extension-runtime-gvisor", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("installed Deployment: %v", err)
	}
	kubeconfig := serviceAccountKubeconfig(ctx, t, cp, admin)

	// The pod would read the installed ConfigMap at /imagevector through IMAGEVECTOR_OVERWRITE; the in-process
	// controller reads the same content from a file, proving it is an overwrite the controller accepts and applies.
	cm, err := admin.CoreV1().ConfigMaps(releaseNS).Get(ctx, "gardener-extension-runtime-gvisor-imagevector-overwrite", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("installed imagevector ConfigMap: %v", err)
	}
	env := deployment.Spec.Template.Spec.Containers[0].Env
	if len(env) < 2 || env[1].Name != "IMAGEVECTOR_OVERWRITE" {
		t.Fatalf("installed Deployment lacks IMAGEVECTOR_OVERWRITE: %+v", env)
	}
	t.Setenv("IMAGEVECTOR_OVERWRITE", writeFile(t, "images_overwrite.yaml", cm.Data["images_overwrite.yaml"]))

	// The installed args, plus what only differs outside a pod: the API server connection and free local
	// ports (later flags win).
	healthPort, metricsPort, webhookPort := testutil.FreePort(t), testutil.FreePort(t), testutil.FreePort(t)
	args := append(append([]string{}, deployment.Spec.Template.Spec.Containers[0].Args...),
		"--kubeconfig="+kubeconfig,
		// The OperatingSystemConfig webhook (registered with the chart's RBAC) on loopback, its certificates private.
		"--webhook-config-server-host=127.0.0.1", "--webhook-config-server-port="+strconv.Itoa(webhookPort),
		"--webhook-config-cert-dir="+t.TempDir(),
		"--health-bind-address=127.0.0.1:"+strconv.Itoa(healthPort),
		"--metrics-bind-address=127.0.0.1:"+strconv.Itoa(metricsPort))
	done := envtest.RunController(ctx, t, args)
	eventually(t, done, "controller /readyz", func() error {
		return httpOK(fmt.Sprintf("http://127.0.0.1:%d/readyz", healthPort))
	})
	// The metrics server is a runnable of its own: it may start listening after /readyz answers.
	eventually(t, done, "controller /metrics", func() error {
		return httpOK(fmt.Sprintf("http://127.0.0.1:%d/metrics", metricsPort))
	})

	c := adminClient(t, cp)
	for _, name := range []string{"gardener-extension-heartbeat", "gardener-extension-runtime-gvisor-leader-election"} {
		eventually(t, done, "Lease "+name, func() error {
			return c.Get(ctx, client.ObjectKey{Namespace: releaseNS, Name: name}, &coordinationv1.Lease{})
		})
	}

	// The OperatingSystemConfig webhook is registered (in the DaemonSet mode too) with the chart's RBAC: certificates
	// from Gardener's secrets manager in the release namespace, the CA bundle injected, the chart's Service.
	eventually(t, done, "MutatingWebhookConfiguration with CA bundle", func() error {
		mwc := &admissionregistrationv1.MutatingWebhookConfiguration{}
		if err := c.Get(ctx, client.ObjectKey{Name: "gardener-extension-runtime-gvisor"}, mwc); err != nil {
			return err
		}
		if len(mwc.Webhooks) != 1 || len(mwc.Webhooks[0].ClientConfig.CABundle) == 0 {
			return fmt.Errorf("webhooks %+v: want one with a CA bundle", mwc.Webhooks)
		}
		svc := mwc.Webhooks[0].ClientConfig.Service
		if svc == nil || svc.Name != "gardener-extension-runtime-gvisor" || svc.Namespace != releaseNS || svc.Port == nil || *svc.Port != 443 {
			return fmt.Errorf("clientConfig.service %+v: want the chart's Service gardener-extension-runtime-gvisor:443 in %s", svc, releaseNS)
		}
		return nil
	})

	// A ContainerRuntime as gardenlet creates it, reconciled into ManagedResources and deleted again.
	shoot := gardenerfixtures.Shoot("rbac", "test", "1.35.8")
	ns := gardenerfixtures.Namespace(shoot)
	testutil.Must(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	testutil.Must(t, c.Create(ctx, gardenerfixtures.Cluster(shoot)))
	// The shoot access secret gardenlet keeps there: the Delete below confirms the uninstall in the shoot with it.
	shootKubeconfig, err := os.ReadFile(cp.KubeconfigPath)
	testutil.Must(t, err)
	testutil.Must(t, c.Create(ctx, gardenerfixtures.ShootAccessSecret(ns, shootKubeconfig)))
	cr := gardenerfixtures.ContainerRuntime(ns, "pool", nil, v1beta1constants.GardenerOperationReconcile)
	testutil.Must(t, c.Create(ctx, cr))
	eventually(t, done, "ContainerRuntime reconciled", func() error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(cr), cr); err != nil {
			return err
		}
		// The first reconciliation of a new object is reported as Create.
		if op := cr.Status.LastOperation; op == nil || op.Type != "Create" || op.State != "Succeeded" {
			return fmt.Errorf("lastOperation %+v, lastError %+v", op, cr.Status.LastError)
		}
		return nil
	})
	mrs := &resourcesv1alpha1.ManagedResourceList{}
	testutil.Must(t, c.List(ctx, mrs, client.InNamespace(ns)))
	if len(mrs.Items) != 2 {
		t.Errorf("want the RuntimeClass and the pool's ManagedResource, got %d", len(mrs.Items))
	}
	objects, err := managedresources.GetObjects(ctx, c, ns, containerruntime.InstallationManagedResourceName("pool"))
	testutil.Must(t, err)
	var images []string
	sums := 0
	for _, obj := range objects {
		if ds, ok := obj.(*appsv1.DaemonSet); ok {
			for _, ctr := range append(ds.Spec.Template.Spec.InitContainers, ds.Spec.Template.Spec.Containers...) {
				images = append(images, ctr.Image)
			}
		}
		// The controller passes the gVisor release sums (imagevector/gvisor-sums.yaml; the Cluster names no
		// architecture for the pool, so both) in the runsc ConfigMap.
		if cm, ok := obj.(*corev1.ConfigMap); ok && cm.Data["SHA512SUMS.amd64"] != "" && cm.Data["SHA512SUMS.arm64"] != "" {
			sums++
		}
	}
	if sums != 1 {
		t.Errorf("the pool's runsc ConfigMap does not carry SHA512SUMS.amd64 and SHA512SUMS.arm64")
	}
	// Both containers (the installer and the idle process) run the one installation image.
	if want := "registry.example.com/gvisor/runtime-gvisor-installation:v0.1.0-custom"; len(images) != 2 || images[0] != want || images[1] != want {
		t.Errorf("installation images %v, want the installer and the idle container on %s from the chart's imageVectorOverwrite", images, want)
	}
	// Migrate (the ManagedResources go, their objects stay) and Restore (they come back), as gardenlet drives a
	// control plane migration, with the chart's RBAC only.
	poolMR := containerruntime.InstallationManagedResourceName("pool")
	waitApplied(t, done, c, ns, poolMR)
	operate(t, done, c, cr, v1beta1constants.GardenerOperationMigrate, "Migrate")
	eventually(t, done, "ManagedResources removed by Migrate", func() error {
		testutil.Must(t, c.List(ctx, mrs, client.InNamespace(ns)))
		if len(mrs.Items) != 0 {
			return fmt.Errorf("%d ManagedResources left", len(mrs.Items))
		}
		return nil
	})
	operate(t, done, c, cr, v1beta1constants.GardenerOperationRestore, "Restore")
	waitApplied(t, done, c, ns, poolMR)
	waitApplied(t, done, c, ns, containerruntime.ManagedResourceName)

	// Delete takes the uninstall path: the controller swaps the pool's content to the uninstall (a new Secret and
	// an update of the pool's ManagedResource) and waits for it, then removes both ManagedResources.
	events, err := cp.AuditEvents()
	testutil.Must(t, err)
	mark := len(events)
	testutil.Must(t, c.Delete(ctx, cr))
	eventually(t, done, "ContainerRuntime deleted", func() error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(cr), cr); err == nil {
			return fmt.Errorf("still there: lastOperation %+v, lastError %+v", cr.Status.LastOperation, cr.Status.LastError)
		}
		return nil
	})

	events, err = cp.AuditEvents()
	testutil.Must(t, err)
	swapped := false
	for _, e := range events[mark:] {
		if e.User.Username == "system:serviceaccount:"+releaseNS+":"+serviceAccount && e.ObjectRef.Resource == "managedresources" &&
			e.ObjectRef.Name == poolMR && (e.Verb == "update" || e.Verb == "patch") && e.ResponseStatus.Code < 300 {
			swapped = true
		}
	}
	if !swapped {
		t.Errorf("Delete did not take the uninstall path: no update of ManagedResource %s/%s by the controller", ns, poolMR)
	}

	// Least privilege: what the controller never does must be denied.
	for _, attr := range []authorizationv1.ResourceAttributes{
		{Verb: "list", Resource: "secrets"},
		{Verb: "watch", Resource: "secrets", Namespace: ns},
		{Verb: "get", Resource: "configmaps", Namespace: releaseNS},
		{Verb: "create", Resource: "pods", Namespace: ns},
		{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Namespace: releaseNS, Name: "someone-else"},
		{Verb: "create", Group: "coordination.k8s.io", Resource: "leases", Namespace: ns},
		{Verb: "delete", Group: "extensions.gardener.cloud", Resource: "containerruntimes", Namespace: ns},
		{Verb: "update", Group: "extensions.gardener.cloud", Resource: "clusters"},
		{Verb: "create", Group: "rbac.authorization.k8s.io", Resource: "clusterroles"},
		{Verb: "update", Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations", Name: "someone-else"},
		{Verb: "create", Group: "admissionregistration.k8s.io", Resource: "validatingwebhookconfigurations"},
	} {
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User:               "system:serviceaccount:" + releaseNS + ":" + serviceAccount,
			Groups:             []string{"system:serviceaccounts", "system:serviceaccounts:" + releaseNS, "system:authenticated"},
			ResourceAttributes: &attr,
		}}
		res, err := admin.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status.Allowed {
			t.Errorf("the ServiceAccount may %s %s/%s in %q (name %q): the chart grants more than needed", attr.Verb, attr.Group, attr.Resource, attr.Namespace, attr.Name)
		}
	}

	if _, stderr, err := helm(t, "uninstall", releaseName, "--namespace", releaseNS, "--kubeconfig", cp.KubeconfigPath); err != nil {
		t.Errorf("helm uninstall: %v\n%s", err, stderr)
	}
}

// operate sets gardenlet's operation annotation op on cr and waits for lastOperation typ to succeed.
func operate(t *testing.T, done *envtest.Controller, c client.Client, cr *extensionsv1alpha1.ContainerRuntime, op, typ string) {
	t.Helper()
	ctx := context.Background()
	testutil.Must(t, c.Get(ctx, client.ObjectKeyFromObject(cr), cr))
	patch := client.MergeFrom(cr.DeepCopy())
	metav1.SetMetaDataAnnotation(&cr.ObjectMeta, v1beta1constants.GardenerOperation, op)
	since := time.Now().Truncate(time.Second)
	testutil.Must(t, c.Patch(ctx, cr, patch))
	eventually(t, done, "ContainerRuntime "+typ, func() error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(cr), cr); err != nil {
			return err
		}
		o := cr.Status.LastOperation
		// The library reconciles right after a restore: a Reconcile that succeeded after the annotation counts too.
		okType := o != nil && (string(o.Type) == typ || (typ == "Restore" && o.Type == "Reconcile"))
		if !okType || o.State != "Succeeded" || o.LastUpdateTime.Time.Before(since) || cr.Annotations[v1beta1constants.GardenerOperation] != "" {
			return fmt.Errorf("lastOperation %+v, lastError %+v", o, cr.Status.LastError)
		}
		return nil
	})
}

// waitApplied waits until gardener-resource-manager applied the ManagedResource's current content.
func waitApplied(t *testing.T, done *envtest.Controller, c client.Client, ns, name string) {
	t.Helper()
	eventually(t, done, "ManagedResource "+name+" applied", func() error {
		mr := &resourcesv1alpha1.ManagedResource{}
		if err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, mr); err != nil {
			return err
		}
		return health.CheckManagedResourceApplied(mr)
	})
}

// serviceAccountKubeconfig writes a kubeconfig that authenticates as the chart's ServiceAccount with a
// token from the TokenRequest API, as the kubelet would mount it into the pod.
func serviceAccountKubeconfig(ctx context.Context, t *testing.T, cp *envtest.ControlPlane, admin kubernetes.Interface) string {
	t.Helper()
	expiry := int64(3600)
	tr, err := admin.CoreV1().ServiceAccounts(releaseNS).CreateToken(ctx, serviceAccount,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("token for ServiceAccount %s: %v", serviceAccount, err)
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["envtest"] = &clientcmdapi.Cluster{Server: cp.Config.Host, CertificateAuthorityData: cp.Config.CAData}
	cfg.AuthInfos["sa"] = &clientcmdapi.AuthInfo{Token: tr.Status.Token}
	cfg.Contexts["sa"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "sa"}
	cfg.CurrentContext = "sa"
	path := filepath.Join(t.TempDir(), "kubeconfig-serviceaccount")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

func adminClient(t *testing.T, cp *envtest.ControlPlane) client.Client {
	t.Helper()
	scheme := runtime.NewScheme()
	testutil.Must(t, extensionscontroller.AddToScheme(scheme))
	testutil.Must(t, kubernetesscheme.AddToScheme(scheme))
	c, err := client.New(cp.Config, client.Options{Scheme: scheme})
	testutil.Must(t, err)
	return c
}

// eventually polls check every 200ms for up to a minute; it stops early if the controller exits.
func eventually(t *testing.T, controller *envtest.Controller, what string, check func() error) {
	t.Helper()
	testutil.EventuallyWithin(t, time.Minute, what, func() error {
		err := check()
		if exited, cerr := controller.Exited(); err != nil && exited {
			t.Fatalf("%s: controller exited: %v (last check: %v)", what, cerr, err)
		}
		return err
	})
}

func httpOK(url string) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %d %s", url, resp.StatusCode, body)
	}
	return nil
}
