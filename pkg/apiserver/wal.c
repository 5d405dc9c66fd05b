/*
 * wal.c - --data-dir durability: every store write is appended to
 * DIR/wal (walrec.h) and the log is fdatasync'ed before the request that
 * made it is answered (http.c calls ts__as_wal_sync() under the lock,
 * before replying), so an acknowledged write survives kill -9.  The log
 * is compacted into DIR/snapshot (written to snapshot.tmp, fsynced,
 * renamed, directory fsynced, then the log truncated) every
 * --snapshot-every records and on shutdown.  Recovery loads the snapshot,
 * replays the log records newer than it, cuts a torn final record off
 * (checksum) and continues the resourceVersion counter.
 * Called with the server mutex held (or before serving starts).
 */
#include "apiserver/server_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apiserver/walrec.h"
#include "json/json.h"
#include "util/alloc.h"
#include "util/log.h"

struct ts__as_wal {
    char *dir;
    int fd;
    int dirty;
    int replaying;
    uint64_t since_snap; /* records appended since the last snapshot */
    struct ts_buf rec;
};

static void path_of(const struct ts__as_wal *w, const char *name, char *out, size_t len)
{
    snprintf(out, len, "%s/%s", w->dir, name);
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t k = write(fd, p, n);

        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static void fill_rec(struct ts_walrec *rec, char op, const struct ts__as_res *res, const cJSON *obj,
                     int64_t rv)
{
    memset(rec, 0, sizeof(*rec));
    rec->op = op;
    rec->rv = rv;
    rec->group = ts_str_c(res->group);
    rec->resource = ts_str_c(res->resource);
    rec->ns = ts_str_c(ts_json_get_string(obj, "metadata.namespace"));
    rec->name = ts_str_c(ts_json_get_string(obj, "metadata.name"));
}

static void append(struct ts_apiserver *s, const struct ts_walrec *rec)
{
    struct ts__as_wal *w = s->wal;

    ts_buf_reset(&w->rec);
    ts_walrec_encode(&w->rec, rec);
    if (write_all(w->fd, w->rec.ptr, w->rec.len))
        ts_fatal("apiserver", "write-ahead log %s/wal: write failed: %s", w->dir, strerror(errno));
    w->dirty = 1;
    w->since_snap++;
}

void ts__as_wal_put(struct ts_apiserver *s, struct ts__as_res *res, struct ts__as_obj *o)
{
    struct ts_walrec rec;
    size_t len;

    if (!s->wal || s->wal->replaying)
        return;
    fill_rec(&rec, 'P', res, o->json, o->rv);
    rec.body.ptr = ts__as_obj_text(o, &len);
    rec.body.len = len;
    append(s, &rec);
}

void ts__as_wal_del(struct ts_apiserver *s, struct ts__as_res *res, const cJSON *last, int64_t rv)
{
    struct ts_walrec rec;

    if (!s->wal || s->wal->replaying)
        return;
    fill_rec(&rec, 'D', res, last, rv);
    append(s, &rec);
}

/* --- snapshot --------------------------------------------------------------- */

static void snap_res(struct ts__as_res *res, struct ts_buf *out)
{
    struct ts__as_obj **objs;
    size_t n, len;

    if (res->dead)
        return;
    objs = ts__as_store_list(res, NULL, &n);
    for (size_t i = 0; i < n; i++) {
        struct ts_walrec rec;

        fill_rec(&rec, 'P', res, objs[i]->json, objs[i]->rv);
        rec.body.ptr = ts__as_obj_text(objs[i], &len);
        rec.body.len = len;
        ts_walrec_encode(out, &rec);
    }
    free(objs);
}

static int sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    int rc;

    if (fd < 0)
        return -1;
    rc = fsync(fd);
    close(fd);
    return rc;
}

/* Writes every live object (CRDs first, so replay registers their types
 * before their objects) and truncates the log. */
static int snapshot(struct ts_apiserver *s)
{
    struct ts__as_wal *w = s->wal;
    struct ts_buf b = TS_BUF_INIT;
    struct ts_walrec hdr = {.op = 'S', .rv = s->rv};
    char tmp[4200], dst[4200];
    int fd, rc = -1;

    ts_walrec_encode(&b, &hdr);
    for (size_t i = 0; i < s->n_res; i++)
        if (s->res[i]->kindid == TS__AS_CRD)
            snap_res(s->res[i], &b);
    for (size_t i = 0; i < s->n_res; i++)
        if (s->res[i]->kindid != TS__AS_CRD)
            snap_res(s->res[i], &b);
    path_of(w, "snapshot.tmp", tmp, sizeof(tmp));
    path_of(w, "snapshot", dst, sizeof(dst));
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd >= 0) {
        int ok = !write_all(fd, b.ptr, b.len) && !fsync(fd);

        if (close(fd) == 0 && ok && !rename(tmp, dst) && !sync_dir(w->dir) &&
            !ftruncate(w->fd, 0) && !fsync(w->fd))
            rc = 0;
    }
    if (rc)
        ts_log_errno("apiserver", "snapshot %s failed", dst);
    else
        w->since_snap = 0;
    ts_buf_release(&b);
    return rc;
}

void ts__as_wal_sync(struct ts_apiserver *s)
{
    struct ts__as_wal *w = s->wal;

    if (!w || !w->dirty)
        return;
    if (fdatasync(w->fd))
        ts_fatal("apiserver", "write-ahead log %s/wal: fdatasync failed: %s", w->dir,
                 strerror(errno));
    w->dirty = 0;
    if (s->opts.snapshot_every && w->since_snap >= s->opts.snapshot_every)
        snapshot(s);
}

/* --- recovery --------------------------------------------------------------- */

static int read_file(const char *path, struct ts_buf *out)
{
    char chunk[65536];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t k;

    if (fd < 0)
        return -1;
    while ((k = read(fd, chunk, sizeof(chunk))) > 0)
        ts_buf_add(out, chunk, (size_t)k);
    close(fd);
    return k < 0 ? -1 : 0;
}

static struct ts__as_res *res_of(struct ts_apiserver *s, const struct ts_walrec *rec)
{
    for (size_t i = 0; i < s->n_res; i++) {
        struct ts__as_res *res = s->res[i];

        if (!res->dead && ts_str_eq(rec->group, res->group) &&
            ts_str_eq(rec->resource, res->resource))
            return res;
    }
    return NULL;
}

static void replay_put(struct ts_apiserver *s, struct ts__as_res *res, const struct ts_walrec *rec)
{
    struct ts__as_obj *o;
    cJSON *obj = NULL;

    if (ts_json_parse(rec->body.ptr, rec->body.len, &obj, NULL) || !cJSON_IsObject(obj)) {
        cJSON_Delete(obj);
        ts_log_warn("apiserver", "recovery: skipping an unreadable object at rv=%lld",
                    (long long)rec->rv);
        return;
    }
    s->rv = rec->rv - 1;
    o = ts__as_store_put(s, res, obj);
    if (res->kindid == TS__AS_CRD)
        ts__as_crd_apply(s, o->json);
}

static void replay_del(struct ts_apiserver *s, struct ts__as_res *res, const struct ts_walrec *rec)
{
    char ns[300], name[300];
    struct ts__as_obj *o;
    cJSON *last;

    snprintf(ns, sizeof(ns), "%.*s", (int)rec->ns.len, rec->ns.ptr);
    snprintf(name, sizeof(name), "%.*s", (int)rec->name.len, rec->name.ptr);
    if (!(o = ts__as_store_get(res, ns, name)))
        return;
    last = cJSON_Duplicate(o->json, 1);
    s->rv = rec->rv - 1;
    ts__as_store_del(s, res, o);
    if (res->kindid == TS__AS_CRD)
        ts__as_crd_remove(s, last);
    cJSON_Delete(last);
}

/* Applies the records of one file; returns the offset of the first torn
 * record (= data->len when none). */
static size_t replay(struct ts_apiserver *s, const struct ts_buf *data, int64_t floor,
                     int64_t *snap_rv, int64_t *top)
{
    size_t off = 0, used = 0;
    struct ts_walrec rec;
    int rc;

    while ((rc = ts_walrec_decode(data->ptr + off, data->len - off, &rec, &used)) == 0) {
        struct ts__as_res *res = res_of(s, &rec);

        off += used;
        if (rec.op == 'S') {
            *snap_rv = rec.rv;
        } else if (rec.rv > floor && res) {
            if (rec.op == 'P')
                replay_put(s, res, &rec);
            else
                replay_del(s, res, &rec);
        }
        if (rec.rv > *top)
            *top = rec.rv;
    }
    return off;
}

/* Drops everything in the store (the seeded namespaces) before a
 * recovery. */
static void clear_store(struct ts_apiserver *s)
{
    for (size_t i = 0; i < s->n_res; i++) {
        size_t it = 0;
        const char *k;
        void *v;

        while (ts_hmap_next(&s->res[i]->objs, &it, &k, &v))
            ts__as_obj_unref(v);
        ts_hmap_release(&s->res[i]->objs);
        ts_hmap_init(&s->res[i]->objs);
    }
    s->rv = 0;
}

static int recover(struct ts_apiserver *s, int *had_snapshot, struct ts_err *err)
{
    struct ts__as_wal *w = s->wal;
    struct ts_buf snap = TS_BUF_INIT, log = TS_BUF_INIT;
    char sp[4200], lp[4200];
    int64_t floor = 0, top = 0, unused = 0;
    size_t good;
    int rc = 0;

    path_of(w, "snapshot", sp, sizeof(sp));
    path_of(w, "wal", lp, sizeof(lp));
    *had_snapshot = read_file(sp, &snap) == 0;
    read_file(lp, &log);
    if (*had_snapshot || log.len) {
        clear_store(s);
        w->replaying = 1;
        if (replay(s, &snap, 0, &floor, &top) != snap.len)
            rc = ts_err_set(err, TS_EIO, "snapshot '%s' is corrupt", sp);
        good = replay(s, &log, floor, &unused, &top);
        w->replaying = 0;
        if (!rc && good != log.len) {
            ts_log_warn("apiserver",
                        "recovery: discarding a torn record at offset %zu of %s "
                        "(%zu bytes)",
                        good, lp, log.len - good);
            if (truncate(lp, (off_t)good))
                rc = ts_err_set(err, TS_EIO, "cannot truncate '%s': %s", lp, strerror(errno));
        }
        if (top > s->rv)
            s->rv = top;
        ts_log_info("apiserver", "recovered data-dir=%s rv=%lld", w->dir, (long long)s->rv);
    }
    ts_buf_release(&snap);
    ts_buf_release(&log);
    return rc;
}

int ts__as_wal_open(struct ts_apiserver *s, const char *dir, struct ts_err *err)
{
    struct ts__as_wal *w = ts_xcalloc(1, sizeof(*w));
    char lp[4200];
    int had_snapshot, rc;

    w->dir = ts_xstrdup(dir);
    w->fd = -1;
    ts_buf_init(&w->rec, 0);
    s->wal = w;
    if (mkdir(dir, 0700) && errno != EEXIST)
        return ts_err_set(err, TS_EIO, "--data-dir '%s': %s", dir, strerror(errno));
    if ((rc = recover(s, &had_snapshot, err)))
        return rc;
    path_of(w, "wal", lp, sizeof(lp));
    if ((w->fd = open(lp, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600)) < 0)
        return ts_err_set(err, TS_EIO, "cannot open '%s': %s", lp, strerror(errno));
    ts__as_ring_release(s);
    ts__as_ring_init(s, s->opts.event_history ? s->opts.event_history : 10000);
    s->ring_floor = s->rv;
    if (!had_snapshot && snapshot(s))
        return ts_err_set(err, TS_EIO, "cannot write a snapshot in '%s'", dir);
    return 0;
}

void ts__as_wal_close(struct ts_apiserver *s)
{
    struct ts__as_wal *w = s->wal;

    if (!w)
        return;
    if (w->fd >= 0) {
        snapshot(s);
        close(w->fd);
    }
    ts_buf_release(&w->rec);
    free(w->dir);
    free(w);
    s->wal = NULL;
}
