// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package shootprometheus

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	resourcesv1alpha1 "github.com/gardener/gardener/pkg/apis/resources/v1alpha1"
	"github.com/gardener/gardener/pkg/component"
	"github.com/gardener/gardener/pkg/component/observability/monitoring/kubestatemetrics"
	gardenerutils "github.com/gardener/gardener/pkg/utils/gardener"
	fakesecretsmanager "github.com/gardener/gardener/pkg/utils/secrets/manager/fake"
	monitoringv1alpha1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// kubeStateMetricsServiceIP is where, in env's network, the shoot kube-state-metrics' Service port is served (a
// seed's kube-proxy serves it on the Service's ClusterIP); the Prometheus' hosts file resolves the Service's name to it.
const kubeStateMetricsServiceIP = "127.0.0.2"

// kubeStateMetricsHost is the name the Prometheus' service discovery gives the kube-state-metrics Service's target.
func kubeStateMetricsHost(namespace string) string { return "kube-state-metrics." + namespace + ".svc" }

// KubeStateMetrics is the shoot's kube-state-metrics as Gardener deploys it for every shoot (its component
// kubestatemetrics with ClusterTypeShoot), run as a process in env's network: the container's arguments of Gardener's
// Deployment, its shoot access (the token requestor's Secret and the target ManagedResource's RBAC, applied by
// gardener-resource-manager) in the generic token kubeconfig at the path Gardener mounts it, Gardener's Service and
// ScrapeConfig in the shoot namespace. What a seed's pod network gives it, the test gives it: the Service's port is
// forwarded to the process's.
type KubeStateMetrics struct {
	cmd    *exec.Cmd
	exited chan struct{}
	log    *bytes.Buffer
	proxy  net.Listener
}

// Stop ends kube-state-metrics and the Service's forwarding; a nil KubeStateMetrics does nothing.
func (k *KubeStateMetrics) Stop() {
	if k == nil {
		return
	}
	if k.proxy != nil {
		k.proxy.Close()
	}
	if k.exited != nil {
		_ = k.cmd.Process.Kill()
		<-k.exited
	}
}

// gardenersKubeStateMetrics is what Gardener's component deploys for a shoot's kube-state-metrics.
type gardenersKubeStateMetrics struct {
	deployment   *appsv1.Deployment
	service      *corev1.Service
	scrapeConfig *monitoringv1alpha1.ScrapeConfig
	configMaps   map[string]*corev1.ConfigMap
	accessSecret string
}

// startKubeStateMetrics deploys Gardener's shoot kube-state-metrics into the shoot namespace (Service, ScrapeConfig,
// shoot access) and runs binary with its Deployment's arguments.
func startKubeStateMetrics(ctx context.Context, env Env, binary, namespace, dir string) (*KubeStateMetrics, error) {
	if env.Listen == nil || env.CA == nil {
		return nil, errors.New("the shoot's kube-state-metrics needs Env.Listen (its Service's port) and Env.CA (its kubeconfig)")
	}
	g, err := deployKubeStateMetrics(ctx, env.Client, namespace)
	if err != nil {
		return nil, err
	}
	token, err := waitToken(ctx, env.Client, namespace, g.accessSecret)
	if err != nil {
		return nil, err
	}
	argv, runDirs, err := g.command(dir, env.CA, token)
	if err != nil {
		return nil, err
	}
	hosts, err := writeHosts(filepath.Join(dir, "hosts"), map[string]string{"kube-apiserver": env.APIServerIP})
	if err != nil {
		return nil, err
	}
	k := &KubeStateMetrics{log: &bytes.Buffer{}}
	k.cmd = privateMounts(ctx, env, hosts, runDirs, nil, append([]string{binary}, argv...)...)
	k.cmd.Stdout, k.cmd.Stderr = k.log, k.log
	if err := k.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting kube-state-metrics: %w", err)
	}
	k.exited = make(chan struct{})
	go func() {
		_ = k.cmd.Wait()
		close(k.exited)
	}()
	if err := k.serve(ctx, env, g.service); err != nil {
		k.Stop()
		return nil, fmt.Errorf("%w\n%s", err, k.log)
	}
	return k, nil
}

// deployKubeStateMetrics runs Gardener's component into an in-memory seed and copies to the real one what
// gardenlet and gardener-resource-manager would put there: the shoot access Secret, the target ManagedResource
// (the RBAC in the shoot), the Service and the ScrapeConfig; the Deployment and its ConfigMaps it returns.
func deployKubeStateMetrics(ctx context.Context, c client.Client, namespace string) (*gardenersKubeStateMetrics, error) {
	mem := inMemorySeed()
	// The generic token kubeconfig gardenlet's secrets manager keeps in every shoot namespace: the component only
	// needs its name, the test writes the kubeconfig itself (command).
	generic := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: v1beta1constants.SecretNameGenericTokenKubeconfig, Namespace: namespace}}
	if err := mem.Create(ctx, generic); err != nil {
		return nil, err
	}
	values := kubestatemetrics.Values{ClusterType: component.ClusterTypeShoot, Image: "kube-state-metrics", Replicas: 1}
	if err := kubestatemetrics.New(mem, namespace, fakesecretsmanager.New(mem, namespace), values).Deploy(ctx); err != nil {
		return nil, fmt.Errorf("the shoot kube-state-metrics component of Gardener: %w", err)
	}
	g := &gardenersKubeStateMetrics{configMaps: map[string]*corev1.ConfigMap{}}
	if err := g.take(ctx, mem, namespace); err != nil {
		return nil, err
	}
	access := &corev1.Secret{}
	if err := mem.Get(ctx, client.ObjectKey{Namespace: namespace, Name: g.accessSecret}, access); err != nil {
		return nil, fmt.Errorf("the component's shoot access secret %s: %w", g.accessSecret, err)
	}
	if err := createCopy(ctx, c, access); err != nil {
		return nil, fmt.Errorf("the shoot access secret %s: %w", g.accessSecret, err)
	}
	if err := copyShootManagedResources(ctx, mem, c, namespace); err != nil {
		return nil, err
	}
	if err := createCopy(ctx, c, g.service); err != nil {
		return nil, fmt.Errorf("kube-state-metrics' Service: %w", err)
	}
	if err := createUnstructured(ctx, c, g.scrapeConfig); err != nil {
		return nil, fmt.Errorf("kube-state-metrics' ScrapeConfig: %w", err)
	}
	return g, nil
}

// take picks the Deployment, Service, ScrapeConfig and ConfigMaps out of the component's seed objects.
func (g *gardenersKubeStateMetrics) take(ctx context.Context, mem client.Client, namespace string) error {
	objs, err := seedObjects(ctx, mem, namespace)
	if err != nil {
		return err
	}
	for _, obj := range objs {
		switch o := obj.(type) {
		case *appsv1.Deployment:
			g.deployment = o
		case *corev1.Service:
			g.service = o
		case *monitoringv1alpha1.ScrapeConfig:
			g.scrapeConfig = o
		case *corev1.ConfigMap:
			g.configMaps[o.Name] = o
		}
	}
	if g.deployment == nil || g.service == nil || g.scrapeConfig == nil || len(g.deployment.Spec.Template.Spec.Containers) != 1 {
		return fmt.Errorf("the shoot kube-state-metrics component of Gardener deployed no Deployment with one container, Service or ScrapeConfig: %d objects", len(objs))
	}
	secrets := &corev1.SecretList{}
	if err := mem.List(ctx, secrets, client.InNamespace(namespace), client.MatchingLabels{resourcesv1alpha1.ResourceManagerPurpose: resourcesv1alpha1.LabelPurposeTokenRequest}); err != nil {
		return err
	}
	if len(secrets.Items) != 1 {
		return fmt.Errorf("the shoot kube-state-metrics component of Gardener made %d shoot access secrets, want 1", len(secrets.Items))
	}
	g.accessSecret = secrets.Items[0].Name
	return nil
}

// command is kube-state-metrics' command line, the Deployment container's arguments, and the directories it finds
// its volumes in: the generic token kubeconfig (a kubeconfig for https://kube-apiserver with the CA, its token file
// beside it) is bound at Gardener's mount path under /var/run; a ConfigMap's mount path outside /run cannot be made
// in a private mount namespace without touching the machine, so the arguments naming it are pointed at its files
// in dir.
func (g *gardenersKubeStateMetrics) command(dir string, ca []byte, token string) (args []string, runDirs map[string]string, err error) {
	pod := g.deployment.Spec.Template.Spec
	container := pod.Containers[0]
	args = append([]string(nil), container.Args...)
	runDirs = map[string]string{}
	for _, m := range container.VolumeMounts {
		files, err := g.volumeFiles(pod.Volumes, m.Name, ca, token)
		if err != nil {
			return nil, nil, err
		}
		local := filepath.Join(dir, "volumes", m.Name)
		if err := writeFiles(local, files); err != nil {
			return nil, nil, err
		}
		if strings.HasPrefix(m.MountPath, "/var/run/") {
			runDirs[m.MountPath] = local
			continue
		}
		for i, a := range args {
			if flag, path, ok := strings.Cut(a, "="); ok && strings.HasPrefix(path, m.MountPath+"/") {
				args[i] = flag + "=" + filepath.Join(local, strings.TrimPrefix(path, m.MountPath+"/"))
			}
		}
	}
	return args, runDirs, nil
}

// volumeFiles are the files of the pod's volume name: a ConfigMap's data, or the generic token kubeconfig's
// kubeconfig and token.
func (g *gardenersKubeStateMetrics) volumeFiles(volumes []corev1.Volume, name string, ca []byte, token string) (map[string][]byte, error) {
	for _, v := range volumes {
		if v.Name != name {
			continue
		}
		switch {
		case v.ConfigMap != nil:
			cm := g.configMaps[v.ConfigMap.Name]
			if cm == nil {
				return nil, fmt.Errorf("volume %s: no ConfigMap %s among the component's objects", name, v.ConfigMap.Name)
			}
			files := map[string][]byte{}
			for k, d := range cm.Data {
				files[k] = []byte(d)
			}
			return files, nil
		case v.Projected != nil:
			kubeconfig, err := genericKubeconfig(ca)
			return map[string][]byte{"kubeconfig": kubeconfig, resourcesv1alpha1.DataKeyToken: []byte(token)}, err
		}
		return nil, fmt.Errorf("volume %s: neither a ConfigMap nor the generic token kubeconfig", name)
	}
	return nil, fmt.Errorf("no volume %s in the Deployment", name)
}

// genericKubeconfig is a generic token kubeconfig as gardenlet writes it into every shoot namespace: the shoot's
// API server by its in-namespace name, its CA, and the token file of the access secret mounted beside it.
func genericKubeconfig(ca []byte) ([]byte, error) {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["shoot"] = &clientcmdapi.Cluster{Server: "https://kube-apiserver", CertificateAuthorityData: ca}
	cfg.AuthInfos["shoot"] = &clientcmdapi.AuthInfo{TokenFile: gardenerutils.PathShootToken}
	cfg.Contexts["shoot"] = &clientcmdapi.Context{Cluster: "shoot", AuthInfo: "shoot"}
	cfg.CurrentContext = "shoot"
	return clientcmd.Write(*cfg)
}

// serve forwards the Service's metrics port on kubeStateMetricsServiceIP to the process's port, as kube-proxy does,
// and waits until kube-state-metrics answers its health check through it.
func (k *KubeStateMetrics) serve(ctx context.Context, env Env, svc *corev1.Service) error {
	var port *corev1.ServicePort
	for i := range svc.Spec.Ports {
		if svc.Spec.Ports[i].Name == "metrics" {
			port = &svc.Spec.Ports[i]
		}
	}
	if port == nil {
		return fmt.Errorf("kube-state-metrics' Service %s has no port named metrics", svc.Name)
	}
	var err error
	if k.proxy, err = env.Listen("tcp", net.JoinHostPort(kubeStateMetricsServiceIP, strconv.Itoa(int(port.Port)))); err != nil {
		return fmt.Errorf("serving kube-state-metrics' Service port: %w", err)
	}
	go forward(k.proxy, env.Dial, net.JoinHostPort("127.0.0.1", port.TargetPort.String()))
	httpClient := &http.Client{Transport: &http.Transport{DialContext: env.Dial}, Timeout: 5 * time.Second}
	url := "http://" + k.proxy.Addr().String() + "/healthz"
	return poll(ctx, "kube-state-metrics healthy at "+url, func() error {
		select {
		case <-k.exited:
			return fmt.Errorf("kube-state-metrics ended: %s: %w", k.cmd.ProcessState, errGaveUp)
		default:
		}
		resp, err := httpClient.Get(url)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s: %s", url, resp.Status)
		}
		return nil
	})
}

// forward copies every connection accepted on l to a new connection to target, both ways, until l is closed.
func forward(l net.Listener, dial func(ctx context.Context, network, addr string) (net.Conn, error), target string) {
	for {
		in, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			defer in.Close()
			out, err := dial(context.Background(), "tcp", target)
			if err != nil {
				return
			}
			defer out.Close()
			go func() {
				_, _ = io.Copy(out, in)
				out.Close()
			}()
			_, _ = io.Copy(in, out)
		}()
	}
}
