/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small, bounded JSON reader (RFC 8259) for `sglstat tune --from` captures
 * and Prometheus query results.  Input of any content is safe: lengths are
 * explicit (no NUL needed), nesting is limited, every allocation is bounded
 * by the input size, and errors come back as one line with a byte offset.
 */
#ifndef SGLSTAT_JPARSE_H
#define SGLSTAT_JPARSE_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

#define SGL_JSON_MAX_DEPTH	64

enum sgl_jtype { SGL_J_NULL, SGL_J_FALSE, SGL_J_TRUE, SGL_J_NUM, SGL_J_STR, SGL_J_ARR, SGL_J_OBJ };

struct sgl_jv {
	enum sgl_jtype type;
	int next;		/* next sibling (array element / object member), -1 */
	int child;		/* first element / member, -1 */
	int nchild;
	const char *key;	/* member name when the parent is an object */
	const char *str;	/* SGL_J_STR: decoded, NUL-terminated (no NUL inside) */
	double num;		/* SGL_J_NUM */
	bool is_u64;		/* SGL_J_NUM: a non-negative integer that fits in u64 */
	__u64 u64;
};

struct sgl_jdoc {
	struct sgl_jv *v;	/* v[0] is the root */
	int nv, capv;
	char *strs;		/* decoded strings and keys */
	size_t nstrs, capstrs;
};

/* Parse @len bytes.  0, or -EINVAL (syntax; @err says where and what) / -ENOMEM / -E2BIG. */
int sgl_json_parse(const char *buf, size_t len, struct sgl_jdoc *doc, char *err, size_t errlen);
void sgl_json_free(struct sgl_jdoc *doc);

static inline const struct sgl_jv *sgl_jroot(const struct sgl_jdoc *d) { return d->nv ? &d->v[0] : NULL; }
/* Member @key of object @o (the last one if repeated), or NULL. */
const struct sgl_jv *sgl_jget(const struct sgl_jdoc *d, const struct sgl_jv *o, const char *key);
/* First child / next sibling, NULL at the end. */
const struct sgl_jv *sgl_jfirst(const struct sgl_jdoc *d, const struct sgl_jv *v);
const struct sgl_jv *sgl_jnext(const struct sgl_jdoc *d, const struct sgl_jv *v);
/* @v is a non-negative integer (fits u64): 0 and *out, else -EINVAL. */
int sgl_jget_u64(const struct sgl_jv *v, __u64 *out);

#endif
