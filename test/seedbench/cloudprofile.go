// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package seedbench

import (
	"encoding/json"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
)

// CloudProfile returns a deterministic CloudProfile shaped like a large public-cloud one on a real landscape
// (about 100 KB of JSON): many Kubernetes versions, four machine images with many versions and both
// architectures, 150 machine types, 25 regions with 3 zones each, and the provider's image mapping
// (one image ID per image version, region and architecture), which is what makes real ones big.
func CloudProfile() *gardencorev1beta1.CloudProfile {
	regions := regionNames()
	images, providerConfig := machineImages(regions)
	usable := true
	var volumeTypes []gardencorev1beta1.VolumeType
	for _, v := range []string{"gp2", "gp3", "io1", "io2", "st1", "sc1"} {
		volumeTypes = append(volumeTypes, gardencorev1beta1.VolumeType{Name: v, Class: "standard", Usable: &usable})
	}
	return &gardencorev1beta1.CloudProfile{
		TypeMeta:   metav1.TypeMeta{APIVersion: gardencorev1beta1.SchemeGroupVersion.String(), Kind: "CloudProfile"},
		ObjectMeta: metav1.ObjectMeta{Name: "aws", Labels: map[string]string{"provider.extensions.gardener.cloud/aws": "true"}},
		Spec: gardencorev1beta1.CloudProfileSpec{
			Type:           "aws",
			Kubernetes:     gardencorev1beta1.KubernetesSettings{Versions: kubernetesVersions()},
			MachineImages:  images,
			ProviderConfig: &runtime.RawExtension{Raw: providerConfig},
			MachineTypes:   machineTypes(),
			VolumeTypes:    volumeTypes,
			Regions:        cloudRegions(regions),
		},
	}
}

// expires is the expiration date of the i-th version: every three months one more from a fixed date, so that the
// profile is deterministic.
func expires(i int) *metav1.Time {
	t := metav1.NewTime(time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 3*i, 0))
	return &t
}

// classification classifies the i-th of n versions (oldest first): the newest two preview, the oldest third
// deprecated, the rest supported.
func classification(i, n int) *gardencorev1beta1.VersionClassification {
	c := gardencorev1beta1.ClassificationSupported
	switch {
	case i >= n-2:
		c = gardencorev1beta1.ClassificationPreview
	case i < n/3:
		c = gardencorev1beta1.ClassificationDeprecated
	}
	return &c
}

// kubernetesVersions are Kubernetes 1.30-1.35, 6 patch versions each, newest first.
func kubernetesVersions() []gardencorev1beta1.ExpirableVersion {
	var out []gardencorev1beta1.ExpirableVersion
	for minor := 35; minor >= 30; minor-- {
		for patch := 5; patch >= 0; patch-- {
			i := (35-minor)*6 + (5 - patch)
			out = append(out, gardencorev1beta1.ExpirableVersion{
				Version: fmt.Sprintf("1.%d.%d", minor, patch), ExpirationDate: expires(36 - i), Classification: classification(36-i, 36),
			})
		}
	}
	return out
}

// regionNames are 25 region names, two per geography.
func regionNames() []string {
	regions := make([]string, 0, 25)
	for _, geo := range []string{"eu-central", "eu-west", "eu-north", "eu-south", "us-east", "us-west", "ap-south", "ap-northeast", "ap-southeast", "ca-central", "sa-east", "me-central", "af-south"} {
		for n := 1; n <= 2 && len(regions) < 25; n++ {
			regions = append(regions, fmt.Sprintf("%s-%d", geo, n))
		}
	}
	return regions
}

// profileImage is a machine image: its name, its version format and its number of versions.
type profileImage struct {
	name    string
	version func(i int) string
	n       int
}

// profileImages are the four machine images.
func profileImages() []profileImage {
	return []profileImage{
		{"gardenlinux", func(i int) string { return fmt.Sprintf("%d.%d.0", 1592+i/4*10, i%4) }, 12},
		{"ubuntu", func(i int) string { return fmt.Sprintf("22.4.2026%02d%02d", 1+i%12, 1+i) }, 8},
		{"suse-chost", func(i int) string { return fmt.Sprintf("15.%d.2026%02d%02d", 5+i/6, 1+i%12, 10+i) }, 8},
		{"flatcar", func(i int) string { return fmt.Sprintf("%d.%d.0", 4081+i*37, i%3) }, 6},
	}
}

// machineImages returns the machine images and the provider's CloudProfileConfig (JSON) that maps each image
// version, region and architecture to an image ID.
func machineImages(regions []string) ([]gardencorev1beta1.MachineImage, []byte) {
	arches := []string{"amd64", "arm64"} // every image version is built for both
	var images []gardencorev1beta1.MachineImage
	var providerImages []map[string]any
	for ii, img := range profileImages() {
		mi := gardencorev1beta1.MachineImage{Name: img.name}
		var pVersions []map[string]any
		for i := 0; i < img.n; i++ {
			v := img.version(i)
			mi.Versions = append(mi.Versions, gardencorev1beta1.MachineImageVersion{
				ExpirableVersion: gardencorev1beta1.ExpirableVersion{Version: v, ExpirationDate: expires(i), Classification: classification(i, img.n)},
				CRI:              []gardencorev1beta1.CRI{{Name: gardencorev1beta1.CRINameContainerD, ContainerRuntimes: []gardencorev1beta1.ContainerRuntime{{Type: "gvisor"}}}},
				Architectures:    arches,
			})
			pVersions = append(pVersions, map[string]any{"version": v, "regions": imageRegions(regions, arches, ii, i)})
		}
		images = append(images, mi)
		providerImages = append(providerImages, map[string]any{"name": img.name, "versions": pVersions})
	}
	pc, err := json.Marshal(map[string]any{
		"apiVersion": "aws.provider.extensions.gardener.cloud/v1alpha1", "kind": "CloudProfileConfig", "machineImages": providerImages,
	})
	if err != nil {
		panic(err) // maps of strings and slices: cannot fail
	}
	return images, pc
}

// imageRegions is the provider's image IDs of version i of image ii, per region and architecture. Not every image
// version is published in every region: one of two.
func imageRegions(regions, arches []string, ii, i int) []map[string]any {
	var out []map[string]any
	for ri, r := range regions {
		if (ri+i+ii)%2 == 1 {
			continue
		}
		for ai, a := range arches {
			out = append(out, map[string]any{"name": r, "ami": fmt.Sprintf("ami-%017x", uint64(ii+1)<<52|uint64(i)<<40|uint64(ri)<<8|uint64(ai)), "architecture": a})
		}
	}
	return out
}

// machineTypes are 15 families x 10 sizes; families ending in g are arm64, g5 and p4d have GPUs.
func machineTypes() []gardencorev1beta1.MachineType {
	usable := true
	var out []gardencorev1beta1.MachineType
	for fi, family := range []string{"m5", "m6i", "m7i", "m6g", "m7g", "c5", "c6i", "c7i", "c7g", "r5", "r6i", "r7i", "r7g", "g5", "p4d"} {
		arch := "amd64"
		if family[len(family)-1] == 'g' {
			arch = "arm64"
		}
		for si, size := range []string{"large", "xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "24xlarge", "32xlarge", "48xlarge"} {
			cpu := 2 << si
			mem := cpu * (4 + fi%3*4)
			gpu := 0
			if family == "g5" || family == "p4d" {
				gpu = 1 << (si / 3)
			}
			out = append(out, gardencorev1beta1.MachineType{
				Name: family + "." + size, CPU: resource.MustParse(fmt.Sprint(cpu)), GPU: resource.MustParse(fmt.Sprint(gpu)),
				Memory: resource.MustParse(fmt.Sprintf("%dGi", mem)), Usable: &usable, Architecture: new(arch),
				Storage: &gardencorev1beta1.MachineTypeStorage{Class: "standard", Type: "gp3", MinSize: new(resource.MustParse("20Gi"))},
			})
		}
	}
	return out
}

// cloudRegions are the regions with three zones each; zone c lacks the largest GPU machine types.
func cloudRegions(regions []string) []gardencorev1beta1.Region {
	var out []gardencorev1beta1.Region
	for ri, r := range regions {
		region := gardencorev1beta1.Region{Name: r, Labels: map[string]string{"seed.gardener.cloud/eu-access": fmt.Sprint(ri < 8)}}
		for _, z := range []string{"a", "b", "c"} {
			zone := gardencorev1beta1.AvailabilityZone{Name: r + z}
			if z == "c" {
				zone.UnavailableMachineTypes = []string{"p4d.24xlarge", "p4d.32xlarge", "g5.48xlarge"}
			}
			region.Zones = append(region.Zones, zone)
		}
		out = append(out, region)
	}
	return out
}
