// SPDX-License-Identifier: GPL-2.0
/*
 * Atomic file replacement (write a temporary file in the same directory,
 * fsync, rename over the target, fsync the directory).  Used by the
 * Prometheus textfile export (report_prom.c); see atomic_file.h for the
 * contract and docs/PROMETHEUS.md for the guarantees.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "atomic_file.h"

#define TMP_RAND_LEN	6
#define TMP_TRIES	64

static const char tmp_chars[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

int sgl_atomic_split(const char *path, char *dir, size_t dirlen, char *base, size_t baselen)
{
	const char *slash;
	size_t n;

	if (!path || !*path)
		return -EINVAL;
	n = strlen(path);
	if (path[n - 1] == '/')
		return -EISDIR;
	slash = strrchr(path, '/');
	if (!slash) {
		if (dirlen < 2)
			return -ENAMETOOLONG;
		strcpy(dir, ".");
		slash = path - 1;
	} else if (slash == path) {
		if (dirlen < 2)
			return -ENAMETOOLONG;
		strcpy(dir, "/");
	} else {
		n = (size_t)(slash - path);
		if (n + 1 > dirlen)
			return -ENAMETOOLONG;
		memcpy(dir, path, n);
		dir[n] = '\0';
	}
	n = strlen(slash + 1);
	if (n + 1 > baselen)
		return -ENAMETOOLONG;
	memcpy(base, slash + 1, n + 1);
	if (!strcmp(base, ".") || !strcmp(base, ".."))
		return -EISDIR;
	return 0;
}

/* ".<base>.XXXXXX.tmp" with random XXXXXX. */
static int tmp_name(const char *base, char *out, size_t outlen)
{
	static unsigned int counter;
	unsigned char rnd[TMP_RAND_LEN];
	char r[TMP_RAND_LEN + 1];
	unsigned long long x;
	struct timespec ts;
	unsigned int i;
	int n;

	if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd)) {
		/* no entropy yet (early boot): still unique enough with O_EXCL retries */
		clock_gettime(CLOCK_MONOTONIC, &ts);
		x = (unsigned long long)ts.tv_nsec ^
		    ((unsigned long long)getpid() << 20) ^
		    ((unsigned long long)++counter << 40);
		for (i = 0; i < TMP_RAND_LEN; i++) {
			rnd[i] = (unsigned char)x;
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			rnd[i] ^= (unsigned char)(x >> 56);
		}
	}
	for (i = 0; i < TMP_RAND_LEN; i++)
		r[i] = tmp_chars[rnd[i] % (sizeof(tmp_chars) - 1)];
	r[TMP_RAND_LEN] = '\0';
	n = snprintf(out, outlen, ".%s.%s" SGL_ATOMIC_TMP_SUFFIX, base, r);
	if (n < 0 || (size_t)n >= outlen)
		return -ENAMETOOLONG;
	return 0;
}

/* Is @name a temporary file of @base (".<base>.XXXXXX.tmp")? */
static bool is_tmp_of(const char *name, const char *base)
{
	size_t bl = strlen(base), sl = strlen(SGL_ATOMIC_TMP_SUFFIX), i;

	if (strlen(name) != 1 + bl + 1 + TMP_RAND_LEN + sl)
		return false;
	if (name[0] != '.' || strncmp(name + 1, base, bl) || name[1 + bl] != '.')
		return false;
	for (i = 0; i < TMP_RAND_LEN; i++)
		if (!name[2 + bl + i] || !strchr(tmp_chars, name[2 + bl + i]))
			return false;
	return !strcmp(name + 2 + bl + TMP_RAND_LEN, SGL_ATOMIC_TMP_SUFFIX);
}

/* Create a new temporary file next to @base in @dirfd: fd or -errno. */
static int tmp_create(int dirfd, const char *base, char *name, size_t namelen)
{
	int i, fd, err;

	for (i = 0; i < TMP_TRIES; i++) {
		err = tmp_name(base, name, namelen);
		if (err)
			return err;
		fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0600);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int sgl_atomic_write(const char *path, const void *buf, size_t len, mode_t mode)
{
	char dir[4096], base[256], tmp[320];
	int dirfd, fd, err;

	err = sgl_atomic_split(path, dir, sizeof(dir), base, sizeof(base));
	if (err)
		return err == -EISDIR ? -EINVAL : err;
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -errno;
	fd = tmp_create(dirfd, base, tmp, sizeof(tmp));
	if (fd < 0) {
		err = fd;
		goto out_dir;
	}
	if (fchmod(fd, mode) < 0) {
		err = -errno;
		goto out_tmp;
	}
	err = write_all(fd, buf, len);
	if (err)
		goto out_tmp;
	if (fsync(fd) < 0) {
		err = -errno;
		goto out_tmp;
	}
	if (close(fd) < 0) {
		fd = -1;
		err = -errno;
		goto out_tmp;
	}
	fd = -1;
	if (renameat(dirfd, tmp, dirfd, base) < 0) {
		err = -errno;
		goto out_tmp;
	}
	/* Durability of the rename; some filesystems cannot fsync a directory. */
	if (fsync(dirfd) < 0 && errno != EINVAL)
		err = -errno;
	close(dirfd);
	return err;

out_tmp:
	if (fd >= 0)
		close(fd);
	unlinkat(dirfd, tmp, 0);
out_dir:
	close(dirfd);
	return err;
}

static int msgf(char *msg, size_t msglen, int err, const char *fmt, ...)
{
	va_list ap;

	if (msg && msglen) {
		va_start(ap, fmt);
		vsnprintf(msg, msglen, fmt, ap);
		va_end(ap);
	}
	return err;
}

/* Remove ".<base>.XXXXXX.tmp" files a crashed writer left in @dirfd. */
static void remove_stale_tmp(int dirfd, const char *base)
{
	struct dirent *de;
	DIR *d;
	int fd;

	fd = dup(dirfd);
	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d)))
		if (is_tmp_of(de->d_name, base))
			unlinkat(dirfd, de->d_name, 0);
	closedir(d);
}

int sgl_atomic_check_target(const char *path, char *msg, size_t msglen)
{
	char dir[4096], base[256], tmp[320];
	struct stat st;
	int err, dirfd, fd;

	if (!path || !*path)
		return msgf(msg, msglen, -EINVAL, "empty path");
	err = sgl_atomic_split(path, dir, sizeof(dir), base, sizeof(base));
	if (err == -EISDIR)
		return msgf(msg, msglen, -EISDIR, "%s: names a directory, not a file", path);
	if (err)
		return msgf(msg, msglen, err, "%s: %s", path, strerror(-err));
	if (stat(dir, &st) < 0) {
		err = -errno;
		if (err == -ENOENT)
			return msgf(msg, msglen, err, "%s: directory %s does not exist", path, dir);
		return msgf(msg, msglen, err, "%s: directory %s: %s", path, dir, strerror(-err));
	}
	if (!S_ISDIR(st.st_mode))
		return msgf(msg, msglen, -ENOTDIR, "%s: %s is not a directory", path, dir);
	if (lstat(path, &st) == 0) {
		if (S_ISLNK(st.st_mode))
			return msgf(msg, msglen, -ELOOP,
				    "%s: is a symbolic link; refusing (the file is replaced, never "
				    "written through a link: give the real path)", path);
		if (!S_ISREG(st.st_mode))
			return msgf(msg, msglen, S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL,
				    "%s: exists and is not a regular file", path);
	} else if (errno != ENOENT) {
		err = -errno;
		return msgf(msg, msglen, err, "%s: %s", path, strerror(-err));
	}
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		err = -errno;
		return msgf(msg, msglen, err, "%s: directory %s: %s", path, dir, strerror(-err));
	}
	remove_stale_tmp(dirfd, base);
	fd = tmp_create(dirfd, base, tmp, sizeof(tmp));
	if (fd < 0) {
		close(dirfd);
		return msgf(msg, msglen, fd, "%s: cannot create files in directory %s: %s",
			    path, dir, strerror(-fd));
	}
	close(fd);
	err = unlinkat(dirfd, tmp, 0) < 0 ? -errno : 0;
	close(dirfd);
	if (err)
		return msgf(msg, msglen, err, "%s: cannot remove probe file %s/%s: %s",
			    path, dir, tmp, strerror(-err));
	if (msg && msglen)
		msg[0] = '\0';
	return 0;
}
