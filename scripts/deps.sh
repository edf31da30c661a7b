#!/bin/sh
# Install, idempotently, every Debian package that build, tests, demo and
# benchmarks need. Quick when everything is present: dpkg-query only.
set -eu

# The second kernel line the driver and the guest tests cover: Debian 12's
# 6.12 (bookworm-security), pinned to one ABI so that the check stays a
# dpkg-query and every machine tests the same kernel (README: supported kernels).
K612=6.12.118+deb12-amd64

PKGS="make gcc clang llvm pkg-config libbpf-dev bpftool libelf-dev zlib1g-dev
libzstd-dev linux-image-amd64 linux-headers-amd64 qemu-system-x86
busybox-static cpio fio prometheus-node-exporter prometheus libcmocka-dev
sparse kmod socat jq libbpf-tools gnuplot-nox libclang-rt-14-dev dkms man-db
systemd curl python3 strace valgrind file debhelper dh-dkms dpkg-dev lintian
mmdebstrap fdisk qemu-utils pciutils
linux-image-$K612 linux-headers-$K612"

missing=""
for p in $PKGS; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$st" = installed ] || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages:$missing; run 'make deps' as root" >&2
	exit 1
fi
echo "deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
# several checkouts may install at once: wait for dpkg's lock, do not fail
apt-get -o DPkg::Lock::Timeout=900 update -q
# shellcheck disable=SC2086
apt-get -o DPkg::Lock::Timeout=900 install -y -q --no-install-recommends $missing
