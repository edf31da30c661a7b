// SPDX-License-Identifier: GPL-2.0
#include "entry_bytes.h"

static unsigned int entry_bytes = 32;

unsigned int sgl_entry_bytes(void)
{
	return entry_bytes;
}

void sgl_set_entry_bytes(unsigned int bytes)
{
	if (bytes)
		entry_bytes = bytes;
}
