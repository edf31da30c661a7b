/* SPDX-License-Identifier: GPL-2.0 */
/* The subcommands that need no BPF: `sglstat memory`, `sglstat tune` from files. */
#ifndef SGLSTAT_CMD_H
#define SGLSTAT_CMD_H

#include <stdbool.h>
#include "args.h"
#include "tune_cmd.h"

/* `sglstat memory`: exit status. */
int sgl_cmd_memory(const struct sgl_env *env);
/* `sglstat tune --from/--from-prom/--from-prom-query`: exit status. */
int sgl_cmd_tune_files(const struct sgl_env *env);
/* Report a tune set (filtered by -d), then --apply: exit status. */
int sgl_cmd_tune_finish(const struct sgl_env *env, struct sgl_tune_set *set, const char *source,
			bool fleet);
/* Is @name one of -d DISK... (all disks when none given)? */
bool sgl_env_disk_selected(const struct sgl_env *env, const char *name);

#endif
