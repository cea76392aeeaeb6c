// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package images

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"fmt"
	"hash"
	"io"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// gzipLevel is fixed: the compressed bytes, and so every layer digest, depend on it (and on the Go toolchain's
// compress/flate, which GO_VERSION pins for releases). Best speed: a warm test build of the three images stays in
// seconds, at about a tenth more bytes to pull than the default level.
const gzipLevel = gzip.BestSpeed

// entry is one file or directory of a layer. Owners and modes are fixed by the definition, never taken from the
// build machine.
type entry struct {
	// path is absolute and clean.
	path string
	dir  bool
	mode int64 // permission bits, with the sticky bit for /tmp
	uid  int
	gid  int
	// source is the host file a regular file is copied from; data is the content when source is empty.
	source string
	data   []byte
}

// blobLayer is a gzip-compressed layer held in memory, with its digests computed while it was written: a layer is
// compressed exactly once (go-containerregistry's tarball layers compress again on every read).
type blobLayer struct {
	gz     []byte
	digest v1.Hash
	diffID v1.Hash
}

var _ v1.Layer = (*blobLayer)(nil)

func (l *blobLayer) Digest() (v1.Hash, error) { return l.digest, nil }
func (l *blobLayer) DiffID() (v1.Hash, error) { return l.diffID, nil }
func (l *blobLayer) Size() (int64, error)     { return int64(len(l.gz)), nil }
func (l *blobLayer) MediaType() (types.MediaType, error) {
	return types.OCILayer, nil
}
func (l *blobLayer) Compressed() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(l.gz)), nil
}
func (l *blobLayer) Uncompressed() (io.ReadCloser, error) {
	return gzip.NewReader(bytes.NewReader(l.gz))
}

// newLayer writes entries, plus every parent directory they lack (root, 0755), as a tar sorted by path with every
// timestamp at epoch, and compresses it.
func newLayer(entries []entry, epoch time.Time) (*blobLayer, error) {
	entries = withParents(entries)
	var gz bytes.Buffer
	diffHash, digestHash := sha256.New(), sha256.New()
	zw, err := gzip.NewWriterLevel(io.MultiWriter(&gz, digestHash), gzipLevel)
	if err != nil {
		return nil, fmt.Errorf("creating the layer's gzip writer: %w", err)
	}
	tw := tar.NewWriter(io.MultiWriter(zw, diffHash))
	for _, e := range entries {
		if err := writeEntry(tw, e, epoch); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("finishing the layer's tar: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("finishing the layer's gzip: %w", err)
	}
	return &blobLayer{gz: gz.Bytes(), digest: sha256Hash(digestHash), diffID: sha256Hash(diffHash)}, nil
}

func sha256Hash(h hash.Hash) v1.Hash {
	return v1.Hash{Algorithm: "sha256", Hex: fmt.Sprintf("%x", h.Sum(nil))}
}

// withParents returns entries with the missing parent directories added, sorted by path, so that a tar lists every
// directory before its content.
func withParents(entries []entry) []entry {
	have := map[string]bool{}
	for _, e := range entries {
		have[e.path] = true
	}
	out := append([]entry(nil), entries...)
	for _, e := range entries {
		for d := path.Dir(e.path); d != "/" && !have[d]; d = path.Dir(d) {
			have[d] = true
			out = append(out, entry{path: d, dir: true, mode: 0o755})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

func writeEntry(tw *tar.Writer, e entry, epoch time.Time) error {
	hdr := &tar.Header{
		Name: strings.TrimPrefix(e.path, "/"), Mode: e.mode, Uid: e.uid, Gid: e.gid, ModTime: epoch,
	}
	if e.dir {
		hdr.Typeflag, hdr.Name = tar.TypeDir, hdr.Name+"/"
		if err := tw.WriteHeader(hdr); err != nil {
			return fmt.Errorf("writing %s to the layer: %w", e.path, err)
		}
		return nil
	}
	hdr.Typeflag = tar.TypeReg
	content := io.Reader(bytes.NewReader(e.data))
	hdr.Size = int64(len(e.data))
	if e.source != "" {
		f, err := os.Open(e.source)
		if err != nil {
			return fmt.Errorf("reading %s for %s: %w", e.source, e.path, err)
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return fmt.Errorf("reading %s for %s: %w", e.source, e.path, err)
		}
		if !st.Mode().IsRegular() {
			return fmt.Errorf("%s (for %s) is not a regular file", e.source, e.path)
		}
		content, hdr.Size = f, st.Size()
	}
	if err := tw.WriteHeader(hdr); err != nil {
		return fmt.Errorf("writing %s to the layer: %w", e.path, err)
	}
	if n, err := io.Copy(tw, content); err != nil || n != hdr.Size {
		return fmt.Errorf("writing %s to the layer (%d of %d bytes): %w", e.path, n, hdr.Size, err)
	}
	return nil
}
