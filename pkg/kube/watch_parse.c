/*
 * watch_parse.c - the streaming parser for watch bodies (see watch.h):
 * newline-delimited JSON events split anywhere across chunks.  Complete
 * lines inside a chunk are parsed in place; only a line cut by a chunk
 * boundary is copied into the carry-over buffer.
 */
#include "kube/watch.h"

#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "util/alloc.h"
#include "util/arena.h"

static const char *const type_names[] = {"ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"};

const char *ts_watch_type_name(enum ts_watch_type t)
{
    return (unsigned)t < 5 ? type_names[t] : "UNKNOWN";
}

void ts_watch_parser_init(struct ts_watch_parser *p, size_t max_event, ts_watch_event_fn fn,
                          void *data)
{
    ts_buf_init(&p->line, max_event ? max_event : TS_WATCH_MAX_EVENT);
    ts_buf_init(&p->cut, 0);
    p->fn = fn;
    p->data = data;
    p->events = 0;
    p->strip_managed_fields = 0;
    p->arena = NULL;
}

void ts_watch_parser_transient(struct ts_watch_parser *p)
{
    if (p->arena)
        return;
    p->arena = ts_xmalloc(sizeof(*p->arena));
    *p->arena = (struct ts_arena)TS_ARENA_INIT;
    if (ts_alloc_cjson_register(p->arena)) { /* all taken: the heap serves */
        free(p->arena);
        p->arena = NULL;
    }
}

void ts_watch_parser_release(struct ts_watch_parser *p)
{
    ts_buf_release(&p->line);
    ts_buf_release(&p->cut);
    if (p->arena) {
        ts_alloc_cjson_unregister(p->arena);
        ts_arena_release(p->arena);
        free(p->arena);
        p->arena = NULL;
    }
}

void ts_watch_parser_reset(struct ts_watch_parser *p)
{
    ts_buf_reset(&p->line);
}

static int blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n')
            return 0;
    return 1;
}

static int parse_type(const cJSON *ev, enum ts_watch_type *out)
{
    const char *t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ev, "type"));

    for (int i = 0; t && i < 5; i++) {
        if (!strcmp(t, type_names[i])) {
            *out = (enum ts_watch_type)i;
            return 0;
        }
    }
    return TS_EPARSE;
}

/* Parses one complete line and hands its object to the callback. */
static int event(struct ts_watch_parser *p, const char *s, size_t n, struct ts_err *err)
{
    cJSON *ev = NULL, *obj;
    enum ts_watch_type type;
    int rc;

    size_t off, cut;

    if (blank(s, n))
        return 0;
    if (p->strip_managed_fields &&
        !ts_json_scan_member(s, n, "object.metadata.managedFields", &off, &cut)) {
        ts_buf_reset(&p->cut);
        ts_buf_add(&p->cut, s, off);
        ts_buf_add(&p->cut, s + off + cut, n - off - cut);
        s = p->cut.ptr;
        n = p->cut.len;
    }
    rc = p->arena ? ts_json_parse_arena(p->arena, s, n, &ev, err) : ts_json_parse(s, n, &ev, err);
    if (rc)
        return ts_err_prefix(err, "watch event %zu", p->events + 1);
    if (parse_type(ev, &type)) {
        cJSON_Delete(ev);
        return ts_err_set(err, TS_EPARSE, "watch event %zu: missing or unknown type",
                          p->events + 1);
    }
    obj = cJSON_DetachItemFromObjectCaseSensitive(ev, "object");
    cJSON_Delete(ev);
    if (!cJSON_IsObject(obj)) {
        cJSON_Delete(obj);
        return ts_err_set(err, TS_EPARSE, "watch event %zu (%s): missing object", p->events + 1,
                          type_names[type]);
    }
    p->events++;
    return p->fn(type, obj, p->data);
}

int ts_watch_parser_feed(struct ts_watch_parser *p, const char *buf, size_t len, struct ts_err *err)
{
    while (len) {
        const char *nl = memchr(buf, '\n', len);
        size_t n = nl ? (size_t)(nl - buf) : len;
        int rc;

        if (!nl || p->line.len) {
            if (ts_buf_add(&p->line, buf, n))
                return ts_err_set(err, TS_EOVERFLOW, "watch event %zu larger than %zu bytes",
                                  p->events + 1, p->line.max);
            if (!nl)
                return 0;
            rc = event(p, p->line.ptr, p->line.len, err);
            ts_buf_reset(&p->line);
        } else {
            if (n > p->line.max)
                return ts_err_set(err, TS_EOVERFLOW, "watch event %zu larger than %zu bytes",
                                  p->events + 1, p->line.max);
            rc = event(p, buf, n, err);
        }
        if (rc)
            return rc;
        buf += n + 1;
        len -= n + 1;
    }
    return 0;
}

int ts_watch_parser_finish(struct ts_watch_parser *p, struct ts_err *err)
{
    int rc = 0;

    /* Go's decoder accepts a last event without its newline */
    if (p->line.len && !blank(p->line.ptr, p->line.len))
        rc = event(p, p->line.ptr, p->line.len, err);
    ts_buf_reset(&p->line);
    return rc;
}
