// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: sglstat's command line. The input is split at NUL bytes into
 * argv (at most 32 words); parsing must never crash, hang or leak, whatever
 * it decides.
 */
#include <argp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "args.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	FILE *null = fopen("/dev/null", "w");

	(void)argc;
	(void)argv;
	/*
	 * The parser explains every rejection on stderr: point the stdio
	 * stream at /dev/null to keep the run quiet, but leave fd 2 alone,
	 * where libFuzzer's status lines and sanitizer reports go.
	 */
	if (null)
		stderr = null;
	return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *buf, *argv[34];
	struct sgl_env env;
	size_t i, start = 0;
	int argc = 1;

	if (size > 4096)
		return 0;
	buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = 0;
	argv[0] = "sglstat";
	for (i = 0; i <= size && argc < 33; i++) {
		if (i == size || buf[i] == 0) {
			argv[argc++] = buf + start;
			start = i + 1;
		}
	}
	argv[argc] = NULL;
	/* --help and --version print and would exit: ARGP_NO_EXIT */
	sgl_parse_args(argc, argv, &env, ARGP_NO_EXIT | ARGP_NO_HELP);
	free(buf);
	return 0;
}
