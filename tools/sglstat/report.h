/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SGLSTAT_REPORT_H
#define SGLSTAT_REPORT_H

#include <stdio.h>
#include <stdbool.h>
#include "snapshot.h"

struct sgl_report_opts {
	bool per_disk;		/* -D (text; JSON is always per disk) */
	bool timestamp;		/* -T */
	bool cumulative;	/* print cumulative values instead of deltas */
	bool milliseconds;	/* -m: text latency in ms */
	bool queued;		/* -Q was given: latency includes queueing */
};

void sgl_report_text(FILE *out, const struct sgl_snapshot *snap, const struct sgl_report_opts *o);
void sgl_report_json(FILE *out, const struct sgl_snapshot *snap, const struct sgl_report_opts *o);

/* Helpers shared by the backends. */
/* Stats of one disk/op as the backend should print them (delta or cum). */
static inline const struct sgl_stats *sgl_pick(const struct sgl_disk_snap *d, unsigned int op,
					       bool cumulative)
{
	return cumulative ? &d->cum[op] : &d->delta[op];
}

#endif
