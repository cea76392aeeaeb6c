// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package images

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/hostfs"
)

// Annotations of the archive's index.json that name the image: containerd's (`ctr images import` names the image
// after it) and the OCI ref name (the tag).
const (
	AnnotationContainerdImageName = "io.containerd.image.name"
	AnnotationOCIRefName          = "org.opencontainers.image.ref.name"
)

// ContainerdName is ref as containerd and the kubelet name it: the registry always spelled out, docker.io for
// Docker Hub (go-containerregistry's index.docker.io).
func ContainerdName(ref name.Tag) string {
	registry := ref.RegistryStr()
	if registry == name.DefaultRegistry {
		registry = "docker.io"
	}
	return registry + "/" + ref.RepositoryStr() + ":" + ref.TagStr()
}

// WriteArchiveFile writes img named ref to file (replacing it only once complete), as WriteArchive.
func WriteArchiveFile(file string, ref name.Tag, img v1.Image, epoch time.Time) error {
	return hostfs.WriteAtomic(file, 0o644, func(w io.Writer) error { return WriteArchive(w, ref, img, epoch) })
}

// WriteArchive writes img as a tarball that is an OCI image layout (oci-layout, index.json, blobs/sha256/) and a
// docker-archive (manifest.json naming the same blobs) at once, as `docker save` writes them: `ctr images import`
// reads the layout and names the image after its index's annotations, keeping the manifest (the image's digest is the
// one a push of img gives); `docker load` reads manifest.json. Every entry has the time epoch.
func WriteArchive(w io.Writer, ref name.Tag, img v1.Image, epoch time.Time) error {
	files, blobs, err := archiveFiles(ref, img)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(w)
	for _, f := range files {
		if err := writeArchiveEntry(tw, f.name, int64(len(f.data)), bytes.NewReader(f.data), epoch); err != nil {
			return err
		}
	}
	for _, dir := range []string{"blobs/", "blobs/sha256/"} {
		if err := tw.WriteHeader(&tar.Header{Name: dir, Typeflag: tar.TypeDir, Mode: 0o755, ModTime: epoch}); err != nil {
			return fmt.Errorf("writing %s: %w", dir, err)
		}
	}
	for _, b := range blobs {
		if err := b.write(tw, epoch); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("finishing the archive: %w", err)
	}
	return nil
}

type archiveFile struct {
	name string
	data []byte
}

// archiveBlob is a blob of the archive: in memory (the manifest and config) or a layer, streamed.
type archiveBlob struct {
	digest v1.Hash
	data   []byte
	layer  v1.Layer
}

func (b archiveBlob) write(tw *tar.Writer, epoch time.Time) error {
	name := "blobs/sha256/" + b.digest.Hex
	if b.layer == nil {
		return writeArchiveEntry(tw, name, int64(len(b.data)), bytes.NewReader(b.data), epoch)
	}
	size, err := b.layer.Size()
	if err != nil {
		return fmt.Errorf("layer %s: %w", b.digest, err)
	}
	rc, err := b.layer.Compressed()
	if err != nil {
		return fmt.Errorf("layer %s: %w", b.digest, err)
	}
	defer rc.Close()
	return writeArchiveEntry(tw, name, size, rc, epoch)
}

func writeArchiveEntry(tw *tar.Writer, name string, size int64, r io.Reader, epoch time.Time) error {
	if err := tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644, Size: size, ModTime: epoch}); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if n, err := io.Copy(tw, r); err != nil || n != size {
		return fmt.Errorf("writing %s (%d of %d bytes): %w", name, n, size, err)
	}
	return nil
}

// archiveFiles returns the archive's small files (oci-layout, index.json, manifest.json) and its blobs.
func archiveFiles(ref name.Tag, img v1.Image) ([]archiveFile, []archiveBlob, error) {
	manifest, err := img.RawManifest()
	if err != nil {
		return nil, nil, fmt.Errorf("reading the manifest: %w", err)
	}
	config, err := img.RawConfigFile()
	if err != nil {
		return nil, nil, fmt.Errorf("reading the config: %w", err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, nil, fmt.Errorf("reading the config: %w", err)
	}
	mt, err := img.MediaType()
	if err != nil {
		return nil, nil, fmt.Errorf("reading the media type: %w", err)
	}
	manifestDigest, configDigest := sha256Of(manifest), sha256Of(config)
	blobs := []archiveBlob{{digest: configDigest, data: config}, {digest: manifestDigest, data: manifest}}
	layers, err := img.Layers()
	if err != nil {
		return nil, nil, fmt.Errorf("reading the layers: %w", err)
	}
	docker := dockerManifest{Config: "blobs/sha256/" + configDigest.Hex, RepoTags: []string{ContainerdName(ref)}}
	seen := map[v1.Hash]bool{configDigest: true, manifestDigest: true}
	for _, l := range layers {
		d, err := l.Digest()
		if err != nil {
			return nil, nil, fmt.Errorf("reading a layer's digest: %w", err)
		}
		docker.Layers = append(docker.Layers, "blobs/sha256/"+d.Hex)
		if !seen[d] {
			seen[d] = true
			blobs = append(blobs, archiveBlob{digest: d, layer: l})
		}
	}
	index := v1.IndexManifest{SchemaVersion: 2, MediaType: types.OCIImageIndex, Manifests: []v1.Descriptor{{
		MediaType: mt, Digest: manifestDigest, Size: int64(len(manifest)),
		Platform:    &v1.Platform{OS: cf.OS, Architecture: cf.Architecture, Variant: cf.Variant},
		Annotations: map[string]string{AnnotationContainerdImageName: ContainerdName(ref), AnnotationOCIRefName: ref.TagStr()},
	}}}
	indexJSON, err := json.Marshal(index)
	if err != nil {
		return nil, nil, fmt.Errorf("writing index.json: %w", err)
	}
	dockerJSON, err := json.Marshal([]dockerManifest{docker})
	if err != nil {
		return nil, nil, fmt.Errorf("writing manifest.json: %w", err)
	}
	return []archiveFile{
		{name: "oci-layout", data: []byte(`{"imageLayoutVersion":"1.0.0"}`)},
		{name: "index.json", data: indexJSON},
		{name: "manifest.json", data: dockerJSON},
	}, blobs, nil
}

// dockerManifest is an entry of a docker-archive's manifest.json.
type dockerManifest struct {
	Config   string
	RepoTags []string
	Layers   []string
}

func sha256Of(data []byte) v1.Hash {
	h, _, _ := v1.SHA256(bytes.NewReader(data)) // reading from memory does not fail
	return h
}

// ReadArchive reads the image of an archive WriteArchive wrote, unpacking it into dir (an empty directory): the
// image exactly as the archive has it, manifest and digest included.
func ReadArchive(file, dir string) (v1.Image, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", file, err)
	}
	defer f.Close()
	if err := untar(f, dir); err != nil {
		return nil, fmt.Errorf("unpacking %s: %w", file, err)
	}
	idx, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		return nil, fmt.Errorf("reading %s as an OCI image layout: %w", file, err)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		return nil, fmt.Errorf("reading %s's index.json: %w", file, err)
	}
	if len(m.Manifests) != 1 {
		return nil, fmt.Errorf("%s lists %d images, want one", file, len(m.Manifests))
	}
	img, err := idx.Image(m.Manifests[0].Digest)
	if err != nil {
		return nil, fmt.Errorf("reading the image of %s: %w", file, err)
	}
	return img, nil
}

// untar unpacks the regular files and directories of an archive below dir; any other entry, or a name that leaves
// dir, is an error (the archives are ours, this is not a general unpacker).
func untar(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		p := filepath.Join(dir, filepath.FromSlash(hdr.Name))
		if !strings.HasPrefix(p, filepath.Clean(dir)+string(filepath.Separator)) {
			return fmt.Errorf("entry %q leaves the archive", hdr.Name)
		}
		switch hdr.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(p, 0o755)
		case tar.TypeReg:
			err = writeFile(p, tr)
		default:
			err = fmt.Errorf("entry %q is neither a file nor a directory", hdr.Name)
		}
		if err != nil {
			return err
		}
	}
}

func writeFile(p string, r io.Reader) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
