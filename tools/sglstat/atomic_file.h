/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Replace a file atomically: readers see either the old complete file or the
 * new complete file, never a partial one (docs/PROMETHEUS.md, "File-writing
 * guarantees").
 */
#ifndef SGLSTAT_ATOMIC_FILE_H
#define SGLSTAT_ATOMIC_FILE_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Temporary files are created in the target's directory as
 * ".<name>.XXXXXX.tmp" (XXXXXX random), so that they never end in the
 * target's suffix (node_exporter reads only "*.prom").
 */
#define SGL_ATOMIC_TMP_SUFFIX	".tmp"

/*
 * Write @len bytes of @buf to @path atomically:
 *   - create a uniquely named temporary file in the same directory with
 *     O_CREAT | O_EXCL | O_NOFOLLOW (never opens an existing file or a link);
 *   - fchmod it to @mode (independent of the umask), write everything,
 *     fsync it, close it;
 *   - rename() it over @path (rename replaces a directory entry: if @path is
 *     a symbolic link, the link itself is replaced and its target is never
 *     opened or modified);
 *   - fsync the directory.
 * On any error before the rename the temporary file is unlinked and @path is
 * untouched.  Returns 0 or -errno (-EINVAL for an empty path or one that
 * names a directory).  An error from the final directory fsync is returned
 * too, but then @path already holds the new, complete file.
 */
int sgl_atomic_write(const char *path, const void *buf, size_t len, mode_t mode);

/*
 * Start-up check of a target path: its directory exists, is a directory and
 * a file can really be created in it (a probe temporary file is created and
 * removed, so read-only mounts and permissions are caught as the writer
 * would hit them); @path is either absent or a regular file.  A symbolic
 * link at @path is refused (-ELOOP): the writer would replace the link and
 * not write where it points, which is never what was meant.
 * Stale temporary files of @path left by a crashed writer are removed.
 * Returns 0, or -errno with a one-line reason (no trailing newline, starting
 * with the offending path) in @msg.
 */
int sgl_atomic_check_target(const char *path, char *msg, size_t msglen);

/* Split @path into its directory ("." if none) and last component. 0 or -errno. */
int sgl_atomic_split(const char *path, char *dir, size_t dirlen, char *base, size_t baselen);

#endif
