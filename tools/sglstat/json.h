/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SGLSTAT_JSON_H
#define SGLSTAT_JSON_H

#include <stdio.h>
#include <stddef.h>

/* Write @s as a JSON string literal (quotes, escapes per RFC 8259). */
void sgl_json_str(FILE *out, const char *s);
/* The same into @buf (always terminated); returns the length it needed. */
size_t sgl_json_escape(char *buf, size_t len, const char *s);

#endif
