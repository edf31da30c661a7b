#!/bin/sh
# Regenerates tests/unit/fixtures/ (committed; run from anywhere).
# sys-a: vda (in-tree virtio_blk via driver link), vdb (virtio via modalias only),
#        vsgla (our driver: sgl/), sda (not virtio), loop0 (no device), vdbad (garbage dev)
# sys-none: only non-virtio disks
# sys-pdu: our driver with sgl/pdu_alloc_bytes(_prealloc): vsglp (inline 2),
#          vsglq (prealloc layout would not fit a 64 KiB block: _prealloc 0)
# (fixtures/tune/ is hand-written, not regenerated here)
set -e
F=$(cd "$(dirname "$0")" && pwd)/fixtures
rm -rf "$F/sys-a" "$F/sys-bad" "$F/sys-none" "$F/sys-pdu"
mk() { mkdir -p "$(dirname "$1")"; printf '%s\n' "$2" > "$1"; }
A=$F/sys-a/block
mkdir -p "$F/sys-a/bus/virtio/drivers/virtio_blk" "$F/sys-a/bus/scsi/drivers/sd"
mk $A/vda/dev 254:0
mkdir -p $A/vda/device
ln -s ../../../bus/virtio/drivers/virtio_blk $A/vda/device/driver
mk $A/vda/device/modalias virtio:d00000002v00001AF4
mk $A/vda/queue/max_segments 254
mk $A/vda/queue/nr_requests 256
mk $A/vda/queue/scheduler "none [mq-deadline] kyber bfq"
mk $A/vda/mq/0/nr_tags 128
mk $A/vda/mq/1/nr_tags 128
mkdir -p $A/vda/mq/cpu_list_is_not_a_queue
mk $A/vdb/dev 254:16
mk $A/vdb/device/modalias virtio:d00000002v00001AF4
mk $A/vdb/queue/max_segments 126
mk $A/vdb/queue/nr_requests 64
mk $A/vdb/queue/scheduler "[none] mq-deadline"
mk $A/vdb/mq/0/nr_tags 64
mk $A/vsgla/dev 252:0
mk $A/vsgla/queue/scheduler "[none] mq-deadline"
S=$A/vsgla/sgl
mk $S/inline_sg_cnt 2
mk $S/max_segments 254
mk $S/nr_hw_queues 2
mk $S/queue_depth 128
mk $S/nr_requests_total 258
mk $S/sg_prealloc_bytes 16512
mk $S/sg_full_prealloc_bytes 2096448
mk $S/requests_mapped 1000
mk $S/requests_chained 250
mk $S/chain_alloc_failures 7
mk $S/chain_alloc_injected 5
mk $S/retries 7
mk $S/chained_bytes_now 0
mk $S/chained_bytes_peak 36864
mk $S/requests_completed 1000
mk $S/io_errors 1
mk $A/sda/dev 8:0
mkdir -p $A/sda/device
ln -s ../../../bus/scsi/drivers/sd $A/sda/device/driver
mk $A/loop0/dev 7:0
mk $A/vdbad/dev "banana"
mk $A/vdbad/device/modalias virtio:d00000002v00001AF4
# a vsgl disk with a garbage counter
B=$F/sys-bad/block
mk $B/vsglb/dev 252:16
mk $B/vsglb/sgl/inline_sg_cnt "two"
N=$F/sys-none/block
mk $N/loop0/dev 7:0
mk $N/sda/dev 8:0
# pdu_alloc_bytes: 2 hctx x 128 tags, no scheduler, 64 B cache lines.
# inline 2: rq_size 448, 128 fit one order-4 block (65536) + kmalloc(448) = 512
#   per hctx: 2 * (65536 + 512) = 132096
# prealloc (254 entries): rq_size 8512, 7 per block: 18 blocks + 2 in an
#   order-3 tail (32768) + kmalloc(8512) = 16384 per hctx:
#   2 * (18 * 65536 + 32768 + 16384) = 2457600
P=$F/sys-pdu/block
for d in vsglp vsglq; do
	mk $P/$d/queue/scheduler "[none] mq-deadline"
	S=$P/$d/sgl
	mk $S/inline_sg_cnt 2
	mk $S/nr_hw_queues 2
	mk $S/queue_depth 128
	mk $S/nr_requests_total 258
	mk $S/sg_prealloc_bytes 16512
	for f in requests_mapped requests_chained chain_alloc_failures chain_alloc_injected \
		retries chained_bytes_now chained_bytes_peak requests_completed io_errors; do
		mk $S/$f 0
	done
done
mk $P/vsglp/dev 252:0
mk $P/vsglp/sgl/max_segments 254
mk $P/vsglp/sgl/sg_full_prealloc_bytes 2096448
mk $P/vsglp/sgl/pdu_alloc_bytes 132096
mk $P/vsglp/sgl/pdu_alloc_bytes_prealloc 2457600
mk $P/vsglq/dev 252:16
mk $P/vsglq/sgl/max_segments 4096
mk $P/vsglq/sgl/sg_full_prealloc_bytes 33816576
mk $P/vsglq/sgl/pdu_alloc_bytes 132096
mk $P/vsglq/sgl/pdu_alloc_bytes_prealloc 0
