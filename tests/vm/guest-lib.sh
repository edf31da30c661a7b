# Helpers for guest test scripts (sourced by the guest's init before SCRIPT).
# Results are lines "PASS: name", "FAIL: name: why", "SKIP: name: why" in
# $OUT/results, which tests/vm/run-cases counts.

GUEST_MODULE=/usr/local/lib/virtio_blk_sgl.ko

# Each result also goes to $OUT/timeline with the guest's uptime, so that a
# slow case shows which of its steps took the time.
result() {
	echo "$1" | tee -a "$OUT/results"
	read -r _up _ </proc/uptime
	echo "$_up $1" >>"$OUT/timeline"
}
pass() { result "PASS: $1"; }
fail() { result "FAIL: $1: ${2:-failed}"; FAILED=1; }
skip() { result "SKIP: $1: ${2:-skipped}"; }
# check NAME CONDITION...: pass when the command succeeds
check() { n=$1; shift; if "$@"; then pass "$n"; else fail "$n" "$*"; fi; }
# check_eq NAME EXPECTED ACTUAL
check_eq() {
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "expected '$2', got '$3'"; fi
}

# fio, jq, bpftool, biolatency, bitesize, bash and gawk are on PATH: the
# guest's init wraps the host's binaries (shared read-only over 9p).

sgl_load() { insmod "$GUEST_MODULE" "$@"; }
sgl_unload() { rmmod virtio_blk_sgl; }
sgl_disks() { ls -d /sys/block/vsgl* 2>/dev/null | sed 's|.*/||'; }
# sgl_get DISK FILE: a value from /sys/block/DISK/sgl/FILE
sgl_get() { cat "/sys/block/$1/sgl/$2"; }
# blk_ios DISK: reads+writes+discards+flushes completed (/sys/block/DISK/stat).
# In 6.1 a flush from fsync is counted in both writes and flushes: use it
# for workloads without fsync.
blk_ios() { awk '{ print $1 + $5 + $12 + $16 }' "/sys/block/$1/stat"; }

# disk_of_serial SERIAL [PREFIX]: the vsgl disk (or the PREFIX* disk: vd for
# the in-tree driver's) whose serial is SERIAL (none: empty)
disk_of_serial() {
	for _s in /sys/block/"${2:-vsgl}"*; do
		[ "$(cat "$_s/serial" 2>/dev/null)" = "$1" ] && { echo "${_s##*/}"; return; }
	done
}
# wait_for SECONDS COMMAND...: poll every 0.2 s until COMMAND succeeds;
# returns COMMAND's last status
wait_for() {
	_t=$(($1 * 5)); shift
	while ! "$@" && [ $_t -gt 0 ]; do sleep 0.2; _t=$((_t - 1)); done
	"$@"
}

# intree_load: the in-tree virtio_blk and what it needs, from the initramfs
# (modules under /lib/modules/KVER; older layouts: /lib/modules)
intree_load() {
	for _m in $(cat /modules.stock); do
		insmod "/lib/modules/$(uname -r)/$_m" 2>/dev/null || insmod "/lib/modules/$_m" 2>/dev/null
	done
}
# move_to_intree DISK: the README's migration of one disk: unbind it from
# virtio_blk_sgl and let the in-tree virtio_blk bind it; fails when it does not
move_to_intree() {
	_dev=$(basename "$(readlink "/sys/block/$1/device")")
	echo "$_dev" >/sys/bus/virtio/drivers/virtio_blk_sgl/unbind || return 1
	intree_load
	wait_for 10 test -e "/sys/bus/virtio/drivers/virtio_blk/$_dev"
}

# json_last FILE: the last complete report in FILE while a running
# `sglstat -j` appends to it.  A report is more than one write(2) (about
# 20 kB with --cumulative), so a reader can catch the file's last line half
# written: jq then prints the line before and fails on the torn one.
json_last() { tail -n 2 "$1" | jq -c . 2>/dev/null | tail -1; }
# json_seq FILE: seq of the last complete report in FILE; 0 before the first
# (so that "wait for seq + 2" also waits on a tracer that has just attached)
json_seq() { _q=$(json_last "$1" | jq .seq); echo "${_q:-0}"; }

# jv FILE FILTER: jq -c FILTER on the last complete report in FILE. A plain
# path (.disks[0].ops.read.seg_hist) is looked up in a table of every path
# of that report, made by one jq run and remade when FILE grows: under TCG
# each jq start costs ~0.3 s, and a case asks dozens of values of one
# report. Any other filter runs jq.
JV_TABLE='paths as $p | "\($p | map(if type == "number" then "[\(.)]" else ".\(.)" end) | join(""))\t\(getpath($p) | tojson)"'
jv() {
	if printf '%s\n' "$2" | grep -qE '^(\.[A-Za-z_][A-Za-z0-9_]*|\[[0-9]+\])+$'; then
		_sz=$(wc -c <"$1")
		if [ "$(cat "$1.jv-size" 2>/dev/null)" != "$_sz" ]; then
			rm -f "$1.jv-size"
			json_last "$1" | jq -r "$JV_TABLE" >"$1.jv" && [ -s "$1.jv" ] && echo "$_sz" >"$1.jv-size"
		fi
		if [ -e "$1.jv-size" ]; then
			awk -F '\t' -v k="$2" '$1 == k { print $2; f = 1; exit } END { if (!f) print "null" }' "$1.jv"
			return
		fi
	fi
	# any other filter, or no table (no complete report yet, jq failed)
	json_last "$1" | jq -c "$2"
}

# hmp "COMMAND": run a QEMU monitor command on the host; prints its reply.
HMP_SEQ=0
hmp() {
	HMP_SEQ=$((HMP_SEQ + 1))
	f=/mnt/host/ctl/$$-$HMP_SEQ
	echo "$1" > "$f.tmp" && mv "$f.tmp" "$f.req"
	i=0
	while [ ! -e "$f.rep" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	cat "$f.rep" 2>/dev/null
	rm -f "$f.rep"
}

# hmp_after SECONDS "COMMAND": have the host run COMMAND SECONDS from now,
# without waiting for it (e.g. while the guest is suspended); no reply
hmp_after() {
	HMP_SEQ=$((HMP_SEQ + 1))
	f=/mnt/host/ctl/$$-$HMP_SEQ
	echo "after $1: $2" > "$f.tmp" && mv "$f.tmp" "$f.req"
}

# fio_check NAME LOG FIO-ARGS...: run fio with FIO-ARGS (terse output in
# $OUT/LOG); pass NAME when it exits 0, else fail NAME with fio's first
# error or verify line
fio_check() {
	_fn=$1 _fl=$OUT/$2
	shift 2
	if fio "$@" --output-format=terse >"$_fl" 2>&1; then
		pass "$_fn"
	else
		fail "$_fn" "$(grep -m1 -i 'error\|verify' "$_fl")"
	fi
}

# disk_transport DISK: pci or mmio, read off where sysfs puts the device
disk_transport() {
	case $(readlink -f "/sys/block/$1/device") in
	*/pci[0-9]*) echo pci ;;
	*/platform/*) echo mmio ;;
	*) echo unknown ;;
	esac
}

# stall_disk DISK on|off: the device stops completing requests, or starts
# again. virtio-pci: bus mastering off (what the device was sent meanwhile
# stays pending until a reset); virtio-mmio has no bus mastering: the QEMU
# drive behind DISK (guest-run names disk N's drive dN) is throttled to 1
# byte/s, the backend holds the requests (a device reset drains them)
stall_disk() {
	if [ "${GUEST_TRANSPORT:-pci}" = mmio ]; then
		# (the serial asks the device: a reset may have killed it by "off")
		[ -e "/tmp/stall-$1.serial" ] || cat "/sys/block/$1/serial" >"/tmp/stall-$1.serial" || return 1
		_s=$(cat "/tmp/stall-$1.serial")
		[ "$2" = on ] && _r=$(hmp "block_set_io_throttle d${_s#sgl-disk} 1 0 0 0 0 0") ||
			_r=$(hmp "block_set_io_throttle d${_s#sgl-disk} 0 0 0 0 0 0")
		[ -z "$_r" ] || { echo "stall_disk: $_r"; return 1; }
		return 0
	fi
	_slot=$(basename "$(readlink -f "/sys/block/$1/device/..")")
	[ -e "/tmp/stall-$1.cmd" ] || setpci -s "$_slot" COMMAND >"/tmp/stall-$1.cmd" || return 1
	_c=$(cat "/tmp/stall-$1.cmd")
	[ "$2" = on ] && setpci -s "$_slot" COMMAND="$(printf '%04x' $((0x$_c & ~4)))" ||
		setpci -s "$_slot" COMMAND="$_c"
}
# del_vqs_fn: the transport's del_vqs (for a kprobe that counts deletions)
del_vqs_fn() { [ "${GUEST_TRANSPORT:-pci}" = mmio ] && echo vm_del_vqs || echo vp_del_vqs; }

# delvqs_watch: count every virtqueue deletion of the transport, by device:
# a kprobe on its del_vqs (vdev=ADDRESS) in a trace instance of its own,
# streamed to $OUT/del-vqs-trace.txt (unloading the module resets the trace
# buffers); delvqs_unwatch ends it. A test that deletes other devices' queues
# meanwhile (9p at a suspend) watches after them.
DELVQS=/sys/kernel/tracing/instances/vsgl-delvqs
delvqs_watch() {
	echo "p:vsgl_delvqs $(del_vqs_fn) vdev=%di:x64" >>/sys/kernel/tracing/kprobe_events && mkdir $DELVQS &&
		echo 1 >$DELVQS/events/kprobes/vsgl_delvqs/enable || { fail prereq "no kprobe on $(del_vqs_fn)"; return 1; }
	cat $DELVQS/trace_pipe >"$OUT/del-vqs-trace.txt" &
	DELVQS_PID=$!
}
delvqs_unwatch() {
	echo 0 >$DELVQS/events/kprobes/vsgl_delvqs/enable
	kill $DELVQS_PID
}

# unplug_disk QEMU_ID DISK: take the disk's virtio device away while the
# guest runs; returns at once, the removal goes on (a test waits for DISK to
# go). virtio-pci: the monitor's device_del (ACPI hot-unplug; prints the
# monitor's reply). virtio-mmio has no hot-unplug (microvm): the device is
# unbound from the transport's platform driver, which runs the same remove
# path (unregister_virtio_device) with the device still answering.
unplug_disk() {
	if [ "${GUEST_TRANSPORT:-pci}" = mmio ]; then
		_pdev=$(basename "$(readlink -f "/sys/block/$2/device/..")")
		[ -e "/sys/bus/platform/drivers/virtio-mmio/$_pdev" ] ||
			{ echo "unplug_disk: $2 is not on virtio-mmio ($_pdev)"; return 1; }
		(echo "$_pdev" >/sys/bus/platform/drivers/virtio-mmio/unbind) &
	else
		hmp "device_del $1"
	fi
}

# meminfo_settled: "MemFree Slab" in KiB from /proc/meminfo, page cache and
# reclaimable slab dropped first, so that memory tests compare like with like
meminfo_settled() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
	sleep 1
	echo 3 > /proc/sys/vm/drop_caches
	awk '/^MemFree:/ { f = $2 } /^Slab:/ { s = $2 } END { print f, s }' /proc/meminfo
}

# sysfs_sum FILE: /sys/block/*/sgl/FILE summed over our disks
sysfs_sum() {
	_t=0
	for _d in $(sgl_disks); do _t=$((_t + $(sgl_get "$_d" "$1"))); done
	echo $_t
}
# mem_load_cost PARAM: load the driver with PARAM (e.g. prealloc=1) and
# measure what it took (settled MemFree before and after, bytes) into
# MEM_COST; the driver's own figures, summed over its disks, into MEM_SG
# (sg_prealloc_bytes), MEM_SG_FULL (sg_full_prealloc_bytes), MEM_PDU
# (pdu_alloc_bytes) and MEM_PDU_PRE (pdu_alloc_bytes_prealloc).  Appends one
# line to $OUT/memory.txt; the driver stays loaded.  Fails when insmod does.
mem_load_cost() {
	set -- "$1" $(meminfo_settled)
	_free0=$2 _slab0=$3
	sgl_load "$1" || return 1
	sleep 1
	MEM_SG=$(sysfs_sum sg_prealloc_bytes) MEM_SG_FULL=$(sysfs_sum sg_full_prealloc_bytes)
	MEM_PDU=$(sysfs_sum pdu_alloc_bytes) MEM_PDU_PRE=$(sysfs_sum pdu_alloc_bytes_prealloc)
	set -- "$1" $(meminfo_settled)
	MEM_COST=$(((_free0 - $2) * 1024))
	echo "$1: cost $MEM_COST B (slab +$((($3 - _slab0) * 1024)) B), sg_prealloc_bytes $MEM_SG," \
		"sg_full_prealloc_bytes $MEM_SG_FULL, pdu_alloc_bytes $MEM_PDU, pdu_alloc_bytes_prealloc $MEM_PDU_PRE," \
		"nr_requests_total $(sysfs_sum nr_requests_total), max_segments $(sgl_get vsgla max_segments)" |
		tee -a "$OUT/memory.txt"
}
# median V...: the middle value (the lower middle one for an even count); the
# memory cases take it over rounds because one round can be off by a whole
# deferred free (a BPF map or RCU batch released while the module loads)
median() {
	printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
# at_least_90pct MEASURED BOUND: MEASURED >= 90% of BOUND (a lower-bound model)
at_least_90pct() { [ $(($1 * 10)) -ge $(($2 * 9)) ]; }
# within_10pct MEASURED PREDICTED: |MEASURED - PREDICTED| <= PREDICTED / 10
within_10pct() {
	_dev=$(($1 - $2))
	[ $_dev -lt 0 ] && _dev=$((-_dev))
	[ $((_dev * 10)) -le "$2" ]
}

# sgpool_bytes N I: what sg_alloc_table_chained() takes from sg_pool for N
# segments with I inline entries, restated from lib/sg_pool.c in shell so
# that tests have an oracle independent of include/sgl_model.h (N <= I with
# I >= 1 never allocates: sg_pool tests that before it drops a 1-entry chunk)
sgpool_ents() { p=8; while [ "$p" -lt "$1" ] && [ "$p" -lt 128 ]; do p=$((p * 2)); done; echo "$p"; }
sgpool_bytes() {
	n=$1 i=$2
	if [ "$n" -eq 0 ] || { [ "$i" -ge 1 ] && [ "$n" -le "$i" ]; }; then echo 0; return; fi
	left=$n
	[ "$i" -gt 1 ] && left=$((n - (i - 1)))
	if [ "$left" -le 128 ]; then echo $(($(sgpool_ents "$left") * 32)); return; fi
	full=$(((left - 128 + 126) / 127))
	left=$((left - full * 127))
	echo $(((full * 128 + $(sgpool_ents "$left")) * 32))
}

# ktext_dump SYMBOL: the live text of a kernel function as hex lines, read
# from /proc/kcore (the symbol's kallsyms address, up to the next symbol),
# so that a case can show what it made the kernel patch.
ktext_dump() {
	_a=$(grep -m1 " [tT] $1\$" /proc/kallsyms | cut -d' ' -f1)
	[ -n "$_a" ] || { echo "ktext_dump: no text symbol $1" >&2; return 1; }
	_n=$(awk -v a="$_a" '$1 > a && (n == "" || $1 < n) { n = $1 } END { print n }' /proc/kallsyms)
	_len=$((0x$_n - 0x$_a))
	_off=
	# readelf's LOAD lines: type offset vaddr paddr filesz memsz ...
	while read -r _t _o _v _p _fs _ms _rest; do
		_d=$((0x$_a - _v))
		# the shell's arithmetic is signed: same top bits first, then the range
		if [ $(((0x$_a ^ _v) >> 40)) = 0 ] && [ $_d -ge 0 ] && [ $_d -lt $((_ms)) ]; then
			_off=$((_o + _d))
			break
		fi
	done <<KCORE
$(readelf -lW /proc/kcore | grep ' LOAD ')
KCORE
	[ -n "$_off" ] && [ "$_len" -gt 0 ] && [ "$_len" -le 65536 ] ||
		{ echo "ktext_dump: $1 at $_a not found in /proc/kcore" >&2; return 1; }
	dd if=/proc/kcore bs=1 skip="$_off" count="$_len" 2>/dev/null | od -An -tx1 -v
}
