// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/jsonpath"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// guideReportJSONPath finds, in docs/operator-guide.md, the jsonpath of the one-liner that lists the installers'
// reports per node, so that the test runs what the guide says.
var guideReportJSONPath = regexp.MustCompile(`-o jsonpath='(\{range \.items\[\*\]\}[^']*initContainerStatuses[^']*)'`)

// checkGuideReportOneLiner runs the operator guide's report one-liner against pool's pods (bound copies,
// guidePods) as the API server returns them, the way `kubectl get -o jsonpath` does (client-go's jsonpath on the list's JSON, missing keys
// allowed), and checks that it prints, per node of want, the node and its installer's report on one line.
func (sh *testShoot) checkGuideReportOneLiner(pool string, want map[string]string) {
	sh.t.Helper()
	doc, err := os.ReadFile("../../docs/operator-guide.md")
	must(sh.t, err)
	m := guideReportJSONPath.FindSubmatch(doc)
	if m == nil {
		sh.t.Fatalf("docs/operator-guide.md: no report one-liner (-o jsonpath='{range .items[*]}...initContainerStatuses...')")
	}
	sh.guidePods(pool, sh.ns)
	list := &corev1.PodList{}
	must(sh.t, sh.c.List(context.Background(), list, client.InNamespace(sh.ns),
		client.MatchingLabels{"app.kubernetes.io/name": "gvisor-installation", "app.kubernetes.io/instance": pool}))
	raw, err := json.Marshal(list)
	must(sh.t, err)
	var obj any
	must(sh.t, json.Unmarshal(raw, &obj))
	jp := jsonpath.New("guide").AllowMissingKeys(true)
	must(sh.t, jp.Parse(string(m[1])))
	var out bytes.Buffer
	must(sh.t, jp.Execute(&out, obj))
	if kubectl, err := exec.LookPath("kubectl"); err == nil {
		// And the real kubectl, where there is one, prints the same.
		got, err := exec.Command(kubectl, "--kubeconfig", sh.stack.KubeconfigPath, "-n", sh.ns, "get", "pods",
			"-l", "app.kubernetes.io/name=gvisor-installation,app.kubernetes.io/instance="+pool, "-o", "jsonpath="+string(m[1])).Output()
		if err != nil || string(got) != out.String() {
			sh.t.Errorf("kubectl prints %q (%v), client-go's jsonpath %q", got, err, out.String())
		}
	}
	lines := strings.Split(out.String(), "\n")
	for node, report := range want {
		if !slices.Contains(lines, node+"\t"+report) {
			sh.t.Errorf("the operator guide's one-liner %s does not print %q on a line of its own:\n%s", m[1], node+"\t"+report, out.String())
		}
	}
}

// guidePods copies pool's install pods, spec and status, into the test namespace ns, each bound to the node its
// DaemonSet pod targets (spec.nodeName, as the scheduler sets it on a real cluster; the test control plane has
// none). Copies, because a bound pod is deleted only by its node's kubelet, which the test has not either: the
// pool's own pods must stay unbound for its uninstall rollout. The copies are force-deleted at the end.
func (sh *testShoot) guidePods(pool, ns string) {
	sh.t.Helper()
	ctx := context.Background()
	for node, p := range sh.pods(pool, false) {
		c := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "guide-" + p.Name, Labels: p.Labels}, Spec: *p.Spec.DeepCopy()}
		c.Spec.NodeName = node
		must(sh.t, sh.c.Create(ctx, c))
		sh.t.Cleanup(func() { _ = sh.c.Delete(context.Background(), c, client.GracePeriodSeconds(0)) })
		c.Status = *p.Status.DeepCopy()
		must(sh.t, sh.c.Status().Update(ctx, c))
	}
}
