// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness: sglstat tune's parsers, the modprobe.d editor, --prometheus's HTTP and URL parsing. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tune_cmd.h"
#include "prom_api.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sgl_tune_set s = { 0 };
	struct sgl_tune_opts o = { .target = 0.05, .stock_inline = 2, .fleet = true };
	char err[256], *out;
	size_t len;
	unsigned int sel = size ? data[0] % 6 : 0;
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
	case 4: {
		const char *body;
		size_t blen;
		int status;

		/* an HTTP response (complete yet?), then its body as the query result it should be */
		sgl_http_complete(p, n);
		if (!sgl_http_split(p, n, &status, &body, &blen))
			sgl_tune_read_prom_query(body, blen, &s, err, sizeof(err));
		break;
	}
	case 5: {
		/* a URL, range, time or selector: NUL-terminated copies */
		char *z = malloc(n + 1), q[1024], t[4096];
		struct sgl_prom_url u;

		if (!z)
			break;
		memcpy(z, p, n);
		z[n] = 0;
		if (!sgl_prom_url_parse(z, &u, err, sizeof(err)) && sgl_prom_range_valid("1h") &&
		    !sgl_prom_query(q, sizeof(q), "1h", sgl_prom_selector_valid(z) ? z : NULL))
			sgl_prom_target(t, sizeof(t), &u, q, sgl_prom_time_valid(z) ? z : NULL);
		sgl_prom_range_valid(z);
		sgl_prom_time_valid(z);
		free(z);
		break;
	}
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
