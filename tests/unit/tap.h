/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Run cmocka tests one by one and print the project's PASS:/FAIL: lines
 * (cmocka's own report stays around them; the reason of a failure is the
 * cmocka message printed just before the FAIL line).
 */
#ifndef SGL_TAP_H
#define SGL_TAP_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <cmocka.h>

static inline int sgl_run_tests(const char *prefix, const struct CMUnitTest *t, size_t n)
{
	int fails = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		int r;

		fflush(stdout);
		r = _cmocka_run_group_tests(t[i].name, &t[i], 1, NULL, NULL);
		fflush(stderr);
		if (r) {
			printf("FAIL: %s_%s: cmocka assertion failed (details above)\n", prefix, t[i].name);
			fails++;
		} else {
			printf("PASS: %s_%s\n", prefix, t[i].name);
		}
		fflush(stdout);
	}
	return fails ? 1 : 0;
}

#define SGL_RUN(prefix, tests) sgl_run_tests(prefix, tests, sizeof(tests) / sizeof(tests[0]))

#endif
