/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vsgl_testing.h - the hooks of virtio_blk_sgl's testing flavour.
 *
 * The module that make, make install, DKMS and the packages build has no
 * testing parameter at all: these hooks are then static inline no-ops that
 * the compiler removes from the data path.  `make VSGL_TESTING=1` (the top
 * Makefile builds it as build/driver-testing/KVER/virtio_blk_sgl.ko) links
 * vsgl_testing.c in, whose parameters let the tests play a device QEMU will
 * not emulate; setting any of them taints the kernel (module_param_unsafe).
 * See docs/DRIVER.md, "The testing flavour".
 */
#ifndef VSGL_TESTING_H
#define VSGL_TESTING_H

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/types.h>

struct virtio_device;

/* Device config fields test_config can replace. */
enum vsgl_cfg_field {
	VSGL_CFG_capacity,
	VSGL_CFG_seg_max,
	VSGL_CFG_size_max,
	VSGL_CFG_blk_size,
	VSGL_CFG_num_queues,
	VSGL_CFG_max_discard_seg,
	VSGL_CFG_max_secure_erase_sectors,
	VSGL_CFG_max_secure_erase_seg,
	VSGL_CFG_secure_erase_sector_alignment,
	VSGL_CFG_NR,
};

/* Shared parameter parser: an unsigned int in 0..@max (vsgl_main.c). */
int vsgl_param_set_uint_max(const char *val, const struct kernel_param *kp,
			    unsigned int max);

#ifdef VSGL_TESTING
/* fail_chain_every / fail_chain_percent: fail this chained allocation? */
bool vsgl_test_fail_chain(void);
/* test_used_*: corrupt what the device returned for this completion. */
void vsgl_test_used(u8 *status, u32 *used_len);
/* test_config: replace config field @f (true: *@val is the override). */
bool vsgl_test_cfg(struct virtio_device *vdev, enum vsgl_cfg_field f,
		   u64 *val);
/*
 * test_reset_hold_ms, test_reset_fail: hold a reset before it re-initialises
 * the device; make that re-initialisation fail?
 */
int vsgl_reset_fault(void);
/* At module load: log that this is the testing build (vsgl_init()). */
void vsgl_testing_announce(void);
#else
/*
 * `modinfo -F flavour` tells the two builds apart; vsgl_testing.c declares
 * "testing".  This header is included by vsgl_main.c and vsgl_testing.c
 * only, so the production module carries the field once.
 */
MODULE_INFO(flavour, "production");

static inline bool vsgl_test_fail_chain(void)
{
	return false;
}

static inline void vsgl_test_used(u8 *status, u32 *used_len)
{
}

static inline bool vsgl_test_cfg(struct virtio_device *vdev,
				 enum vsgl_cfg_field f, u64 *val)
{
	return false;
}

static inline int vsgl_reset_fault(void)
{
	return 0;
}

static inline void vsgl_testing_announce(void)
{
}
#endif

#endif /* VSGL_TESTING_H */
