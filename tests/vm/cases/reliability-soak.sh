# guest-run-args: --testing --disks 3 --disk-size 32M --smp 2 --timeout 600 --modparams "inline_sg_cnt=2"
# expect-results: 13 (at least; tests/vm/run-cases fails the case with fewer result lines)
# Soak: SOAK_SECONDS (default 30 in make check; tests/reliability/soak passes another
# value through guest-run --file soak.env) of mixed fio load on every disk
# (random and sequential writes with crc32c verify, random reads, 4k..256k,
# QD 4..16) in phases of ~PHASE seconds.  Between phases, at quiescent
# points, the faults rotate: fail_chain_percent=5 for a phase, vd2 hot-removed
# (device_del), vd2 hot-added again (drive_add + device_add), and once the
# driver is reloaded.  Two sglstat run meanwhile:
#  - SS, stock mode (-j --cumulative 1): holds no module reference, so it runs
#    through everything including the reload;
#  - SD, driver mode (-j --cumulative 1): its raw_tp links pin the module,
#    so a reload is impossible while it is attached; rmmod is tried with it
#    attached (must fail cleanly), SD is stopped (exit 0), the driver reloaded
#    and a second SD started.
# At every quiescent point, for every disk whose lifetime spans the previous
# point, the deltas of sglstat's counts equal the driver's sysfs deltas
# (SD: requests, chained, retries, alloc_failures, io_errors; SS: requests).
# sglstat's VmRSS must stay flat.
for t in sglstat segbuf jq fio; do
	command -v $t >/dev/null || { fail prereq "$t not on PATH (a missing tool fails the case)"; exit 1; }
done
SOAK_SECONDS=30
[ -r /mnt/host/files/soak.env ] && . /mnt/host/files/soak.env
PHASE=${PHASE:-5}
echo "soak: ${SOAK_SECONDS}s, phases of ${PHASE}s" | tee "$OUT/soak.txt"
P=/sys/module/virtio_blk_sgl/parameters
echo never > /sys/kernel/mm/transparent_hugepage/enabled
segbuf hog 128 & HOG=$!
sleep 1

serial_present() { [ -n "$(disk_of_serial "$1")" ]; }
serial_gone() { [ -z "$(disk_of_serial "$1")" ]; }
SERIALS="sgl-disk0 sgl-disk1 sgl-disk2"
hmp "info block" >"$OUT/info-block.txt"
IMG2=$(sed -n 's/^d2 ([^)]*): \([^ ]*\) .*/\1/p' "$OUT/info-block.txt" | head -1)

start_sg() { # start_sg VAR FILE MODE
	sglstat --mode $3 -j --cumulative 1 >"$OUT/$2.json" 2>"$OUT/$2.err" &
	eval "$1=$!"
	wait_for 60 grep -q '^Tracing' "$OUT/$2.err"
}
start_sg SS ss stock || { fail start-stock "$(cat "$OUT/ss.err")"; exit 0; }
start_sg SD sd1 driver || { fail start-driver "$(cat "$OUT/sd1.err")"; exit 0; }
SDJ=sd1
# json_seq gives 0 before a tracer's first report: the first quiesce once
# skipped its wait on an empty seq, and failed
seq_of() { json_seq "$OUT/$1.json"; }
quiesce() { # two fresh reports from both tracers after the I/O stopped
	for _f in ss $SDJ; do
		_s0=$(seq_of $_f); _t=100
		while [ "$(seq_of $_f)" -lt $((_s0 + 2)) ] 2>/dev/null && [ $_t -gt 0 ]; do
			sleep 0.2; _t=$((_t - 1))
		done
		# comparing stale reports would blame sglstat for the wait
		[ "$(seq_of $_f)" -ge $((_s0 + 2)) ] 2>/dev/null ||
			{ STALE=$((STALE + 1)); echo "STALE $_f seq $_s0 -> $(seq_of $_f)" >>"$OUT/mismatch.txt"; }
	done
}
# tracer totals for disk NAME in report FILE: requests chained retries alloc_failures io_errors
tot() {
	json_last "$OUT/$1.json" | jq -r --arg n "$2" '[.disks[] | select(.name == $n)][0] as $d |
		if $d == null then "x x x x x" else
		([$d.ops | to_entries[] | select(.key != "other") | .value] as $o |
		 [([$o[].requests] | add), ([$o[].chained] | add), ([$o[].retries] | add),
		  ([$o[].alloc_failures // 0] | add), ([$o[].io_errors] | add)] | map(tostring) | join(" ")) end'
}
mkdir -p "$OUT/q"
REBASE=" "
CMP=0 BAD=0 STALE=0
# qpoint TAG: snapshot every present disk, compare with the previous snapshot
qpoint() {
	quiesce
	for s in $SERIALS; do
		d=$(disk_of_serial $s)
		[ -n "$d" ] || { rm -f "$OUT/q/$s"; continue; }
		cur="$d $(cat /sys/block/$d/dev) $(for f in requests_mapped requests_chained retries chain_alloc_failures io_errors; do printf '%s ' "$(sgl_get $d $f)"; done)$(tot $SDJ $d) $(tot ss $d | cut -d' ' -f1)"
		echo "$1 $s $cur" >>"$OUT/qpoints.txt"
		case "$REBASE" in *" $s "*) echo "$cur" >"$OUT/q/$s"; continue ;; esac
		if [ -f "$OUT/q/$s" ]; then
			set -- "$1" $(cat "$OUT/q/$s") $cur
			# $2 name $3 dev $4..$8 sysfs $9..$13 SD ${14} SS | ${15} name ${16} dev ${17..21} ${22..26} ${27}
			if [ "$2" = "${15}" ] && [ "$3" = "${16}" ]; then
				CMP=$((CMP + 1))
				for k in 0 1 2 3 4; do
					eval "sa=\${$((4 + k))} sb=\${$((17 + k))} ta=\${$((9 + k))} tb=\${$((22 + k))}"
					if [ "$ta" = x ] || [ "$tb" = x ] || [ $((sb - sa)) != $((tb - ta)) ]; then
						BAD=$((BAD + 1)); echo "MISMATCH $1 $s field$k sysfs $((sb - sa)) sd $ta->$tb" >>"$OUT/mismatch.txt"
					fi
				done
				if [ "${14}" = x ] || [ "${27}" = x ] || [ $((${17} - $4)) != $((${27} - ${14})) ]; then
					BAD=$((BAD + 1)); echo "MISMATCH $1 $s stock-requests sysfs $((${17} - $4)) ss ${14}->${27}" >>"$OUT/mismatch.txt"
				fi
			fi
		fi
		echo "$cur" >"$OUT/q/$s"
	done
	REBASE=" "
	for pid in $SS $SD; do echo "$1 $pid $(awk '/^VmRSS/ { print $2 }' /proc/$pid/status 2>/dev/null)"; done >>"$OUT/rss.txt"
}
load() { # one phase of mixed fio on every present disk
	jobs=""
	for s in $SERIALS; do
		d=$(disk_of_serial $s); [ -n "$d" ] || continue
		jobs="$jobs --name=rw-$d --filename=/dev/$d --rw=randwrite --bssplit=4k/30:16k/30:64k/20:256k/20 --size=4M --offset=0 --iodepth=16 --verify=crc32c --verify_fatal=1"
		jobs="$jobs --name=seq-$d --filename=/dev/$d --rw=write --bs=128k --size=4M --offset=8M --iodepth=4 --verify=crc32c --verify_fatal=1"
		jobs="$jobs --name=rd-$d --filename=/dev/$d --rw=randread --bsrange=4k-64k --size=4M --offset=16M --iodepth=8"
	done
	end=$(($(date +%s) + PHASE))
	while [ "$(date +%s)" -lt $end ]; do
		# shellcheck disable=SC2086
		fio --direct=1 --ioengine=libaio --randrepeat=0 --output-format=terse $jobs >>"$OUT/fio-$1.txt" 2>&1 ||
			{ FIOERR=$((FIOERR + 1)); echo "phase $1: fio failed" >>"$OUT/soak.txt"; }
		FIORUNS=$((FIORUNS + 1))
	done
}
readd_vd2() {
	r=$(hmp "device_add virtio-blk-pci,drive=d2,id=vd2,serial=sgl-disk2")
	if [ -n "$r" ] && [ -n "$IMG2" ]; then
		ADDS=$((ADDS + 1))
		hmp "drive_add 0 if=none,id=d2r$ADDS,file=$IMG2,format=raw,cache=writeback" >/dev/null
		r=$(hmp "device_add virtio-blk-pci,drive=d2r$ADDS,id=vd2,serial=sgl-disk2")
	fi
	echo "readd: $r" >>"$OUT/soak.txt"
	wait_for 60 serial_present sgl-disk2
}
FIOERR=0 FIORUNS=0 ADDS=0 REMOVED=0 READDED=0 RELOADED=0 INJ_PHASES=0
START=$(date +%s)
qpoint start
ph=0
# at least 3 phases, so that every fault (inject, remove, re-add, reload) happens
while [ $ph -lt 3 ] || [ $(($(date +%s) - START)) -lt "$SOAK_SECONDS" ]; do
	ph=$((ph + 1))
	ev=$((ph % 4))
	[ $ev = 1 ] && { echo 5 >$P/fail_chain_percent; INJ_PHASES=$((INJ_PHASES + 1)); }
	load $ph
	echo 0 >$P/fail_chain_percent
	qpoint "phase$ph"
	echo "phase $ph done at $(($(date +%s) - START))s" >>"$OUT/soak.txt"
	case $ev in
	1)	hmp "device_del vd2" >>"$OUT/soak.txt"
		wait_for 60 serial_gone sgl-disk2 && REMOVED=$((REMOVED + 1)) ;;
	2)	readd_vd2 && { READDED=$((READDED + 1)); REBASE=" sgl-disk2 "; }
		wait_for 30 dd if=/dev/$(disk_of_serial sgl-disk2) of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null
		sleep 1.5; qpoint "readd$ph" ;;
	3)	if [ $RELOADED = 0 ]; then
			if rmmod virtio_blk_sgl 2>"$OUT/rmmod-busy.txt"; then
				echo "rmmod succeeded with SD attached" >>"$OUT/soak.txt"; RMMOD_BUSY=no
			else
				RMMOD_BUSY=yes
			fi
			kill -INT $SD; wait $SD; SD1RC=$?
			sgl_unload; RMRC=$?
			sgl_load inline_sg_cnt=2; LDRC=$?
			for s in $SERIALS; do serial_gone $s || wait_for 30 serial_present $s; done
			for s in $SERIALS; do d=$(disk_of_serial $s); [ -n "$d" ] &&
				wait_for 30 dd if=/dev/$d of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null; done
			start_sg SD sd2 driver || fail start-driver-2 "$(cat "$OUT/sd2.err")"
			SDJ=sd2 RELOADED=1 REBASE=" $SERIALS "
			sleep 2.5; qpoint "reload$ph"
		fi ;;
	esac
done
# make sure vd2 ends present (so the last lifetime was compared too)
serial_present sgl-disk2 || { readd_vd2 && READDED=$((READDED + 1)); REBASE=" sgl-disk2 "; sleep 2.5; qpoint readd-end; load end; qpoint end; }
ELAPSED=$(($(date +%s) - START))
for pid in $SS $SD; do kill -0 $pid 2>/dev/null || echo "tracer $pid died" >>"$OUT/soak.txt"; done
check "soak/sglstat-stock-ran-throughout" kill -0 $SS
check "soak/sglstat-driver-running-at-end" kill -0 $SD
kill -INT $SS; wait $SS; SSRC=$?
kill -INT $SD; wait $SD; SDRC=$?
check_eq "soak/sglstat-stock-exit" 0 $SSRC
check_eq "soak/sglstat-driver-exit" "0 0" "${SD1RC:-0} $SDRC"
{
	echo "elapsed ${ELAPSED}s phases $ph fio-runs $FIORUNS fio-errors $FIOERR"
	echo "removed $REMOVED readded $READDED reloaded $RELOADED inject-phases $INJ_PHASES rmmod-with-sglstat-attached-failed=${RMMOD_BUSY:-n/a}"
	echo "counter comparisons $CMP (x6 fields) mismatches $BAD"
} | tee -a "$OUT/soak.txt"
check_eq "soak/fio-no-errors ($FIORUNS runs)" 0 $FIOERR
check "soak/faults-happened" [ $REMOVED -ge 1 -a $READDED -ge 1 -a $RELOADED = 1 -a $INJ_PHASES -ge 1 ]
check_eq "soak/rmmod-refused-while-driver-mode-attached" yes "${RMMOD_BUSY:-n/a}"
check_eq "soak/reload-ok" "0 0" "${RMRC:-x} ${LDRC:-x}"
check "soak/compared-some ($CMP)" [ $CMP -ge 3 ]
check_eq "soak/tracers-reported-at-every-point" 0 "$STALE"
if [ "$BAD" = 0 ]; then
	pass "soak/sglstat-counts-equal-driver"
else
	fail "soak/sglstat-counts-equal-driver" "$BAD mismatches, first: $(grep -m1 MISMATCH "$OUT/mismatch.txt")"
fi
no_ioerr=1
for s in $SERIALS; do d=$(disk_of_serial $s); [ -n "$d" ] && [ "$(sgl_get $d io_errors)" != 0 ] && no_ioerr=0; done
check_eq soak/no-io-errors 1 $no_ioerr
# RSS: per tracer pid, first sample after phase 1 vs last sample
rss_ok=1
for pid in $(awk '{ print $2 }' "$OUT/rss.txt" | sort -u); do
	first=$(awk -v p=$pid '$2 == p && $1 != "start" && $3 != "" { print $3; exit }' "$OUT/rss.txt")
	last=$(awk -v p=$pid '$2 == p && $3 != "" { v = $3 } END { print v }' "$OUT/rss.txt")
	[ -n "$first" ] || continue
	echo "rss pid $pid: first $first kB last $last kB" >>"$OUT/soak.txt"
	[ "$last" -le $((first + 256)) ] || rss_ok=0
done
check_eq "soak/sglstat-rss-flat (last <= first + 256 kB)" 1 $rss_ok
kill $HOG
cat "$OUT/soak.txt"
exit 0
