#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks for tests/prom/run.  Each subcommand prints nothing and exits 0 when
the check holds, else prints one line (the reason) and exits 1.

The expected series are computed here from the *raw inputs* prom_writer dumps
(--json: value -> count maps of segment counts and latencies in ns, counter
totals, sysfs values), not from the slot arithmetic of the code under test.

  mksys DIR driver|stock      create a fake sysfs tree (and DIR/desc.json)
  file FILE JSON              exposition rules + exact series/values of a file
  scrape URL JSON [JSON...]   node_exporter output holds exactly the expected
                              virtio_blk_sgl series, scrape_error 0
  dip PREFIX                  prom_writer --dip files: counters never go down
  hammer URL FILE N           N scrapes (and direct reads of FILE) while a
                              writer rewrites FILE: never a partial file
  fleet PROMURL JSON...       PromQL over the HTTP API equals the inputs
  tunefiles SRC K ZERO REAL   SRC's bucket counts times K (REAL) and at 0 (ZERO)
  tunewait PROMURL zero|real N  until N instances of job "tune" have 2 samples
                              (zero) or non-zero buckets (real), up to 20 s
  tunecmp TUNEJSON FILESJSON TARGET ADDR=FILE...  sglstat tune --prometheus's
                              disks (instance ADDR, disk D; none skipped) are
                              exactly the --from-prom disks FILE:D, with the same picks,
                              classes and recommendation; no candidate's
                              fraction within 0.001 of TARGET in FILESJSON
  tunesame A B                two sglstat tune -j outputs equal but for the
                              duration, per-second fields and source
"""
import json
import math
import os
import sys
import time
import urllib.parse
import urllib.request
from decimal import Decimal

P = "virtio_blk_sgl_"
OPS = ["read", "write", "flush", "discard", "write_zeroes", "other"]
SEG_LE = list(range(0, 17)) + [20, 24, 28, 32, 48, 64, 96, 128, 256, 512, 1024]
IO_K = range(10, 36)
SETUP_K = range(6, 27)
ALLOWED_LABELS = {"disk", "op", "mode", "le"}


class Fail(Exception):
    pass


# ---------------------------------------------------------------- parsing

def parse_labels(s, i):
    """s[i] == '{'; returns (dict, index after '}')."""
    labels = {}
    i += 1
    while True:
        while s[i] in " ,":
            i += 1
        if s[i] == "}":
            return labels, i + 1
        j = s.index("=", i)
        name = s[i:j].strip()
        if s[j + 1] != '"':
            raise Fail("label %s: value not quoted" % name)
        k = j + 2
        val = []
        while s[k] != '"':
            if s[k] == "\\":
                nxt = s[k + 1]
                if nxt == "n":
                    val.append("\n")
                elif nxt in '\\"':
                    val.append(nxt)
                else:
                    raise Fail("label %s: bad escape \\%s" % (name, nxt))
                k += 2
            elif s[k] == "\n":
                raise Fail("label %s: raw newline" % name)
            else:
                val.append(s[k])
                k += 1
        if name in labels:
            raise Fail("duplicate label %s" % name)
        labels[name] = "".join(val)
        i = k + 1


def parse(text):
    """Returns (comments [(kind, name, rest)], samples [(name, labels, value_str, rest)])
    in file order, as events [('help'|'type'|'sample', ...)]."""
    events = []
    for n, line in enumerate(text.split("\n")[:-1], 1):
        if line.startswith("#"):
            parts = line.split(" ", 3)
            if len(parts) >= 3 and parts[1] in ("HELP", "TYPE"):
                events.append((parts[1].lower(), parts[2], parts[3] if len(parts) > 3 else ""))
            continue
        if not line.strip():
            continue
        i = 0
        while i < len(line) and line[i] not in "{ ":
            i += 1
        name = line[:i]
        labels = {}
        if i < len(line) and line[i] == "{":
            labels, i = parse_labels(line, i)
        rest = line[i:].split()
        if not rest:
            raise Fail("line %d: no value" % n)
        events.append(("sample", name, labels, rest))
    return events


def samples(text):
    out = {}
    for ev in parse(text):
        if ev[0] != "sample":
            continue
        key = series_key(ev[1], ev[2])
        if key in out:
            raise Fail("duplicate series %s" % fmt_key(key))
        out[key] = float(ev[3][0])
    return out


def norm_le(le):
    return "+Inf" if le == "+Inf" else repr(float(le))


def series_key(name, labels):
    lb = dict(labels)
    if "le" in lb:
        lb["le"] = norm_le(lb["le"])
    return (name, tuple(sorted(lb.items())))


def fmt_key(key):
    return "%s{%s}" % (key[0], ",".join('%s="%s"' % kv for kv in key[1]))


# ---------------------------------------------------------------- expected

def vmap(m):
    return {int(k): v for k, v in m.items()}


def hist(exp, name, labels, values, les, sum_=None):
    """values: {v: count}; les: [(label value as float, bound in value units)].
    sum_ None: the family has no _sum; node_exporter then adds _sum 0,
    which expected(j, scraped=True) expects."""
    total = sum(values.values())
    for le_f, bound in les:
        exp[series_key(name + "_bucket", dict(labels, le=str(le_f)))] = \
            float(sum(c for v, c in values.items() if v <= bound))
    exp[series_key(name + "_bucket", dict(labels, le="+Inf"))] = float(total)
    exp[series_key(name + "_count", labels)] = float(total)
    if sum_ is not None:
        exp[series_key(name + "_sum", labels)] = float(sum_)
    elif SCRAPED:
        exp[series_key(name + "_sum", labels)] = 0.0


SCRAPED = False


def load_desc(j):
    try:
        return json.load(open(j["sysfs_root"] + "/desc.json"))
    except (OSError, KeyError):
        return {}


def stock_mem(s, inline):
    """The in-tree driver's figures as docs/PROMETHEUS.md (memory.c) defines them."""
    nreq = sum(s["nr_tags"]) + len(s["nr_tags"])
    if s["scheduler"] != "none":
        nreq += len(s["nr_tags"]) * s["nr_requests"]
    return {"nr_hw_queues": len(s["nr_tags"]), "queue_depth": max(s["nr_tags"]),
            "max_segments": s["max_segments"], "nr_requests_total": nreq,
            "sg_full_prealloc_bytes": nreq * s["max_segments"] * 32,
            "sg_prealloc_bytes": nreq * inline * 32}


def expected(j):
    exp = {}
    mode = j["mode"]
    m = j["meta"]
    desc = load_desc(j)
    exp[series_key(P + "exporter_info", {"version": "0.1.0-test", "kernel": os.uname().release,
                                          "driver": desc.get("driver_version", "none"),
                                          "mode": mode})] = 1.0
    exp[series_key(P + "last_export_timestamp_seconds", {})] = float(j["ts"])
    ctr = [("requests", "requests"), ("chained_requests", "chained"),
           ("chained_bytes", "chained_bytes"), ("data_bytes", "bytes"),
           ("retries", "retries"), ("requeues", "requeues"), ("completions", "completions"),
           ("io_errors", "io_errors"), ("io_latency_untimed", "lat_untimed"),
           ("io_latency_from_io_start", "lat_src_io_start"), ("io_latency_from_start", "lat_src_start")]
    if j["failures_known"]:
        ctr += [("alloc_failures", "alloc_failures"), ("alloc_failures_injected", "alloc_injected")]
    if mode == "driver":
        ctr += [("map_errors", "map_errors"), ("model_mismatch", "model_mismatch")]
    for d in j["disks"]:
        dl = {"disk": d["name"], "mode": mode}
        for op in OPS:
            o = d["ops"][op]
            lb = dict(dl, op=op)
            for metric, field in ctr:
                exp[series_key(P + metric + "_total", lb)] = float(o[field])
            segs = vmap(o["segs"])
            if sum(segs.values()) != o["requests"] or \
               sum(v * c for v, c in segs.items()) != o["segments"]:
                raise Fail("writer inconsistent: raw segs vs counters (%s %s)" % (d["name"], op))
            if segs:
                hist(exp, P + "segments", lb, segs, [(le, le) for le in SEG_LE], o["segments"])
            for key, fam in (("lat_inline", "io_latency_inline_seconds"),
                             ("lat_chained", "io_latency_chained_seconds")):
                lat = vmap(o[key])
                if lat:
                    hist(exp, P + fam, lb, lat, [(2 ** k / 1e9, 2 ** k) for k in IO_K],
                         sum(v * c for v, c in lat.items()) / 1e9)
            st = vmap(o["setup"])
            if mode == "driver" and st:
                hist(exp, P + "setup_latency_seconds", lb, st,
                     [(2 ** k / 1e9, 2 ** k) for k in SETUP_K],
                     sum(v * c for v, c in st.items()) / 1e9)
        s = d.get("sysfs")
        stock = None
        if not s and d["present"] and d["name"] in desc.get("disks", {}):
            stock = stock_mem(desc["disks"][d["name"]], d["inline"])
        exp[series_key(P + "disk_present", dl)] = float(d["present"])
        exp[series_key(P + "inline_sg_entries", dl)] = float(d["inline"])
        exp[series_key(P + "chained_bytes", dl)] = \
            float(s["chained_bytes_now"] if s else max(0, d["chained_now"]))
        exp[series_key(P + "chained_peak_bytes", dl)] = \
            float(s["chained_bytes_peak"] if s else max(0, d["chained_peak"]))
        if stock:
            s = dict(stock, chained_bytes_peak=max(0, d["chained_peak"]))
        if s:
            for metric, field in (("hw_queues", "nr_hw_queues"), ("queue_depth", "queue_depth"),
                                  ("max_segments", "max_segments"),
                                  ("preallocated_requests", "nr_requests_total"),
                                  ("sg_full_prealloc_bytes", "sg_full_prealloc_bytes"),
                                  ("sg_inline_bytes", "sg_prealloc_bytes")):
                exp[series_key(P + metric, dl)] = float(s[field])
            exp[series_key(P + "memory_saved_bytes", dl)] = float(max(
                0, s["sg_full_prealloc_bytes"] - s["sg_prealloc_bytes"] - s["chained_bytes_peak"]))
    return exp


def compare(got, exp, what):
    ours = {k: v for k, v in got.items() if k[0].startswith(P)}
    missing = [k for k in exp if k not in ours]
    extra = [k for k in ours if k not in exp]
    if missing:
        raise Fail("%s: %d expected series missing, e.g. %s" % (what, len(missing), fmt_key(missing[0])))
    if extra:
        raise Fail("%s: %d unexpected series, e.g. %s" % (what, len(extra), fmt_key(extra[0])))
    for k, v in exp.items():
        if ours[k] != v and not (math.isclose(ours[k], v, rel_tol=1e-12)):
            raise Fail("%s: %s = %r, expected %r" % (what, fmt_key(k), ours[k], v))


# ---------------------------------------------------------------- exposition rules

def hist_consistency(got):
    """+Inf == _count, buckets non-decreasing in le, for every histogram series."""
    groups = {}
    for (name, lb), v in got.items():
        if name.endswith("_bucket"):
            d = dict(lb)
            le = d.pop("le")
            groups.setdefault((name[:-7], tuple(sorted(d.items()))), []).append(
                (math.inf if le == "+Inf" else float(le), v))
    if not groups:
        raise Fail("no histogram buckets at all")
    for (base, lb), bs in groups.items():
        bs.sort()
        if bs[-1][0] != math.inf:
            raise Fail("%s%s: no +Inf bucket" % (base, lb))
        cnt = got.get((base + "_count", lb))
        if cnt is None or cnt != bs[-1][1]:
            raise Fail("%s%s: +Inf %r != _count %r" % (base, lb, bs[-1][1], cnt))
        for a, b in zip(bs, bs[1:]):
            if b[1] < a[1]:
                raise Fail("%s%s: bucket le=%r < le=%r" % (base, lb, b[0], a[0]))
    return len(groups)


def check_rules(text):
    if not text.endswith("\n"):
        raise Fail("no final newline")
    events = parse(text)
    types, helps, done = {}, set(), set()
    current = None
    for ev in events:
        if ev[0] == "help":
            if ev[1] in helps:
                raise Fail("second HELP for %s" % ev[1])
            helps.add(ev[1])
            continue
        if ev[0] == "type":
            if ev[1] in types:
                raise Fail("second TYPE for %s" % ev[1])
            if ev[1] not in helps:
                raise Fail("TYPE before HELP for %s" % ev[1])
            types[ev[1]] = ev[2]
            if ev[2] == "counter" and not ev[1].endswith("_total"):
                raise Fail("counter %s without _total" % ev[1])
            if not ev[1].startswith(P):
                raise Fail("family %s without prefix" % ev[1])
            continue
        name, labels, rest = ev[1], ev[2], ev[3]
        fam = name
        for suf in ("_bucket", "_sum", "_count"):
            if name.endswith(suf) and types.get(name[:-len(suf)]) == "histogram":
                fam = name[:-len(suf)]
        if fam not in types:
            raise Fail("sample %s before its TYPE" % name)
        if fam != current:
            if fam in done:
                raise Fail("family %s not grouped" % fam)
            if current:
                done.add(current)
            current = fam
        if len(rest) != 1:
            raise Fail("%s: timestamp or junk after the value: %r" % (name, rest))
        bad = set(labels) - ALLOWED_LABELS
        if bad and fam != P + "exporter_info":
            raise Fail("%s: labels %s not in disk/op/mode/le" % (name, sorted(bad)))
        if "le" in labels and labels["le"] != "+Inf":
            # le must be an exact decimal: 2^k ns in seconds, or an integer
            le = Decimal(labels["le"])
            if fam.endswith("_seconds"):
                ns = le * Decimal(10) ** 9
                if ns != ns.to_integral_value() or int(ns) & (int(ns) - 1):
                    raise Fail("%s: le=%s is not 2^k ns exactly" % (name, labels["le"]))
    for f in helps:
        if f not in types:
            raise Fail("HELP without TYPE for %s" % f)


# ---------------------------------------------------------------- http

def get(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read().decode()


def query(prom, q):
    r = json.loads(get(prom + "/api/v1/query?" + urllib.parse.urlencode({"query": q})))
    if r.get("status") != "success":
        raise Fail("query %s: %s" % (q, r))
    return r["data"]["result"]


def prom_hist_quantile(q, buckets):
    """Prometheus 2.42 bucketQuantile over [(upper, cumulative count)]."""
    buckets = sorted(buckets)
    if len(buckets) < 2 or buckets[-1][0] != math.inf:
        return math.nan
    obs = buckets[-1][1]
    if obs == 0:
        return math.nan
    rank = q * obs
    b = len(buckets) - 1            # sort.Search over all but +Inf
    for i in range(len(buckets) - 1):
        if buckets[i][1] >= rank:
            b = i
            break
    if b == len(buckets) - 1:
        return buckets[-2][0]
    if b == 0 and buckets[0][0] <= 0:
        return buckets[0][0]
    start, end, count = 0.0, buckets[b][0], buckets[b][1]
    if b > 0:
        start = buckets[b - 1][0]
        count -= buckets[b - 1][1]
        rank -= buckets[b - 1][1]
    return start + (end - start) * (rank / count)


def fleet_expect(js, q, ops=("read", "write")):
    req = sum(d["ops"][o]["requests"] for j in js for d in j["disks"] for o in OPS)
    ch = sum(d["ops"][o]["chained"] for j in js for d in j["disks"] for o in OPS)
    allsegs = {}
    for j in js:
        for d in j["disks"]:
            for o in ops:
                for v, c in vmap(d["ops"][o]["segs"]).items():
                    allsegs[v] = allsegs.get(v, 0) + c
    buckets = [(le, sum(c for v, c in allsegs.items() if v <= le)) for le in SEG_LE]
    buckets.append((math.inf, sum(allsegs.values())))
    saved = 0
    for j in js:
        exp = expected(j)
        saved += sum(v for k, v in exp.items() if k[0] == P + "memory_saved_bytes")
    return ch / req, prom_hist_quantile(q, buckets), saved


def scalar(res, what):
    if len(res) != 1:
        raise Fail("%s: %d results, expected 1: %s" % (what, len(res), res))
    return float(res[0]["value"][1])


# ---------------------------------------------------------------- commands

def cmd_mksys(root, flavor):
    """A fake sysfs tree: 'driver' has a module version, 'stock' two in-tree disks."""
    desc = {}
    if flavor == "driver":
        desc["driver_version"] = "0.1.0-fake"
        os.makedirs(root + "/module/virtio_blk_sgl", exist_ok=True)
        open(root + "/module/virtio_blk_sgl/version", "w").write("0.1.0-fake\n")
    else:
        desc["disks"] = {
            "vda": {"nr_tags": [128, 128, 128], "max_segments": 254, "nr_requests": 256,
                    "scheduler": "mq-deadline", "sched_file": "[mq-deadline] none"},
            "vdb": {"nr_tags": [64], "max_segments": 126, "nr_requests": 64,
                    "scheduler": "none", "sched_file": "[none] mq-deadline"},
        }
        for name, s in desc["disks"].items():
            b = "%s/block/%s" % (root, name)
            for q, t in enumerate(s["nr_tags"]):
                os.makedirs("%s/mq/%d" % (b, q), exist_ok=True)
                open("%s/mq/%d/nr_tags" % (b, q), "w").write("%d\n" % t)
            os.makedirs(b + "/queue", exist_ok=True)
            open(b + "/queue/max_segments", "w").write("%d\n" % s["max_segments"])
            open(b + "/queue/nr_requests", "w").write("%d\n" % s["nr_requests"])
            open(b + "/queue/scheduler", "w").write(s["sched_file"] + "\n")
    json.dump(desc, open(root + "/desc.json", "w"))


def cmd_file(path, jpath):
    text = open(path).read()
    check_rules(text)
    got = samples(text)
    compare(got, expected(json.load(open(jpath))), path)
    if any(k[0].endswith("_bucket") for k in got):
        hist_consistency(got)


def cmd_scrape(url, *jpaths):
    global SCRAPED
    SCRAPED = True
    got = samples(get(url))
    err = got.get(("node_textfile_scrape_error", ()))
    if err != 0.0:
        raise Fail("node_textfile_scrape_error = %r" % err)
    exp = {}
    for jp in jpaths:
        exp.update(expected(json.load(open(jp))))
    compare(got, exp, url)
    hist_consistency(got)


def monotonic_name(name):
    return name.startswith(P) and name.endswith(("_total", "_bucket", "_count", "_sum"))


def cmd_dip(prefix):
    """The monotonic guard: see prom_writer --dip."""
    f = {n: samples(open("%s.%d.prom" % (prefix, n)).read()) for n in (1, 2, 3, 4)}
    j = {n: json.load(open("%s.%d.json" % (prefix, n))) for n in (1, 2, 3, 4)}
    e = {n: expected(j[n]) for n in (1, 2, 3, 4)}
    d1, d2 = j[1]["disks"][0]["ops"]["read"], j[2]["disks"][0]["ops"]["read"]
    if not (d2["requests"] < d1["requests"] and d2["chained"] < d1["chained"]):
        raise Fail("writer: the inputs of step 2 do not dip")
    compare(f[1], e[1], "step 1")
    # step 2: every monotonic series = max(step 1 exported, step 2 input)
    exp2 = {}
    for k, v in e[2].items():
        exp2[k] = max(v, f[1].get(k, 0.0)) if monotonic_name(k[0]) else v
    compare(f[2], exp2, "step 2 (requeue dip)")
    dipped = [k for k in e[2] if monotonic_name(k[0]) and e[2][k] < f[1].get(k, 0.0)]
    if not dipped:
        raise Fail("step 2: no series dipped in the inputs")
    compare(f[3], e[3], "step 3 (reissued)")
    compare(f[4], e[4], "step 4 (real reset)")
    hist_consistency(f[2])
    print("%d series held at their step-1 value in step 2" % len(dipped), file=sys.stderr)


def cmd_hammer(url, path, n):
    n = int(n)
    fams = [P + "requests_total", P + "segments_bucket", P + "memory_saved_bytes",
            P + "last_export_timestamp_seconds"]
    seen_ts = set()
    reads = 0
    prev = {}
    for i in range(n):
        got = samples(get(url))
        for k, v in got.items():
            if monotonic_name(k[0]) and v < prev.get(k, 0.0):
                raise Fail("scrape %d: %s went down: %r -> %r" % (i, fmt_key(k), prev[k], v))
        prev = got
        if got.get(("node_textfile_scrape_error", ())) != 0.0:
            raise Fail("scrape %d: node_textfile_scrape_error = %r" %
                       (i, got.get(("node_textfile_scrape_error", ()))))
        names = {k[0] for k in got}
        for f in fams:
            if f not in names:
                raise Fail("scrape %d: family %s missing" % (i, f))
        hist_consistency({k: v for k, v in got.items() if k[0].startswith(P)})
        seen_ts.add(got[(P + "last_export_timestamp_seconds", ())])
        # and read the file directly a few times: complete, ends in newline
        for _ in range(5):
            t = open(path).read()
            reads += 1
            if not t.endswith("\n") or P + "memory_saved_bytes{" not in t:
                raise Fail("direct read %d: partial file (%d bytes)" % (reads, len(t)))
    if len(seen_ts) < n // 4:
        raise Fail("only %d distinct files seen in %d scrapes: writer not rewriting?" % (len(seen_ts), n))
    print("%d scrapes, %d distinct files, %d direct reads" % (n, len(seen_ts), reads), file=sys.stderr)


def cmd_fleet(prom, *jpaths):
    js = [json.load(open(p)) for p in jpaths]
    frac, q50, saved = fleet_expect(js, 0.5)
    got = scalar(query(prom, "sum(%schained_requests_total) / sum(%srequests_total)" % (P, P)),
                 "fleet chained fraction")
    if not math.isclose(got, frac, rel_tol=1e-9):
        raise Fail("fleet chained fraction %r, expected %r" % (got, frac))
    got = scalar(query(prom, 'histogram_quantile(0.5, sum by (le) (%ssegments_bucket{op=~"read|write"}))' % P),
                 "segment p50")
    if not math.isclose(got, q50, rel_tol=1e-9):
        raise Fail("fleet segment p50 %r, expected %r" % (got, q50))
    _, q90, _ = fleet_expect(js, 0.9)
    got = scalar(query(prom, 'histogram_quantile(0.9, sum by (le) (%ssegments_bucket{op=~"read|write"}))' % P),
                 "segment p90")
    if not math.isclose(got, q90, rel_tol=1e-9):
        raise Fail("fleet segment p90 %r, expected %r" % (got, q90))
    # recording rule from deploy/virtio_blk_sgl.rules.yml (evaluated every 1s;
    # an evaluation may predate the first scrape of one target: wait for a
    # complete one, up to 15 s)
    deadline = time.time() + 15
    while True:
        res = query(prom, "virtio_blk_sgl:memory_saved_bytes:sum")
        if (res and float(res[0]["value"][1]) == saved) or time.time() > deadline:
            break
        time.sleep(0.5)
    got = scalar(res, "recording rule virtio_blk_sgl:memory_saved_bytes:sum")
    if got != saved:
        raise Fail("virtio_blk_sgl:memory_saved_bytes:sum = %r, expected %r" % (got, saved))
    print("fraction %.6f p50 %.4f p90 %.4f saved %d" % (frac, q50, q90, saved), file=sys.stderr)


# ---------------------------------------------------------------- tune --prometheus
def cmd_tunefiles(src, k, zero, real):
    z, r = [], []
    for line in open(src):
        name, _, val = line.rstrip("\n").rpartition(" ")
        if line.startswith(P + "segments_bucket{"):
            z.append("%s 0\n" % name)
            r.append("%s %d\n" % (name, int(val) * int(k)))
        else:
            z.append(line)
            r.append(line)
    for path, lines in ((zero, z), (real, r)):
        with open(path, "w") as f:
            f.write("".join(lines))


def cmd_tunewait(prom, phase, n):
    q = {"zero": 'count(count by (instance) (count_over_time(%ssegments_bucket{job="tune"}[10m]) >= 2))',
         "real": 'count(count by (instance) (%ssegments_bucket{job="tune"} > 0))'}[phase] % P
    deadline = time.time() + 20
    got = None
    while time.time() < deadline:
        res = query(prom, q)
        got = float(res[0]["value"][1]) if res else 0
        if got == float(n):
            return
        time.sleep(0.25)
    raise Fail("%s: %r instances, want %s, after 20 s" % (q, got, n))


def tune_labels(name):
    return dict(kv.split("=", 1) for kv in name.split(","))


def cmd_tunecmp(tjson, fjson, target, *maps):
    t, f, target = json.load(open(tjson)), json.load(open(fjson)), float(target)
    files = dict(m.split("=", 1) for m in maps)
    fdisks = {d["name"]: d for d in f["disks"]}
    bad, seen = [], set()
    for d in t["disks"]:
        lab = tune_labels(d["name"])
        key = "%s:%s" % (files.get(lab.get("instance"), "?"), lab.get("disk"))
        o = fdisks.get(key)
        if o is None:
            bad.append("%s has no textfile disk %s" % (d["name"], key))
            continue
        seen.add(key)
        for k in ("pick", "pick_by", "class", "max_segments", "nr_requests_total", "current_inline",
                  "meets_target"):
            if d[k] != o[k]:
                bad.append("%s %s %r, textfile %r" % (key, k, d[k], o[k]))
    bad += ["textfile disk %s not in the query's answer" % k for k in sorted(set(fdisks) - seen)]
    # a series without its gauges (a selector on the buckets only, a gauge
    # lost to "or") is a skipped disk: there must be none
    bad += ["%s skipped (no geometry)" % k for k in t["skipped"]]
    cls = lambda j: sorted((c["class"], c["disks"], c["pick"], c["max_disk_pick"]) for c in j["classes"] or [])
    if cls(t) != cls(f):
        bad.append("classes %r, textfiles %r" % (cls(t), cls(f)))
    if t["recommended"] != f["recommended"]:
        bad.append("recommended %r, textfiles %r" % (t["recommended"], f["recommended"]))
    # the counts through Prometheus are the files' times increase()'s
    # extrapolation factor: a fraction this close to the target could round
    # to another pick, and the data would prove nothing
    for d in f["disks"]:
        for r in d["rows"]:
            if abs(r["chained_frac"] - target) < 0.001:
                bad.append("%s: N=%d's fraction %r is within 0.001 of the target" % (d["name"], r["n"], r["chained_frac"]))
    if len({d["pick"] for d in f["disks"]}) < 2 or not t["disks"]:
        bad.append("fewer than two distinct picks among %d disks: nothing to tell apart" % len(f["disks"]))
    if bad:
        raise Fail("; ".join(bad[:6]))
    print("%d disks, picks %s" % (len(t["disks"]), sorted(d["pick"] for d in t["disks"])), file=sys.stderr)


def tune_strip(v):
    if isinstance(v, dict):
        return {k: tune_strip(x) for k, x in v.items()
                if k not in ("duration_s", "chained_per_s", "pool_bytes_per_s", "source")}
    if isinstance(v, list):
        return [tune_strip(x) for x in v]
    return v


def first_diff(x, y, path="$"):
    if isinstance(x, dict) and isinstance(y, dict):
        for k in sorted(set(x) | set(y)):
            d = first_diff(x.get(k), y.get(k), "%s.%s" % (path, k))
            if d:
                return d
        return None
    if isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
        for i, (a, b) in enumerate(zip(x, y)):
            d = first_diff(a, b, "%s[%d]" % (path, i))
            if d:
                return d
        return None
    return None if x == y else "%s: %s vs %s" % (path, json.dumps(x)[:80], json.dumps(y)[:80])


def cmd_tunesame(a, b):
    d = first_diff(tune_strip(json.load(open(a))), tune_strip(json.load(open(b))))
    if d:
        raise Fail(d)


def main():
    cmds = {"mksys": cmd_mksys, "dip": cmd_dip, "file": cmd_file, "scrape": cmd_scrape, "hammer": cmd_hammer, "fleet": cmd_fleet,
            "tunefiles": cmd_tunefiles, "tunewait": cmd_tunewait, "tunecmp": cmd_tunecmp, "tunesame": cmd_tunesame}
    try:
        cmds[sys.argv[1]](*sys.argv[2:])
    except Fail as e:
        print(str(e).replace("\n", "\\n"))
        return 1
    except Exception as e:  # a crash is a failure with a reason, too
        print("%s: %s" % (type(e).__name__, str(e).replace("\n", "\\n")))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
