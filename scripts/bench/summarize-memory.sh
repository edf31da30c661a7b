#!/bin/bash
# Table of memory saved per device: measured in the guest (MemFree, median
# over rounds, prealloc minus inline 2) against sglstat memory's model, and
# the model's figure for 128 queues x depth 128.
# Input: lines "MEM qs=Q nq=N MODE ROUND BYTES HWQ DEPTH MAXSEG JSON".
set -euo pipefail
in=$1
med() { sort -n | awk '{ a[NR] = $1 } END { print NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
echo "| queue-size | num-queues | hw queues x depth | max segments | measured prealloc cost | measured inline cost | measured saved | SG-entry model saved | measured / SG model | blk-mq model saved (pdu_alloc) | measured / blk-mq model |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for cfg in $(awk '{ print $2 "," $3 }' "$in" | sort -u -t, -k1.4n -k2.4n); do
	qs=${cfg%,*} nq=${cfg#*,}
	rows=$(awk -v q="$qs" -v n="$nq" '$2 == q && $3 == n' "$in")
	pre=$(awk '$4 == "prealloc=1" { print $6 }' <<<"$rows" | med)
	inl=$(awk '$4 == "inline_sg_cnt=2" { print $6 }' <<<"$rows" | med)
	line=$(awk '$4 == "inline_sg_cnt=2"' <<<"$rows" | head -1)
	geo=$(awk '{ print $7 " x " $8 }' <<<"$line")
	maxseg=$(awk '{ print $9 }' <<<"$line")
	model=$(cut -d' ' -f10- <<<"$line" | jq '.disks[0].full_prealloc_bytes - .disks[0].inline_bytes')
	pdu=$(cut -d' ' -f10- <<<"$line" | jq '.disks[0].pdu_saved_bytes // 0')
	awk -v q="${qs#qs=}" -v n="${nq#nq=}" -v g="$geo" -v m="$maxseg" -v p="$pre" -v i="$inl" -v mo="$model" -v pd="$pdu" 'BEGIN {
		printf "| %s | %s | %s | %s | %.0f | %.0f | %.0f | %.0f | %.3f | %.0f | %.3f |\n", q, n, g, m, p, i, p - i, mo, mo ? (p - i) / mo : 0, pd, pd ? (p - i) / pd : 0 }'
done
# The upstream motivation: 128 queues of depth 128, seg_max 254, no
# scheduler (multi-queue), one flush request per queue, 32-byte entries.
awk 'BEGIN { rq = 128 * (128 + 1); full = rq * 254 * 32; inl = rq * 2 * 32
	printf "\nModel, 128 queues x depth 128, max segments 254: full preallocation %.1f MiB, inline 2 %.2f MiB, saved %.1f MiB per disk\n", full / 1048576, inl / 1048576, (full - inl) / 1048576 }'
