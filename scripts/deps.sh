#!/bin/sh
# Install, idempotently, every Debian package that build, tests, demo and
# benchmarks need. Quick when everything is present: dpkg-query only.
set -eu

# The second kernel line the driver and the guest tests cover: Debian 12's
# 6.12 (bookworm-security). Not pinned to one ABI (the archive drops old
# ones): any installed 6.12.*+deb12-amd64 image with its headers will do,
# and when there is none, the newest of the line the archive has is
# installed (README: supported kernels).
K612_RE='^linux-image-6\.12\.[0-9]+\+deb12-amd64$'
# k612_installed: the newest 6.12 ABI whose image and headers are installed
k612_installed() {
	dpkg-query -W -f='${db:Status-Status} ${Package}\n' 'linux-image-6.12.*+deb12-amd64' 2>/dev/null |
		sed -n 's/^installed linux-image-//p' | sort -V | while read -r v; do
		[ "$(dpkg-query -W -f='${db:Status-Status}' "linux-headers-$v" 2>/dev/null)" = installed ] && echo "$v"
	done | tail -1
}
K612=$(k612_installed)

PKGS="make gcc clang llvm pkg-config libbpf-dev bpftool libelf-dev zlib1g-dev
libzstd-dev linux-image-amd64 linux-headers-amd64 qemu-system-x86
busybox-static cpio fio prometheus-node-exporter prometheus libcmocka-dev
sparse kmod socat jq libbpf-tools gnuplot-nox libclang-rt-14-dev dkms man-db
systemd curl python3 strace valgrind file debhelper dh-dkms dpkg-dev lintian
mmdebstrap fdisk qemu-utils pciutils ansible openssh-client
qemu-system-arm gcc-aarch64-linux-gnu libbpf-dev:arm64 libelf-dev:arm64
zlib1g-dev:arm64 libzstd-dev:arm64 qemu-user-static arch-test
${K612:+linux-image-$K612 linux-headers-$K612}"

missing=""
for p in $PKGS; do
	# with arm64 added, a bare name may match both architectures' packages:
	# the native one (or the arch-independent one) is the one meant
	case "$p" in
	*:*) q=$p ;;
	*) q=$p:$(dpkg --print-architecture) ;;
	esac
	st=$(dpkg-query -W -f='${db:Status-Status}' "$q" 2>/dev/null ||
		dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$st" = installed ] || missing="$missing $p"
done
[ -z "$missing" ] && [ -n "$K612" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages:$missing; run 'make deps' as root" >&2
	exit 1
fi
echo "deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
# the arm64 lane cross-builds against the archive's arm64 libraries and
# unpacks its arm64 kernels (tests/arm64/run)
dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64
# several checkouts may install at once: wait for dpkg's lock, do not fail
apt-get -o DPkg::Lock::Timeout=900 update -q
if [ -z "$K612" ]; then
	K612=$(apt-cache pkgnames linux-image-6.12. | grep -E "$K612_RE" | sed 's/^linux-image-//' | sort -V | tail -1)
	[ -n "$K612" ] || { echo "deps: the archive has no linux-image-6.12.*+deb12-amd64 (is bookworm-security in the apt sources?)" >&2; exit 1; }
	echo "deps: the newest 6.12 kernel of the archive: $K612"
	missing="$missing linux-image-$K612 linux-headers-$K612"
fi
# shellcheck disable=SC2086
apt-get -o DPkg::Lock::Timeout=900 install -y -q --no-install-recommends $missing
