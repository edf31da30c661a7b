// SPDX-License-Identifier: GPL-2.0
/*
 * vsgl_testing.c - the testing flavour's parameters (make VSGL_TESTING=1).
 *
 * Never part of the production module (vsgl_testing.h).  Every parameter
 * here is module_param_unsafe: setting one, at load or at run time, taints
 * the kernel (TAINT_USER), because each of them makes the driver lie about
 * what the device did.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/virtio.h>

#include "vsgl_testing.h"

/* `modinfo -F flavour` (the production build declares "production") */
MODULE_INFO(flavour, "testing");

/*
 * Always, once at load, whether or not a parameter is set: the kernel taints
 * only when one is, but a testing module must not pass for the production
 * one in a log either.
 */
void vsgl_testing_announce(void)
{
	pr_warn("testing build (VSGL_TESTING=1), not for production use: its test parameters make the driver lie about the device and taint the kernel when set\n");
}

/* ---- failure injection for chained SG allocations */

static int vsgl_set_percent(const char *val, const struct kernel_param *kp)
{
	return vsgl_param_set_uint_max(val, kp, 100);
}

static const struct kernel_param_ops vsgl_percent_ops = {
	.set = vsgl_set_percent,
	.get = param_get_uint,
};

static unsigned int fail_chain_every;
module_param_unsafe(fail_chain_every, uint, 0644);
MODULE_PARM_DESC(fail_chain_every,
		 "Testing only (taints): fail every Nth chained SG allocation (0 = off)");

static unsigned int fail_chain_percent;
module_param_cb_unsafe(fail_chain_percent, &vsgl_percent_ops,
		       &fail_chain_percent, 0644);
MODULE_PARM_DESC(fail_chain_percent,
		 "Testing only (taints): fail chained SG allocations with this probability (0..100)");

static atomic_t vsgl_chain_attempts = ATOMIC_INIT(0);

bool vsgl_test_fail_chain(void)
{
	unsigned int every = READ_ONCE(fail_chain_every);
	unsigned int pct = READ_ONCE(fail_chain_percent);

	if (every &&
	    (unsigned int)atomic_inc_return(&vsgl_chain_attempts) % every == 0)
		return true;
	return pct && get_random_u32_below(100) < pct;
}

/*
 * ---- the used ring: corrupt what the device returns for every Nth
 * completion (the status byte it wrote, the length it reports), so that the
 * tests can play a device that QEMU will not emulate.  Descriptor ids need
 * no knob: virtio_ring checks them and marks the queue broken.
 */
static unsigned int test_used_every;
module_param_unsafe(test_used_every, uint, 0644);
MODULE_PARM_DESC(test_used_every,
		 "Testing only (taints): corrupt every Nth completion as below (0 = off)");

static int test_used_status = -1;
module_param_unsafe(test_used_status, int, 0644);
MODULE_PARM_DESC(test_used_status,
		 "Testing only (taints): status byte a corrupted completion carries (0..255; -1 = the device's)");

static int test_used_len;
module_param_unsafe(test_used_len, int, 0644);
MODULE_PARM_DESC(test_used_len,
		 "Testing only (taints): added to a corrupted completion's used length (0 = the device's)");

void vsgl_test_used(u8 *status, u32 *used_len)
{
	static atomic_t seen = ATOMIC_INIT(0);
	unsigned int every = READ_ONCE(test_used_every);
	int st;

	if (likely(!every) || atomic_inc_return(&seen) % every)
		return;
	st = READ_ONCE(test_used_status);
	if (st >= 0 && st <= 0xff)
		WRITE_ONCE(*status, st);
	*used_len += READ_ONCE(test_used_len);
}

/*
 * ---- test_config: replace device config values at probe, so that the
 * tests can play a buggy or hostile device.  An override makes the field
 * present even when the device does not offer its feature.
 */
static const char * const vsgl_cfg_names[VSGL_CFG_NR] = {
	[VSGL_CFG_capacity]	= "capacity",
	[VSGL_CFG_seg_max]	= "seg_max",
	[VSGL_CFG_size_max]	= "size_max",
	[VSGL_CFG_blk_size]	= "blk_size",
	[VSGL_CFG_num_queues]	= "num_queues",
	[VSGL_CFG_max_discard_seg] = "max_discard_seg",
	[VSGL_CFG_max_secure_erase_sectors] = "max_secure_erase_sectors",
	[VSGL_CFG_max_secure_erase_seg] = "max_secure_erase_seg",
	[VSGL_CFG_secure_erase_sector_alignment] = "secure_erase_sector_alignment",
};

static struct {
	unsigned long set;		/* bit per enum vsgl_cfg_field */
	u64 val[VSGL_CFG_NR];
} vsgl_test_cfg_vals;

static char vsgl_test_cfg_str[256];

static int vsgl_set_test_config(const char *val, const struct kernel_param *kp)
{
	char buf[sizeof(vsgl_test_cfg_str)], *rest = buf, *item;
	unsigned long set = 0;
	u64 vals[VSGL_CFG_NR];
	int i;

	if (strscpy(buf, val, sizeof(buf)) < 0)
		goto bad;
	while ((item = strsep(&rest, ",")) != NULL) {
		char *eq = strchr(item, '=');

		if (!*item)
			continue;
		if (!eq)
			goto bad;
		*eq = '\0';
		for (i = 0; i < VSGL_CFG_NR; i++)
			if (!strcmp(item, vsgl_cfg_names[i]))
				break;
		if (i == VSGL_CFG_NR || kstrtou64(eq + 1, 0, &vals[i]))
			goto bad;
		set |= BIT(i);
	}
	for (i = 0; i < VSGL_CFG_NR; i++)
		vsgl_test_cfg_vals.val[i] = set & BIT(i) ? vals[i] : 0;
	vsgl_test_cfg_vals.set = set;
	strscpy(vsgl_test_cfg_str, val, sizeof(vsgl_test_cfg_str));
	return 0;
bad:
	pr_err("%s=%s is invalid: expected FIELD=VALUE[,...] with FIELD one of capacity, seg_max, size_max, blk_size, num_queues, max_discard_seg, max_secure_erase_sectors, max_secure_erase_seg, secure_erase_sector_alignment\n",
	       kp->name, val);
	return -EINVAL;
}

static const struct kernel_param_ops vsgl_test_cfg_ops = {
	.set = vsgl_set_test_config,
	.get = param_get_string,
};

static struct kparam_string vsgl_test_cfg_kps = {
	.maxlen = sizeof(vsgl_test_cfg_str),
	.string = vsgl_test_cfg_str,
};
module_param_cb_unsafe(test_config, &vsgl_test_cfg_ops, &vsgl_test_cfg_kps,
		       0444);
MODULE_PARM_DESC(test_config,
		 "Testing only (taints): override device config values, e.g. seg_max=0,blk_size=3");

bool vsgl_test_cfg(struct virtio_device *vdev, enum vsgl_cfg_field f, u64 *val)
{
	if (!(vsgl_test_cfg_vals.set & BIT(f)))
		return false;
	dev_warn(&vdev->dev, "test_config: %s overridden to %llu\n",
		 vsgl_cfg_names[f], vsgl_test_cfg_vals.val[f]);
	*val = vsgl_test_cfg_vals.val[f];
	return true;
}

/*
 * ---- test_reset_fail: the next N re-initialisations of a device (after a
 * reset, or at restore from suspend) fail, as for a device that will not
 * take FEATURES_OK again, so that the tests reach the dead-after-reset and
 * dead-after-restore paths on a QEMU device.
 */
static atomic_t test_reset_fail = ATOMIC_INIT(0);

static int vsgl_set_reset_fail(const char *val, const struct kernel_param *kp)
{
	unsigned int n;
	int err = kstrtouint(val, 0, &n);

	if (err || n > INT_MAX)
		return -EINVAL;
	atomic_set(&test_reset_fail, n);
	return 0;
}

static int vsgl_get_reset_fail(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&test_reset_fail));
}

static const struct kernel_param_ops vsgl_reset_fail_ops = {
	.set = vsgl_set_reset_fail,
	.get = vsgl_get_reset_fail,
};
module_param_cb_unsafe(test_reset_fail, &vsgl_reset_fail_ops, NULL, 0644);
MODULE_PARM_DESC(test_reset_fail,
		 "Testing only (taints): the next N re-initialisations (after a reset, at restore) fail (0 = off)");

/*
 * ---- test_reset_hold_ms: a reset waits this long between deleting the old
 * virtqueues and setting the device up again, so that a test can make the
 * device vanish, or unplug it, while a reset is in progress.
 */
static int vsgl_set_reset_hold(const char *val, const struct kernel_param *kp)
{
	return vsgl_param_set_uint_max(val, kp, 60000);
}

static const struct kernel_param_ops vsgl_reset_hold_ops = {
	.set = vsgl_set_reset_hold,
	.get = param_get_uint,
};

static unsigned int test_reset_hold_ms;
module_param_cb_unsafe(test_reset_hold_ms, &vsgl_reset_hold_ops,
		       &test_reset_hold_ms, 0644);
MODULE_PARM_DESC(test_reset_hold_ms,
		 "Testing only (taints): hold every device reset this long before re-initialising the device (0..60000 ms)");

int vsgl_reset_fault(void)
{
	unsigned int hold = READ_ONCE(test_reset_hold_ms);

	if (hold) {
		/* the tests check that the reset's allocations cannot recurse into I/O */
		pr_info("test_reset_hold_ms: reset held for %u ms, allocations %s\n",
			hold, current->flags & PF_MEMALLOC_NOIO ? "noio" : "may do I/O");
		msleep(hold);
		pr_info("test_reset_hold_ms: reset goes on\n");
	}
	return atomic_add_unless(&test_reset_fail, -1, 0) ? -EIO : 0;
}
