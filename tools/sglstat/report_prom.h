/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Prometheus export (issue #5): sglstat --prom-file PATH writes the
 * cumulative statistics of each interval, in the text exposition format, to
 * a file for node_exporter's textfile collector.  The metrics are documented
 * in docs/PROMETHEUS.md.
 */
#ifndef SGLSTAT_REPORT_PROM_H
#define SGLSTAT_REPORT_PROM_H

#include <stddef.h>
#include "snapshot.h"

struct sgl_prom_mono;

/* Fill once at start-up with sgl_prom_meta_init(); keep it for the whole run. */
struct sgl_prom_meta {
	char version[64];	/* sglstat's version */
	char kernel[128];	/* uname -r */
	char driver[64];	/* virtio_blk_sgl module version, "unknown", or "none" */
	/*
	 * sysfs root the driver version was read from (kept for the tests'
	 * dumps).  The formatter reads nothing: the memory gauges of in-tree
	 * disks come from the snapshot (d->mem, filled by the tracer).
	 */
	char sysfs_root[256];
	/*
	 * Last exported value of every counter and bucket (allocated by
	 * sgl_prom_meta_init()): exported counters never go down within a run,
	 * although requeue undos can make the snapshot's cumulative values dip
	 * (docs/PROMETHEUS.md, "Counters never go down").  NULL: no guard.
	 */
	struct sgl_prom_mono *mono;
};

/*
 * Fill @m: @version as given (NULL: "unknown"), the kernel release from
 * uname(2), the driver version from @sysfs_root/module/virtio_blk_sgl/version
 * (first line; "unknown" when the module is loaded but has no version file,
 * "none" when it is not loaded), and m->sysfs_root = @sysfs_root.
 * @sysfs_root NULL means "/sys" (sglstat passes sgl_sysfs_root()).
 * The mode label comes from the snapshot (each disk's mode), not from here.
 */
void sgl_prom_meta_init(struct sgl_prom_meta *m, const char *version, const char *sysfs_root);
/* Free what sgl_prom_meta_init() allocated. */
void sgl_prom_meta_free(struct sgl_prom_meta *m);

/*
 * Start-up check of --prom-file PATH: the name ends in ".prom" (node_exporter
 * reads nothing else), its directory exists and a file can be created there,
 * PATH is absent or a regular file (a symbolic link is refused).  On error
 * prints one line "sglstat: --prom-file PATH: reason" to stderr and returns
 * -errno; 0 when sgl_prom_write() can be expected to work.
 */
int sgl_prom_check_target(const char *path);
/* The same, reason into @msg instead of stderr. */
int sgl_prom_check_target_msg(const char *path, char *msg, size_t msglen);

/*
 * Format @snap (cumulative counters: disk[i].cum) into a malloc'ed buffer
 * (*@out, NUL-terminated, *@len bytes without the NUL).  0 or -ENOMEM.
 */
int sgl_prom_format(const struct sgl_snapshot *snap, const struct sgl_prom_meta *meta,
		    char **out, size_t *len);

/*
 * Format and atomically replace @path (mode 0644; see atomic_file.h).
 * Returns 0 or -errno; on error the previous file, if any, is unchanged and
 * no temporary file is left behind.  Prints nothing.
 */
int sgl_prom_write(const char *path, const struct sgl_snapshot *snap,
		   const struct sgl_prom_meta *meta);

/* Escape a label value (\\, \", \n) into @out; returns the length it needs. */
size_t sgl_prom_escape_label(const char *in, char *out, size_t outlen);

#endif
