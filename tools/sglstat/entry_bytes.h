/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sizeof(struct scatterlist) of the kernel sglstat looks at, for the memory
 * model of include/sgl_model.h: 32 on x86_64 unless CONFIG_DEBUG_SG makes it
 * 40.  main() sets it from the kernel's BTF; without BTF it stays 32.
 */
#ifndef SGLSTAT_ENTRY_BYTES_H
#define SGLSTAT_ENTRY_BYTES_H

unsigned int sgl_entry_bytes(void);
void sgl_set_entry_bytes(unsigned int bytes);

#define SGL_ENTRY_BYTES sgl_entry_bytes()
#include "sgl_model.h"

#endif
