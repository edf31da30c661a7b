// SPDX-License-Identifier: GPL-2.0
/* `sglstat memory` and `sglstat tune` from files: no BPF involved. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd.h"
#include "disks.h"
#include "memory.h"
#include "jparse.h"
#include "prom_api.h"

bool sgl_env_disk_selected(const struct sgl_env *env, const char *name)
{
	int i;

	if (!env->nr_disks)
		return true;
	for (i = 0; i < env->nr_disks; i++)
		if (!strcmp(env->disks[i], name))
			return true;
	return false;
}

int sgl_cmd_memory(const struct sgl_env *env)
{
	const char *root = sgl_sysfs_root();
	struct sgl_disk_info found[SGL_SCAN_MAX];
	static struct sgl_mem_info mem[SGL_SCAN_MAX];
	int n, i, k = 0, err;

	if (env->nr_disks) {
		for (n = 0; n < env->nr_disks; n++) {
			const char *name = env->disks[n];

			err = sgl_disk_get(root, name, &found[n]);
			if (err) {
				sgl_disk_explain_error(root, name, err);
				return 1;
			}
			if (found[n].kind == SGL_DISK_OTHER) {
				fprintf(stderr, "sglstat: disk '%s' is not a virtio-blk disk (virtio_blk or virtio_blk_sgl)\n",
					name);
				return 1;
			}
		}
	} else {
		n = sgl_scan_disks(root, found, SGL_SCAN_MAX);
		if (n < 0) {
			fprintf(stderr, "sglstat: cannot read %s/block: %s\n", root, strerror(-n));
			return 1;
		}
		if (!n) {
			fprintf(stderr, "sglstat: no virtio-blk disk found in %s/block\n", root);
			return 1;
		}
	}
	for (i = 0; i < n; i++) {
		err = sgl_mem_read(root, &found[i], env->stock_inline, &mem[k]);
		if (err) {
			fprintf(stderr, "sglstat: %s: cannot read its queue/sgl sysfs attributes: %s\n",
				found[i].name, strerror(-err));
			return 1;
		}
		k++;
	}
	if (env->json)
		sgl_mem_print_json(stdout, mem, k);
	else
		sgl_mem_print_text(stdout, mem, k);
	return 0;
}

/* Report a tune set, then --apply.  Returns the exit status. */
int sgl_cmd_tune_finish(const struct sgl_env *env, struct sgl_tune_set *set, const char *source,
			bool fleet)
{
	struct sgl_tune_opts o = {
		.target = env->tune_target,
		.stock_inline = env->stock_inline,
		.source = source,
		.fleet = fleet,
		.pick_observed = env->pick_observed,
	};
	char path[4096], msg[4608];
	unsigned int v = 0;
	int err;

	if (env->nr_disks) {
		int i, k = 0;

		for (i = 0; i < set->n; i++) {
			const char *n = set->d[i].name, *c = fleet ? strrchr(n, ':') : NULL;

			if (sgl_env_disk_selected(env, c ? c + 1 : n))
				set->d[k++] = set->d[i];
		}
		set->n = k;
		if (!k) {
			fprintf(stderr, "sglstat: tune: no data for disk '%s' in the input\n", env->disk);
			return 1;
		}
	}
	if (!set->n) {
		fprintf(stderr, "sglstat: tune: no disks in the input\n");
		return 1;
	}
	err = env->json ? sgl_tune_print_json(stdout, set, &o, &v) : sgl_tune_print_text(stdout, set, &o, &v);
	fflush(stdout);
	if (err) {
		fprintf(stderr, "sglstat: tune: no disk with known max_segments and nr_requests_total: nothing to recommend\n");
		return 1;
	}
	if (!env->tune_apply)
		return 0;
	err = sgl_tune_apply(env->tune_root ? env->tune_root : "/", v, path, sizeof(path), msg, sizeof(msg));
	if (err) {
		fprintf(stderr, "sglstat: tune --apply: %s\n", msg);
		return 1;
	}
	fprintf(stderr, "sglstat: wrote %s: options virtio_blk_sgl inline_sg_cnt=%u (reload virtio_blk_sgl to use it)\n",
		path, v);
	return 0;
}

/* Prometheus' own word for a refused query: {"status":"error","error":"..."} */
static void prom_error(int status, const char *body, size_t blen, char *msg, size_t n)
{
	const struct sgl_jv *e;
	struct sgl_jdoc doc;
	char jerr[64];

	if (sgl_json_parse(body, blen, &doc, jerr, sizeof(jerr)))
		return;
	e = sgl_jget(&doc, sgl_jroot(&doc), "error");
	if (e && e->type == SGL_J_STR)
		snprintf(msg, n, "HTTP %d, Prometheus says: %.300s", status, e->str);
	sgl_json_free(&doc);
}

/* --prometheus URL: the tune query over --range, into @set */
static int tune_read_prometheus(const struct sgl_env *env, struct sgl_tune_set *set)
{
	struct sgl_prom_url u;
	char query[2048], target[8192], msg[512];
	const char *body;
	char *resp = NULL;
	size_t len, blen;
	int err, status = 0, i;
	double secs;

	err = sgl_prom_url_parse(env->prom_url, &u, msg, sizeof(msg));
	if (!err && (sgl_prom_query(query, sizeof(query), env->prom_range ? env->prom_range : "7d",
				    env->prom_selector) ||
		     sgl_prom_target(target, sizeof(target), &u, query, env->prom_at))) {
		snprintf(msg, sizeof(msg), "--prom-selector or the URL path too long");
		err = -E2BIG;
	}
	if (!err)
		err = sgl_http_get(&u, target, env->prom_timeout ? (int)env->prom_timeout : 30, &resp, &len,
				   msg, sizeof(msg));
	if (!err && sgl_http_split(resp, len, &status, &body, &blen)) {
		snprintf(msg, sizeof(msg), "%s:%s answered with no HTTP response: is it a Prometheus server?",
			 u.host, u.port);
		err = -EPROTO;
	}
	if (!err && status != 200) {
		snprintf(msg, sizeof(msg), "%s/api/v1/query answered HTTP %d: is it a Prometheus server?",
			 env->prom_url, status);
		prom_error(status, body, blen, msg, sizeof(msg));
		err = -EPROTO;
	}
	/* a web server's page at that path: not JSON at all */
	for (i = 0; !err && (size_t)i < blen && body[i] && strchr(" \t\r\n", body[i]); i++)
		;
	if (!err && ((size_t)i == blen || body[i] != '{')) {
		snprintf(msg, sizeof(msg), "%s/api/v1/query answered HTTP 200 without JSON: is it a Prometheus server?",
			 env->prom_url);
		err = -EPROTO;
	}
	if (!err)
		err = sgl_tune_read_prom_query(body, blen, set, msg, sizeof(msg));
	/* increase() over the range: the counts of that many seconds */
	if (!err && !sgl_prom_range_seconds(env->prom_range ? env->prom_range : "7d", &secs))
		for (i = 0; i < set->n; i++)
			set->d[i].in.duration_s = secs;
	free(resp);
	if (err)
		fprintf(stderr, "sglstat: tune --prometheus %s: %s\n", env->prom_url, msg);
	return err;
}

/* tune from files or a Prometheus server: --from, --from-prom, --from-prom-query, --prometheus */
int sgl_cmd_tune_files(const struct sgl_env *env)
{
	struct sgl_tune_set set = { 0 };
	char msg[512], src[4200];
	char *buf;
	size_t len;
	int err, i, rc;

	if (env->tune_from) {
		err = sgl_read_file(env->tune_from, 1u << 30, &buf, &len);
		if (err) {
			fprintf(stderr, "sglstat: tune --from %s: %s\n", env->tune_from, strerror(-err));
			return 1;
		}
		err = sgl_tune_read_capture(buf, len, sgl_sysfs_root(), env->stock_inline, &set, msg, sizeof(msg));
		free(buf);
		if (err) {
			fprintf(stderr, "sglstat: tune --from %s: %s\n", env->tune_from, msg);
			sgl_tune_set_free(&set);
			return 1;
		}
		snprintf(src, sizeof(src), "capture %s", env->tune_from);
		rc = sgl_cmd_tune_finish(env, &set, src, false);
		sgl_tune_set_free(&set);
		return rc;
	}
	for (i = 0; i < env->nr_prom_in; i++) {
		err = sgl_read_file(env->prom_in[i], 64u << 20, &buf, &len);
		if (err) {
			fprintf(stderr, "sglstat: tune --from-prom %s: %s\n", env->prom_in[i], strerror(-err));
			sgl_tune_set_free(&set);
			return 1;
		}
		err = sgl_tune_read_prom(buf, len, env->prom_in[i], &set, msg, sizeof(msg));
		free(buf);
		if (err) {
			fprintf(stderr, "sglstat: tune --from-prom %s: %s\n", env->prom_in[i], msg);
			sgl_tune_set_free(&set);
			return 1;
		}
	}
	if (env->prom_query) {
		err = sgl_read_file(env->prom_query, 256u << 20, &buf, &len);
		if (!err) {
			err = sgl_tune_read_prom_query(buf, len, &set, msg, sizeof(msg));
			free(buf);
		} else {
			snprintf(msg, sizeof(msg), "%s", strerror(-err));
		}
		if (err) {
			fprintf(stderr, "sglstat: tune --from-prom-query %s: %s\n", env->prom_query, msg);
			sgl_tune_set_free(&set);
			return 1;
		}
	}
	if (env->prom_url && tune_read_prometheus(env, &set)) {
		sgl_tune_set_free(&set);
		return 1;
	}
	rc = sgl_cmd_tune_finish(env, &set, "prometheus", true);
	sgl_tune_set_free(&set);
	return rc;
}

