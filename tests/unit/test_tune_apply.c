// SPDX-License-Identifier: GPL-2.0
/* expect-results: 2 (tests/unit/run fails this test with fewer result lines) */
/* Unit tests of `sglstat tune --apply`'s modprobe.d editing (tune_apply.c). */
#include "tap.h"
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tune_cmd.h"

static void edit_is(const char *in, unsigned int n, const char *want)
{
	char *out;
	size_t len;

	assert_int_equal(sgl_modprobe_edit(in, strlen(in), n, &out, &len), 0);
	assert_int_equal(len, strlen(want));
	assert_string_equal(out, want);
	free(out);
}

static void edits(void **state)
{
	(void)state;
	edit_is("", 6, "options virtio_blk_sgl inline_sg_cnt=6\n");
	edit_is("# c\n", 6, "# c\noptions virtio_blk_sgl inline_sg_cnt=6\n");
	edit_is("# c", 6, "# c\noptions virtio_blk_sgl inline_sg_cnt=6\n");
	edit_is("options virtio_blk_sgl inline_sg_cnt=2\n", 12, "options virtio_blk_sgl inline_sg_cnt=12\n");
	edit_is("options virtio_blk_sgl prealloc=0 inline_sg_cnt=2 fail_chain_every=0\n", 6,
		"options virtio_blk_sgl prealloc=0 inline_sg_cnt=6 fail_chain_every=0\n");
	edit_is("options virtio_blk_sgl queue_depth=64\n", 6,
		"options virtio_blk_sgl queue_depth=64 inline_sg_cnt=6\n");
	edit_is("options virtio-blk-sgl inline-sg-cnt=3\n", 6, "options virtio-blk-sgl inline_sg_cnt=6\n");
	edit_is("options\tvirtio_blk_sgl\tinline_sg_cnt=3\n", 6, "options\tvirtio_blk_sgl\tinline_sg_cnt=6\n");
	/* other modules, comments and a commented-out line are kept */
	edit_is("#options virtio_blk_sgl inline_sg_cnt=3\noptions virtio_blk x=1\noptions virtio_blk_sglx inline_sg_cnt=3\n", 6,
		"#options virtio_blk_sgl inline_sg_cnt=3\noptions virtio_blk x=1\noptions virtio_blk_sglx inline_sg_cnt=3\n"
		"options virtio_blk_sgl inline_sg_cnt=6\n");
	/* duplicates on one line collapse; a second line is updated too */
	edit_is("options virtio_blk_sgl inline_sg_cnt=3 inline_sg_cnt=4\noptions virtio_blk_sgl inline_sg_cnt=5\n", 6,
		"options virtio_blk_sgl inline_sg_cnt=6\noptions virtio_blk_sgl inline_sg_cnt=6\n");
	edit_is("options virtio_blk_sgl inline_sg_cnt=\n", 6, "options virtio_blk_sgl inline_sg_cnt=6\n");
}

static void apply_to_root(void **state)
{
	char root[] = "/tmp/sgl-tune-apply.XXXXXX", d[256], path[512], err[512];
	char *buf;
	size_t len;
	struct stat st;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(root));
	/* no etc/modprobe.d: a clear error naming the directory */
	assert_int_not_equal(sgl_tune_apply(root, 6, path, sizeof(path), err, sizeof(err)), 0);
	assert_non_null(strstr(err, "etc/modprobe.d"));
	snprintf(d, sizeof(d), "%s/etc", root);
	assert_int_equal(mkdir(d, 0755), 0);
	snprintf(d, sizeof(d), "%s/etc/modprobe.d", root);
	assert_int_equal(mkdir(d, 0755), 0);
	snprintf(path, sizeof(path), "%s/virtio_blk_sgl.conf", d);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("# mine\noptions virtio_blk_sgl queue_depth=64 inline_sg_cnt=2\n", f);
	fclose(f);
	chmod(path, 0600);
	assert_int_equal(sgl_tune_apply(root, 8, path, sizeof(path), err, sizeof(err)), 0);
	assert_int_equal(sgl_read_file(path, 4096, &buf, &len), 0);
	assert_int_equal(len, strlen("# mine\noptions virtio_blk_sgl queue_depth=64 inline_sg_cnt=8\n"));
	assert_memory_equal(buf, "# mine\noptions virtio_blk_sgl queue_depth=64 inline_sg_cnt=8\n", len);
	free(buf);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	unlink(path);
	/* a symlink at the target is refused */
	assert_int_equal(symlink("/etc/passwd", path), 0);
	assert_int_not_equal(sgl_tune_apply(root, 8, path, sizeof(path), err, sizeof(err)), 0);
	unlink(path);
	rmdir(d);
	snprintf(d, sizeof(d), "%s/etc", root);
	rmdir(d);
	rmdir(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(edits),
		cmocka_unit_test(apply_to_root),
	};

	return SGL_RUN("unit_tune_apply", tests);
}
