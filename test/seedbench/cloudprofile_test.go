// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package seedbench

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	gardenerextensions "github.com/gardener/gardener/pkg/extensions"
	gardenerutils "github.com/gardener/gardener/pkg/utils/gardener"
)

// TestCloudProfileIsRealistic keeps the generated CloudProfile at the size the benchmark claims (about 100 KB),
// deterministic, and decodable the way the extension library decodes a Cluster's CloudProfile.
func TestCloudProfileIsRealistic(t *testing.T) {
	a, err := json.Marshal(CloudProfile())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(CloudProfile())
	if !bytes.Equal(a, b) {
		t.Fatal("CloudProfile() is not deterministic")
	}
	if len(a) < 90_000 || len(a) > 115_000 {
		t.Errorf("CloudProfile is %d bytes of JSON, want about 100 KB (90-115 KB): adjust the counts in cloudprofile.go", len(a))
	}
	cluster := Cluster("shoot--bench--s00", "s00", []string{"s00-a", "s00-b", "s00-c"})
	decoded, err := gardenerextensions.CloudProfileFromCluster(cluster)
	if err != nil {
		t.Fatalf("the library cannot decode the Cluster's CloudProfile: %v", err)
	}
	if len(decoded.Spec.MachineTypes) != 150 || len(decoded.Spec.Regions) != 25 {
		t.Errorf("decoded CloudProfile has %d machine types and %d regions, want 150 and 25", len(decoded.Spec.MachineTypes), len(decoded.Spec.Regions))
	}
	shoot, err := gardenerextensions.ShootFromCluster(cluster)
	if err != nil {
		t.Fatalf("the library cannot decode the Cluster's Shoot: %v", err)
	}
	if len(shoot.Spec.Provider.Workers) != 3 || shoot.Spec.Kubernetes.Version == "" {
		t.Errorf("decoded Shoot has %d workers and version %q, want 3 and a version", len(shoot.Spec.Provider.Workers), shoot.Spec.Kubernetes.Version)
	}
	// Named as gardenlet names the shoot's seed namespace (the ContainerRuntimes gardenerfixtures builds live there).
	if want := gardenerutils.ComputeTechnicalID(strings.TrimPrefix(shoot.Namespace, gardenerutils.ProjectNamespacePrefix), shoot); cluster.Name != want {
		t.Errorf("Cluster %q: gardenlet names the namespace of shoot %s/%s %q", cluster.Name, shoot.Namespace, shoot.Name, want)
	}
	t.Logf("CloudProfile: %d bytes of JSON", len(a))
}
