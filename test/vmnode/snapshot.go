// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package vmnode

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// A saved boot is a guest as its first boot left it (systemd running, nothing provisioned), kept beside the disk it
// booted from: the overlay as the boot wrote it and QEMU's migration stream of the machine. A node restored from it
// runs in seconds where a boot under TCG takes one to several minutes; a reboot of a restored node is a real boot of
// its kernel, so the boot path stays tested. One folder per boot configuration (savedBootKey); a saved boot that
// cannot be restored is removed and made again.
const (
	// savedBootsDir is the folder of saved boots inside the disk's folder (hack/tools/vm-node.sh removes it with an
	// outdated disk).
	savedBootsDir = "saved-boots"
	// savedBootFormat changes whenever what a saved boot holds, or the guest steps around it, change.
	savedBootFormat = "1"
	// saveTimeout bounds writing or reading the machine's state: QEMU stops the guest first, so the stream is
	// written once, some hundreds of MiB at the machine's disk speed (BENCHMARKS.md "Test suite").
	saveTimeout = 3 * time.Minute
	// savePoll is how often the progress of a save or restore is asked.
	savePoll = 200 * time.Millisecond
	// reseedBytes is what a restored guest's kernel gets from the machine's random source: every restore starts
	// from the same saved random state, which must not repeat from one node to the next.
	reseedBytes = 512
)

// savedBoot is a saved boot's two files.
type savedBoot struct{ dir string }

func (s savedBoot) overlay() string  { return filepath.Join(s.dir, "overlay.qcow2") }
func (s savedBoot) ramState() string { return filepath.Join(s.dir, "ram.state") }

func (s savedBoot) exists() bool {
	_, errO := os.Stat(s.overlay())
	_, errR := os.Stat(s.ramState())
	return errO == nil && errR == nil
}

// savedBootFor is where the saved boot of the node's configuration lives: its key covers everything QEMU's restore
// needs to be the same (QEMU's version, the machine's devices and size, the kernel's command line, the disk's
// files).
func (n *Node) savedBootFor(ctx context.Context) (savedBoot, error) {
	version, err := exec.CommandContext(ctx, "qemu-system-x86_64", "--version").Output()
	if err != nil {
		return savedBoot{}, fmt.Errorf("QEMU's version: %w", err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "format %s\n%s\n", savedBootFormat, version)
	canonical := *n
	canonical.work, canonical.overlay, canonical.share, canonical.console = "W", "W/overlay", "W/share", "W/console"
	canonical.sshPort, canonical.cfg.Forward, canonical.incoming = 0, nil, ""
	fmt.Fprintln(h, strings.Join(canonical.qemuArgs(), " "))
	for _, f := range []string{"vmlinuz", "initrd.img", "disk.img"} {
		fi, err := os.Stat(filepath.Join(n.cfg.Disk, f))
		if err != nil {
			return savedBoot{}, err
		}
		fmt.Fprintf(h, "%s %d %d\n", f, fi.Size(), fi.ModTime().UnixNano())
	}
	return savedBoot{dir: filepath.Join(n.cfg.Disk, savedBootsDir, hex.EncodeToString(h.Sum(nil))[:16])}, nil
}

// bootSaved starts the node from its configuration's saved boot, making it first (a cold boot, then the save) where
// there is none; a saved boot that cannot be restored is made again once.
func (n *Node) bootSaved(ctx context.Context) error {
	saved, err := n.savedBootFor(ctx)
	if err != nil {
		return err
	}
	if saved.exists() {
		err := n.restore(ctx, saved)
		if err == nil {
			return nil
		}
		n.logf("the saved boot %s could not be restored, making it again: %v", saved.dir, err)
		if err := n.discard(saved); err != nil {
			return err
		}
	}
	if err := n.newOverlay(filepath.Join(n.cfg.Disk, "disk.img"), "raw"); err != nil {
		return err
	}
	if err := n.boot(ctx); err != nil {
		return err
	}
	if err := n.save(ctx, saved); err != nil {
		return fmt.Errorf("saving the VM node's boot: %w", err)
	}
	// The restore continues this same boot: the node has booted once.
	n.boots = 0
	return n.restore(ctx, saved)
}

// discard stops the node's QEMU, if any, and removes the saved boot.
func (n *Node) discard(saved savedBoot) error {
	if n.qemu != nil {
		if err := n.kill(); err != nil {
			return err
		}
		n.qemu = nil
	}
	n.ssh.close()
	n.ssh = nil
	return os.RemoveAll(saved.dir)
}

// newOverlay creates the node's copy-on-write overlay over backing (of format backingFormat).
func (n *Node) newOverlay(backing, backingFormat string) error {
	if err := os.RemoveAll(n.overlay); err != nil {
		return err
	}
	out, err := exec.Command("qemu-img", "create", "-q", "-f", "qcow2", "-F", backingFormat, "-b", backing, n.overlay).CombinedOutput()
	if err != nil {
		return fmt.Errorf("qemu-img create of the overlay over %s: %w: %s", backing, err, out)
	}
	return nil
}

// save writes the running guest as saved: the 9p share unmounted (QEMU refuses to migrate a mounted one), the
// guest stopped, its machine state streamed to a file, QEMU ended and its overlay kept beside. The node is not
// running afterwards.
func (n *Node) save(ctx context.Context, saved savedBoot) error {
	t0 := time.Now()
	if _, err := n.Run(ctx, "umount /mnt/host && sync && echo 3 >/proc/sys/vm/drop_caches"); err != nil {
		return err
	}
	n.ssh.close()
	n.ssh = nil
	tmp := saved.dir + ".saving"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := n.migrateTo(ctx, filepath.Join(tmp, "ram.state")); err != nil {
		return err
	}
	if err := n.kill(); err != nil {
		return err
	}
	n.qemu = nil
	if err := moveFile(n.overlay, filepath.Join(tmp, "overlay.qcow2")); err != nil {
		return err
	}
	if err := os.Rename(tmp, saved.dir); err != nil {
		return err
	}
	fi, _ := os.Stat(saved.ramState())
	n.logf("saved the booted guest in %.1fs (%d MiB of machine state) to %s", time.Since(t0).Seconds(), fi.Size()>>20, saved.dir)
	return nil
}

// migrateTo stops the guest and writes QEMU's migration stream into path.
func (n *Node) migrateTo(ctx context.Context, path string) error {
	q, err := dialQMP(ctx, n.qmpSocket())
	if err != nil {
		return err
	}
	defer q.close()
	if err := q.execute("stop", nil, nil); err != nil {
		return err
	}
	if err := q.execute("migrate", map[string]any{"uri": "exec:cat > " + shellQuote(path)}, nil); err != nil {
		return err
	}
	return waitMigration(ctx, q, "QEMU's save to "+path)
}

// resumeRestored waits until QEMU has read the saved machine state and lets the guest run: the state was saved from
// a stopped guest, and QEMU keeps a restored machine in the state it was saved in.
func (n *Node) resumeRestored(ctx context.Context) error {
	q, err := dialQMP(ctx, n.qmpSocket())
	if err != nil {
		return err
	}
	defer q.close()
	if err := waitMigration(ctx, q, "QEMU's restore of "+n.incoming); err != nil {
		return err
	}
	return q.execute("cont", nil, nil)
}

// waitMigration polls QEMU's migration (a save or a restore, what) until it completed, failed or ran past
// saveTimeout.
func waitMigration(ctx context.Context, q *qmpClient, what string) error {
	deadline := time.Now().Add(saveTimeout)
	for {
		var st struct {
			Status string `json:"status"`
			Error  string `json:"error-desc"`
		}
		if err := q.execute("query-migrate", nil, &st); err != nil {
			return err
		}
		switch st.Status {
		case "completed":
			return nil
		case "failed", "cancelled":
			return fmt.Errorf("%s %s: %s", what, st.Status, st.Error)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s still %q after %s", what, st.Status, saveTimeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(savePoll):
		}
	}
}

// restore starts the node from saved on a fresh overlay over the saved one, then gives the guest what the saved
// state cannot know: the machine's time (its clock stands where the save stopped it), fresh randomness, and its
// share mounted again.
func (n *Node) restore(ctx context.Context, saved savedBoot) error {
	t0 := time.Now()
	if err := n.newOverlay(saved.overlay(), "qcow2"); err != nil {
		return err
	}
	n.incoming = saved.ramState()
	err := n.boot(ctx)
	n.incoming = ""
	if err != nil {
		return err
	}
	seed := make([]byte, reseedBytes)
	if _, err := rand.Read(seed); err != nil {
		return err
	}
	now := time.Now()
	script := fmt.Sprintf("date -u -s @%d.%09d >/dev/null && echo %s | base64 -d >/dev/urandom && mount /mnt/host",
		now.Unix(), now.Nanosecond(), base64.StdEncoding.EncodeToString(seed))
	if _, err := n.Run(ctx, script); err != nil {
		return fmt.Errorf("setting up the restored guest: %w", err)
	}
	n.logf("restored the booted guest in %.1fs from %s", time.Since(t0).Seconds(), saved.dir)
	return nil
}

// moveFile renames from to to, copying where they lie on different file systems (the node's folder is in the
// machine's temporary directory, the saved boots beside the disk).
func moveFile(from, to string) error {
	err := os.Rename(from, to)
	if !errors.Is(err, syscall.EXDEV) {
		return err
	}
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	if err := dst.Close(); err != nil {
		return err
	}
	return os.Remove(from)
}

// qmpSocket is QEMU's QMP socket in the node's folder.
func (n *Node) qmpSocket() string { return filepath.Join(n.work, "qmp.sock") }
