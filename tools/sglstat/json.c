// SPDX-License-Identifier: GPL-2.0
/* JSON string escaping. */
#include <stdio.h>
#include <string.h>
#include "json.h"

size_t sgl_json_escape(char *buf, size_t len, const char *s)
{
	size_t n = 0;
	char tmp[8];

#define PUT(c) do { if (n + 1 < len) buf[n] = (c); n++; } while (0)
	PUT('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		const char *esc = NULL;

		switch (c) {
		case '"': esc = "\\\""; break;
		case '\\': esc = "\\\\"; break;
		case '\n': esc = "\\n"; break;
		case '\r': esc = "\\r"; break;
		case '\t': esc = "\\t"; break;
		case '\b': esc = "\\b"; break;
		case '\f': esc = "\\f"; break;
		default:
			if (c < 0x20 || c == 0x7f) {
				snprintf(tmp, sizeof(tmp), "\\u%04x", c);
				esc = tmp;
			}
		}
		if (esc) {
			for (; *esc; esc++)
				PUT(*esc);
		} else {
			PUT((char)c);
		}
	}
	PUT('"');
#undef PUT
	if (len)
		buf[n < len ? n : len - 1] = 0;
	return n;
}

void sgl_json_str(FILE *out, const char *s)
{
	char buf[256];
	size_t n = sgl_json_escape(buf, sizeof(buf), s);

	if (n < sizeof(buf)) {
		fputs(buf, out);
		return;
	}
	/* long string: escape char by char */
	fputc('"', out);
	for (; *s; s++) {
		char one[2] = { *s, 0 };

		sgl_json_escape(buf, sizeof(buf), one);
		buf[strlen(buf) - 1] = 0;
		fputs(buf + 1, out);
	}
	fputc('"', out);
}
