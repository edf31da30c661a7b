// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness: sglstat tune's parsers and the modprobe.d editor. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tune_cmd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sgl_tune_set s = { 0 };
	struct sgl_tune_opts o = { .target = 0.05, .stock_inline = 2, .fleet = true };
	char err[256], *out;
	size_t len;
	unsigned int sel = size ? data[0] % 4 : 0;
	const char *p = size ? (const char *)data + 1 : "";
	size_t n = size ? size - 1 : 0;
	FILE *null = fopen("/dev/null", "w");

	switch (sel) {
	case 0: sgl_tune_read_capture(p, n, NULL, 2, &s, err, sizeof(err)); break;
	case 1: sgl_tune_read_prom(p, n, "f", &s, err, sizeof(err)); break;
	case 2: sgl_tune_read_prom_query(p, n, &s, err, sizeof(err)); break;
	case 3:
		if (!sgl_modprobe_edit(p, n, 7, &out, &len))
			free(out);
		break;
	}
	if (null && s.n) {
		sgl_tune_print_text(null, &s, &o, NULL);
		sgl_tune_print_json(null, &s, &o, NULL);
	}
	if (null)
		fclose(null);
	sgl_tune_set_free(&s);
	return 0;
}
