// SPDX-License-Identifier: GPL-2.0
/* `sglstat tune --apply`: edit <root>/etc/modprobe.d/virtio_blk_sgl.conf atomically. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tune_cmd.h"
#include "atomic_file.h"

#define MODPROBE_MAX	(1u << 20)	/* a modprobe.d file larger than 1 MiB is refused */

int sgl_read_file(const char *path, size_t max, char **buf, size_t *len)
{
	size_t n = 0, cap = 4096;
	char *b = malloc(cap);
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		int e = -errno;

		free(b);
		return e;
	}
	if (!b) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t r;

		if (n == cap) {
			char *nb;

			if (cap > max) {
				free(b);
				close(fd);
				return -EFBIG;
			}
			cap *= 2;
			nb = realloc(b, cap);
			if (!nb) {
				free(b);
				close(fd);
				return -ENOMEM;
			}
			b = nb;
		}
		r = read(fd, b + n, cap - n);
		if (r < 0) {
			int e = -errno;

			if (e == -EINTR)
				continue;
			free(b);
			close(fd);
			return e;
		}
		if (!r)
			break;
		n += (size_t)r;
		if (n > max) {
			free(b);
			close(fd);
			return -EFBIG;
		}
	}
	close(fd);
	*buf = b;
	*len = n;
	return 0;
}

struct sbuf {
	char *p;
	size_t len, cap;
	int err;
};

static void put(struct sbuf *s, const char *d, size_t n)
{
	if (s->err)
		return;
	if (s->len + n + 1 > s->cap) {
		size_t cap = (s->len + n + 1) * 2;
		char *np = realloc(s->p, cap);

		if (!np) {
			s->err = -ENOMEM;
			return;
		}
		s->p = np;
		s->cap = cap;
	}
	memcpy(s->p + s->len, d, n);
	s->len += n;
	s->p[s->len] = 0;
}

static bool is_sp(char c)
{
	return c == ' ' || c == '\t';
}

/* The line [l, l+n) is "options virtio_blk_sgl ..." (module name - or _)? */
static bool is_our_options(const char *l, size_t n)
{
	static const char mod[] = "virtio_blk_sgl";
	size_t i = 0, j;

	while (i < n && is_sp(l[i]))
		i++;
	if (n - i < 8 || memcmp(l + i, "options", 7) || !is_sp(l[i + 7]))
		return false;
	i += 7;
	while (i < n && is_sp(l[i]))
		i++;
	for (j = 0; j < sizeof(mod) - 1; j++, i++) {
		char c = i < n ? l[i] : 0;

		if (!(c == mod[j] || (mod[j] == '_' && c == '-')))
			return false;
	}
	return i == n || is_sp(l[i]);
}

int sgl_modprobe_edit(const char *old, size_t oldlen, unsigned int n, char **out, size_t *outlen)
{
	struct sbuf s = { 0 };
	char setting[40];
	size_t pos = 0;
	bool done = false;

	snprintf(setting, sizeof(setting), "inline_sg_cnt=%u", n);
	while (pos < oldlen) {
		const char *l = old + pos, *nl = memchr(l, '\n', oldlen - pos);
		size_t len = nl ? (size_t)(nl - l) : oldlen - pos;
		bool replaced = false;

		if (!is_our_options(l, len)) {
			put(&s, l, len);
		} else {
			/* copy token by token, replacing inline_sg_cnt=... (inline-sg-cnt too) */
			size_t i = 0;

			while (i < len) {
				size_t st = i;

				while (i < len && is_sp(l[i]))
					i++;
				put(&s, l + st, i - st);
				st = i;
				while (i < len && !is_sp(l[i]))
					i++;
				if (i - st > 14 && (!memcmp(l + st, "inline_sg_cnt=", 14) ||
						    !memcmp(l + st, "inline-sg-cnt=", 14))) {
					if (!replaced)
						put(&s, setting, strlen(setting));
					else if (s.len && is_sp(s.p[s.len - 1]))
						s.len--, s.p[s.len] = 0;	/* drop a duplicate */
					replaced = true;
				} else if (i - st >= 13 && i - st <= 14 &&
					   (!memcmp(l + st, "inline_sg_cnt", 13) ||
					    !memcmp(l + st, "inline-sg-cnt", 13)) &&
					   (i - st == 13 || l[st + 13] == '=')) {
					/* "inline_sg_cnt" or "inline_sg_cnt=" with no value */
					if (!replaced)
						put(&s, setting, strlen(setting));
					replaced = true;
				} else {
					put(&s, l + st, i - st);
				}
			}
			if (!replaced && !done) {
				/* strip trailing blanks, then add the setting */
				while (s.len && is_sp(s.p[s.len - 1]))
					s.len--;
				put(&s, " ", 1);
				put(&s, setting, strlen(setting));
				replaced = true;
			}
			done = done || replaced;
		}
		if (nl)
			put(&s, "\n", 1);
		pos += len + (nl ? 1 : 0);
	}
	if (!done) {
		if (s.len && s.p[s.len - 1] != '\n')
			put(&s, "\n", 1);
		put(&s, "options virtio_blk_sgl ", 23);
		put(&s, setting, strlen(setting));
		put(&s, "\n", 1);
	} else if (s.len && s.p[s.len - 1] != '\n') {
		put(&s, "\n", 1);
	}
	if (!s.err && !s.p)
		put(&s, "", 0);
	if (s.err) {
		free(s.p);
		return s.err;
	}
	*out = s.p;
	*outlen = s.len;
	return 0;
}

int sgl_tune_apply(const char *root, unsigned int n, char *path, size_t pathlen,
		   char *err, size_t errlen)
{
	char dir[PATH_MAX], msg[PATH_MAX + 256], *old = NULL, *text;
	size_t oldlen = 0, len;
	struct stat st;
	int e;

	if (!root || !*root)
		root = "/";
	if (snprintf(dir, sizeof(dir), "%s%setc/modprobe.d", root,
		     root[strlen(root) - 1] == '/' ? "" : "/") >= (int)sizeof(dir) ||
	    snprintf(path, pathlen, "%s/virtio_blk_sgl.conf", dir) >= (int)pathlen) {
		snprintf(err, errlen, "--root %s: path too long", root);
		return -ENAMETOOLONG;
	}
	if (stat(dir, &st)) {
		e = -errno;
		snprintf(err, errlen, "%s: %s%s", dir, strerror(-e),
			 e == -ENOENT ? " (is --root right? create the directory first)" : "");
		return e;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: not a directory", dir);
		return -ENOTDIR;
	}
	e = sgl_atomic_check_target(path, msg, sizeof(msg));
	if (e) {
		snprintf(err, errlen, "%s", msg);
		return e;
	}
	e = sgl_read_file(path, MODPROBE_MAX, &old, &oldlen);
	if (e && e != -ENOENT) {
		snprintf(err, errlen, "%s: cannot read it: %s", path, strerror(-e));
		return e;
	}
	e = sgl_modprobe_edit(old ? old : "", old ? oldlen : 0, n, &text, &len);
	free(old);
	if (e) {
		snprintf(err, errlen, "%s: %s", path, strerror(-e));
		return e;
	}
	e = sgl_atomic_write(path, text, len, 0644);
	free(text);
	if (e) {
		snprintf(err, errlen, "%s: cannot write it: %s", path, strerror(-e));
		return e;
	}
	return 0;
}
