#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
# SPDX-License-Identifier: Apache-2.0
# Builds the disk of the VM node (test/vmnode): a Debian bookworm system that boots like a Gardener node (systemd
# as PID 1, cgroup v2 with every controller, containerd as a distribution-style systemd unit with
# SystemdCgroup = true), from Debian's packages only, and prints ONE line, the folder holding:
#   vmlinuz, initrd.img  the Debian kernel and initramfs the disk's own packages installed (QEMU boots them directly)
#   disk.img             the root filesystem, a sparse raw ext4 image; each test run boots a copy-on-write overlay
#   id_ed25519           the key the disk's root accepts over ssh
# The disk holds no binary of this project's other tools: containerd, crictl and the kubelet come per run through
# the VM's read-only share (test/vmnode provisions them), so the disk depends only on this script, and is rebuilt
# only when this script changes (its hash names the folder). Also installs QEMU, qemu-img and mmdebstrap with apt.
# Cold: about 5 minutes (mmdebstrap fetches some 680 MB of packages); warm: instant.
source "$(dirname "$0")/lib.sh"

# The packages of the node. systemd-sysv: systemd as PID 1; linux-image-amd64 and initramfs-tools: the kernel QEMU
# boots; openssh-server: the harness' way in; iptables and containernetworking-plugins: the CNI of the node's pods;
# runc: the runc containerd's runc shim starts (as Debian's containerd package depends on it).
packages=systemd-sysv,linux-image-amd64,initramfs-tools,udev,iproute2,kmod,dbus,procps,util-linux,e2fsprogs,openssh-server,iptables,containernetworking-plugins,runc,ca-certificates,conntrack,ethtool,socat
suite=bookworm
disk_size=8G

recipe=$(sha256sum "$0" | cut -c1-16)
dir="$TOOLS_DIR/vm-node-$recipe"

ok() { [ -s "$dir/vmlinuz" ] && [ -s "$dir/initrd.img" ] && [ -s "$dir/disk.img" ] && [ -s "$dir/id_ed25519" ] && [ -f "$dir/.complete" ]; }

need_apt() {
  command -v qemu-system-x86_64 >/dev/null && command -v qemu-img >/dev/null && command -v mmdebstrap >/dev/null &&
    command -v mkfs.ext4 >/dev/null
}
if ! need_apt; then
  log "installing QEMU, qemu-img and mmdebstrap with apt (about a minute)"
  [ "$(id -u)" = 0 ] || { log "apt needs root: run as root or install qemu-system-x86, qemu-utils, mmdebstrap and e2fsprogs yourself"; exit 1; }
  DEBIAN_FRONTEND=noninteractive quietly apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive quietly apt-get install -y -qq --no-install-recommends qemu-system-x86 qemu-utils mmdebstrap e2fsprogs >&2
fi
need_apt || { log "qemu-system-x86_64, qemu-img, mmdebstrap or mkfs.ext4 missing after apt"; exit 1; }

if ok; then echo "$dir"; exit 0; fi
[ "$(id -u)" = 0 ] || { log "building the VM node's disk needs root (mmdebstrap's root mode, mkfs.ext4 -d)"; exit 1; }
log "building the VM node's disk from Debian $suite's packages into $dir (cold: about 5 minutes)"
work="$TOOLS_DIR/vm-node-$recipe.build"
rm -rf "$work" && mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
root="$work/root"

ssh-keygen -q -t ed25519 -N '' -C vm-node -f "$work/id_ed25519"

quietly mmdebstrap --mode=root --variant=minbase --include="$packages" "$suite" "$root" \
  "deb http://deb.debian.org/debian $suite main" "deb http://deb.debian.org/debian $suite-updates main" \
  "deb http://deb.debian.org/debian-security $suite-security main" >&2

# The node's own configuration: what a node image brings before Gardener's node agent runs.
echo vm-node >"$root/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 vm-node\n' >"$root/etc/hosts"
printf '/dev/vda / ext4 rw,relatime 0 1\n' >"$root/etc/fstab"
# The share: this run's binaries and images, read-only (test/vmnode mounts it; nofail: a boot without it still boots).
mkdir -p "$root/mnt/host"
printf 'host /mnt/host 9p trans=virtio,version=9p2000.L,ro,msize=1048576,nofail 0 0\n' >>"$root/etc/fstab"
printf '9p\n9pnet_virtio\n' >"$root/etc/modules-load.d/9p.conf"
mkdir -p "$root/etc/systemd/network"
printf '[Match]\nName=en*\n\n[Network]\nDHCP=yes\n' >"$root/etc/systemd/network/20-wired.network"
install -d -m 0700 "$root/root/.ssh"
install -m 0600 "$work/id_ed25519.pub" "$root/root/.ssh/authorized_keys"
# sshd: no DNS lookups of the client (there is no resolver worth asking), root by key only.
printf 'UseDNS no\nPermitRootLogin prohibit-password\nPasswordAuthentication no\n' >"$root/etc/ssh/sshd_config.d/vm-node.conf"
# The kernel settings a Kubernetes node has (kubelet and CNI bridge).
printf 'br_netfilter\noverlay\n' >"$root/etc/modules-load.d/k8s.conf"
printf 'net.ipv4.ip_forward = 1\nnet.bridge.bridge-nf-call-iptables = 1\n' >"$root/etc/sysctl.d/90-k8s.conf"
# containerd as a distribution ships it (the unit of containerd's own repository): Type=notify, Delegate=yes,
# KillMode=process so a restart keeps the shims and sandboxes; PATH starts with Gardener's bin dir of container
# runtimes. The binaries come per run (/usr/local/bin); the unit waits for them.
cat >"$root/etc/systemd/system/containerd.service" <<'EOF'
[Unit]
Description=containerd container runtime
After=network.target local-fs.target
ConditionPathExists=/usr/local/bin/containerd

[Service]
Environment=PATH=/var/bin/containerruntimes:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
ExecStartPre=-/sbin/modprobe overlay
ExecStart=/usr/local/bin/containerd
Type=notify
Delegate=yes
KillMode=process
Restart=always
RestartSec=5
LimitNPROC=infinity
LimitCORE=infinity
TasksMax=infinity
OOMScoreAdjust=-999

[Install]
WantedBy=multi-user.target
EOF
chroot "$root" systemctl enable systemd-networkd ssh containerd >/dev/null 2>&1
# What slows a boot and does nothing for a node under test.
chroot "$root" systemctl mask apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer \
  man-db.timer systemd-timesyncd.service >/dev/null 2>&1 || true
# crictl asks containerd (its default endpoint list is deprecated and warns); its 2 s timeout is too short under TCG.
printf 'runtime-endpoint: unix:///run/containerd/containerd.sock\nimage-endpoint: unix:///run/containerd/containerd.sock\ntimeout: 300\n' >"$root/etc/crictl.yaml"
# containerd's CNI plugin directory is /opt/cni/bin; Debian's plugins live in /usr/lib/cni.
mkdir -p "$root/opt/cni" && ln -s /usr/lib/cni "$root/opt/cni/bin"
# Host keys are made at each overlay's first boot (below), not shared by every run's copy of the disk.
rm -f "$root"/etc/ssh/ssh_host_*
cat >"$root/etc/systemd/system/ssh-hostkeys.service" <<'EOF'
[Unit]
Description=ssh host keys of this disk copy
Before=ssh.service
ConditionPathExists=!/etc/ssh/ssh_host_ed25519_key

[Service]
Type=oneshot
ExecStart=/usr/bin/ssh-keygen -A

[Install]
WantedBy=multi-user.target
EOF
chroot "$root" systemctl enable ssh-hostkeys >/dev/null 2>&1

cp -L "$root/vmlinuz" "$work/vmlinuz"
cp -L "$root/initrd.img" "$work/initrd.img"
quietly mkfs.ext4 -q -F -L root -d "$root" "$work/disk.img" "$disk_size" >&2
rm -rf "$root"
mkdir -p "$dir"
for f in vmlinuz initrd.img disk.img id_ed25519 id_ed25519.pub; do mv "$work/$f" "$dir/$f"; done
touch "$dir/.complete"
# Earlier recipes' disks (some 700 MB each) go: only this script's is used.
for old in "$TOOLS_DIR"/vm-node-*; do
  [ "$old" = "$dir" ] || rm -rf "$old"
done
ok || { log "the VM node's disk is incomplete in $dir"; exit 1; }
echo "$dir"
