// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodeagent_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/version"
	oscwebhook "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig/osctest"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
)

// TestMovedTagChangesNothingOnTheNode: a release pins the installation image by digest (the release step's own
// edit of images.yaml, imagevector.PinDigests); the operator mirrors it into their registry (an overwrite of the
// repository only). Whoever can push to that registry then moves the release's tag to another image, as an
// attacker who wants root on every gVisor node would. The extension's OSC webhook names the image by digest, and
// node-agent's real extractor, pulling through a real containerd, puts the released image's files on the node,
// not the moved tag's; in the DaemonSet mode, containerd's CRI, asked for the same reference as kubelet asks for the
// DaemonSet's image, pulls the release. The same OSC and image rendered from today's tag-only pin get the moved
// tag's image: the pin is what keeps it out.
func TestMovedTagChangesNothingOnTheNode(t *testing.T) {
	registry := startRegistry(t)
	tag, err := imagevector.PinnedTag(imagevector.ImageNameInstallation)
	if err != nil {
		t.Fatal(err)
	}
	released, moved := installationLayout("the released installation image"), installationLayout("ANOTHER image under the released tag")
	releasedRef := pushInstallationImage(t, registry, tag, released)
	digest := digestOf(t, releasedRef)

	pinnedYAML, err := imagevector.PinDigests(imagevector.ImagesYAML(), tag, map[string]string{imagevector.ImageNameInstallation: digest})
	if err != nil {
		t.Fatal(err)
	}
	mirror := registry + "/" + installationRepository
	pinned := oscFrom(t, pinnedYAML, mirror)
	tagOnly := oscFrom(t, imagevector.ImagesYAML(), mirror)
	for _, f := range imageRefFiles(t, pinned) {
		if want := mirror + ":" + tag + "@" + digest; f.Content.ImageRef.Image != want {
			t.Fatalf("the pinned release's OSC names %s for %s, want %s", f.Content.ImageRef.Image, f.Path, want)
		}
	}

	// The tag moves after the release, before the node pulls.
	pushInstallationImage(t, registry, tag, moved)
	if now := digestOf(t, releasedRef); now == digest {
		t.Fatalf("the tag %s still names %s after the push of another image", releasedRef, digest)
	}

	socket := startExtractorContainerd(t, registry)
	for _, tc := range []struct {
		name string
		osc  *extensionsv1alpha1.OperatingSystemConfig
		want map[string][]byte
	}{
		{"pinned by digest", pinned, released},
		{"by tag only", tagOnly, moved},
	} {
		// Each extraction into a node root of its own, through the same containerd: its store has both images.
		root := t.TempDir()
		writeHostsToml(t, root, registry)
		files := imageRefFiles(t, tc.osc)
		extractFiles(t, root, socket, files)
		for _, f := range files {
			got, err := os.ReadFile(filepath.Join(root, f.Path))
			if err != nil {
				t.Fatal(err)
			}
			if want := tc.want[f.Content.ImageRef.FilePathInImage]; string(got) != string(want) {
				t.Errorf("%s: node-agent extracted %q for %s from %s, want %q", tc.name, got, f.Path, f.Content.ImageRef.Image, want)
			}
		}
		t.Logf("%s: node-agent extracted %d files from %s", tc.name, len(files), files[0].Content.ImageRef.Image)
	}

	// The DaemonSet mode: kubelet asks containerd's CRI to pull the installation DaemonSet's image, the same
	// rendering of the image vector; the pinned reference gets the release, the tag alone the moved image.
	for ref, want := range map[string]string{pinnedRef(t, pinnedYAML, mirror): digest, mirror + ":" + tag: digestOf(t, releasedRef)} {
		got := criPull(t, socket, ref, mirror)
		if got != want {
			t.Errorf("CRI PullImage %s: the node got %s, want %s", ref, got, want)
		}
		t.Logf("CRI PullImage %s: the node got %s", ref, got)
	}
}

// pinnedRef is the installation image a development build renders from images.yaml (imagesYAML), mirrored to
// repository.
func pinnedRef(t testing.TB, imagesYAML []byte, repository string) string {
	t.Helper()
	vector, err := imagevector.Parse(imagesYAML, version.Version)
	if err != nil {
		t.Fatal(err)
	}
	img, err := vector.FindImage(imagevector.ImageNameInstallation)
	if err != nil {
		t.Fatal(err)
	}
	return repository + ":" + *img.Tag
}

// criPull pulls ref (an image in repository) through containerd's CRI, as kubelet does for a pod's image, and
// returns the digest of the manifest the node got (the image's repo digest in repository).
func criPull(t testing.TB, socket, ref, repository string) string {
	t.Helper()
	conn, err := grpc.NewClient("unix://"+socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	images := runtimeapi.NewImageServiceClient(conn)
	pulled, err := images.PullImage(ctx, &runtimeapi.PullImageRequest{Image: &runtimeapi.ImageSpec{Image: ref}})
	if err != nil {
		t.Fatalf("CRI PullImage %s: %v", ref, err)
	}
	st, err := images.ImageStatus(ctx, &runtimeapi.ImageStatusRequest{Image: &runtimeapi.ImageSpec{Image: pulled.ImageRef}})
	if err != nil || st.Image == nil {
		t.Fatalf("CRI ImageStatus of %s (%s): %v", ref, pulled.ImageRef, err)
	}
	for _, d := range st.Image.RepoDigests {
		if r, dg, ok := strings.Cut(d, "@"); ok && r == repository {
			return dg
		}
	}
	t.Fatalf("CRI ImageStatus of %s has no repo digest in %s: %v", ref, repository, st.Image.RepoDigests)
	return ""
}

// installationLayout is pkg/images' installation image layout with files that say which image they come from, by
// their path in the image.
func installationLayout(label string) map[string][]byte {
	out := map[string][]byte{}
	for _, p := range []string{"/gvisor-installer", "/" + oscwebhook.MetricServerBinary, "/" + oscwebhook.GPUCheckBinary,
		"/opt/gvisor/runsc", "/opt/gvisor/" + nodetest.ShimName, "/opt/gvisor/" + nodecontract.SumsFile} {
		out[p] = []byte(fmt.Sprintf("%s: %s\n", label, p))
	}
	return out
}

// pushInstallationImage pushes files (by their path in the image) as the installation image; see
// pushInstallationImageFiles.
func pushInstallationImage(t testing.TB, host, tag string, files map[string][]byte) string {
	t.Helper()
	var layout []imageFile
	for _, p := range slices.Sorted(maps.Keys(files)) {
		layout = append(layout, imageFile{path: strings.TrimPrefix(p, "/"), mode: 0o755, data: files[p]})
	}
	return pushInstallationImageFiles(t, host, tag, layout)
}

// digestOf is the digest the registry resolves ref (repository:tag) to now.
func digestOf(t testing.TB, ref string) string {
	t.Helper()
	r, err := name.ParseReference(ref, name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	desc, err := remote.Head(r)
	if err != nil {
		t.Fatalf("resolving %s: %v", ref, err)
	}
	return desc.Digest.String()
}

// oscFrom is the gVisor pool's OSC as the webhook mutates it with the image vector images.yaml (imagesYAML) of a
// development build, with the installation image mirrored to repository (an overwrite of the repository only).
func oscFrom(t testing.TB, imagesYAML []byte, repository string) *extensionsv1alpha1.OperatingSystemConfig {
	t.Helper()
	vector, err := imagevector.Parse(imagesYAML, version.Version)
	if err != nil {
		t.Fatal(err)
	}
	overwrite := filepath.Join(t.TempDir(), "images_overwrite.yaml")
	if err := os.WriteFile(overwrite, []byte(fmt.Sprintf("images:\n- name: %s\n  repository: %s\n", imagevector.ImageNameInstallation, repository)), 0o644); err != nil {
		t.Fatal(err)
	}
	if vector, err = imagevector.Overwrite(vector, overwrite); err != nil {
		t.Fatal(err)
	}
	osc := gardenletOSC()
	if err := ensurerFor(t, vector, oscwebhook.Options{}).MutateOSC(context.Background(), osctest.Cluster(osctest.Shoot(true, osctest.ProviderConfig)), osc, nil); err != nil {
		t.Fatalf("the OSC webhook's mutation: %v", err)
	}
	return osc
}

// imageRefFiles are the OSC's files that node-agent extracts from an image.
func imageRefFiles(t testing.TB, osc *extensionsv1alpha1.OperatingSystemConfig) []extensionsv1alpha1.File {
	t.Helper()
	var out []extensionsv1alpha1.File
	for _, f := range osc.Spec.Files {
		if f.Content.ImageRef != nil {
			out = append(out, *f.DeepCopy())
		}
	}
	if len(out) == 0 {
		t.Fatal("the gVisor pool's OSC has no imageRef file")
	}
	return out
}

// startExtractorContainerd starts a real containerd (the newest supported release) for node-agent's extractor and
// kubelet's CRI pulls, with the CRI's registry host config pointing at the test registry, and returns its socket.
func startExtractorContainerd(t testing.TB, registry string) string {
	t.Helper()
	c := installertest.Release(t, supported[len(supported)-1].minor)
	hosts := t.TempDir()
	writeHostsToml(t, hosts, registry)
	config := filepath.Join(t.TempDir(), "config.toml")
	toml := fmt.Sprintf("version = 3\n\n[plugins.'io.containerd.cri.v1.images'.registry]\n  config_path = %q\n", filepath.Join(hosts, "etc/containerd/certs.d"))
	if err := os.WriteFile(config, []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	return installertest.StartDaemon(t, c, config, t.TempDir()).Socket
}
