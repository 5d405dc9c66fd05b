/* Tests for pkg/kube/watch: the streaming parser of watch bodies, with
 * every way of cutting the stream into chunks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "kube/watch.h"
#include "util/alloc.h"
#include "util/arena.h"
#include "util/buf.h"

struct seen {
    struct ts_buf log; /* "TYPE name rv\n" per event */
    int stop_after;    /* return 1 after this many events (0 = never) */
    int n;
};

static int record(enum ts_watch_type t, cJSON *obj, void *data)
{
    struct seen *s = data;
    const char *name = ts_json_get_string(obj, "metadata.name");

    ts_buf_addf(&s->log, "%s %s %s\n", ts_watch_type_name(t), name ? name : "-",
                ts_json_get_string(obj, "metadata.resourceVersion"));
    cJSON_Delete(obj);
    s->n++;
    return s->stop_after && s->n >= s->stop_after;
}

static void stream(struct ts_buf *out, struct ts_buf *want, size_t big)
{
    static const char *const types[] = {"ADDED", "MODIFIED", "DELETED", "BOOKMARK"};

    for (int i = 0; i < 40; i++) {
        const char *t = types[i % 4];

        ts_buf_addf(out,
                    "{\"type\":\"%s\",\"object\":{\"kind\":\"Workload\",\"metadata\":{"
                    "\"name\":\"w-\xc3\xa9%d\",\"resourceVersion\":\"%d\"}",
                    t, i, 100 + i);
        if (i == 17) { /* one event far larger than any chunk */
            ts_buf_adds(out, ",\"spec\":{\"blob\":\"");
            for (size_t k = 0; k < big; k++)
                ts_buf_addc(out, (char)('a' + k % 26));
            ts_buf_adds(out, "\"}");
        }
        ts_buf_adds(out, i % 7 == 3 ? "}}\r\n" : "}}\n");
        if (i % 9 == 4)
            ts_buf_adds(out, "\n"); /* blank lines are allowed */
        ts_buf_addf(want, "%s w-\xc3\xa9%d %d\n", t, i, 100 + i);
    }
}

static void feed_chunked(const struct ts_buf *in, size_t (*next)(size_t, void *), void *st,
                         struct seen *s)
{
    struct ts_watch_parser p;
    struct ts_err e = {0};
    size_t off = 0;

    ts_watch_parser_init(&p, 0, record, s);
    while (off < in->len) {
        size_t n = next(off, st);

        if (n > in->len - off)
            n = in->len - off;
        assert_int_equal(ts_watch_parser_feed(&p, in->ptr + off, n, &e), 0);
        off += n;
    }
    assert_int_equal(ts_watch_parser_finish(&p, &e), 0);
    ts_watch_parser_release(&p);
}

static size_t fixed(size_t off, void *st)
{
    (void)off;
    return *(size_t *)st;
}

static size_t pseudo_random(size_t off, void *st)
{
    uint64_t *x = st;

    (void)off;
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return 1 + (size_t)(*x % 700);
}

static void test_every_chunk_size(void **state)
{
    struct ts_buf in = TS_BUF_INIT, want = TS_BUF_INIT;

    (void)state;
    stream(&in, &want, 5000);
    for (size_t size = 1; size <= 300; size++) {
        struct seen s = {TS_BUF_INIT, 0, 0};

        feed_chunked(&in, fixed, &size, &s);
        if (strcmp(s.log.ptr, want.ptr))
            fail_msg("chunk size %zu: got\n%s", size, s.log.ptr);
        ts_buf_release(&s.log);
    }
    ts_buf_release(&in);
    ts_buf_release(&want);
}

static void test_random_chunks_and_huge_event(void **state)
{
    struct ts_buf in = TS_BUF_INIT, want = TS_BUF_INIT;

    (void)state;
    stream(&in, &want, 3 << 20); /* a 3 MiB event */
    for (uint64_t seed = 1; seed <= 20; seed++) {
        struct seen s = {TS_BUF_INIT, 0, 0};
        uint64_t x = seed * 0x9e3779b97f4a7c15ull;

        feed_chunked(&in, pseudo_random, &x, &s);
        if (strcmp(s.log.ptr, want.ptr))
            fail_msg("seed %llu: events differ", (unsigned long long)seed);
        ts_buf_release(&s.log);
    }
    {
        size_t whole = in.len; /* and the whole stream at once */
        struct seen s = {TS_BUF_INIT, 0, 0};

        feed_chunked(&in, fixed, &whole, &s);
        assert_string_equal(s.log.ptr, want.ptr);
        ts_buf_release(&s.log);
    }
    ts_buf_release(&in);
    ts_buf_release(&want);
}

static void test_errors(void **state)
{
    static const struct {
        const char *name, *in;
        size_t max;
        int want;
        const char *msg;
    } cases[] = {
        {"not json", "{\"type\":\"ADDED\",\"object\":{}}\n{oops}\n", 0, TS_EPARSE, "watch event 2"},
        {"no type", "{\"object\":{}}\n", 0, TS_EPARSE, "missing or unknown type"},
        {"unknown type", "{\"type\":\"RENAMED\",\"object\":{}}\n", 0, TS_EPARSE, "unknown type"},
        {"no object", "{\"type\":\"ADDED\"}\n", 0, TS_EPARSE, "missing object"},
        {"object not an object", "{\"type\":\"ADDED\",\"object\":3}\n", 0, TS_EPARSE,
         "missing object"},
        {"too large", "{\"type\":\"ADDED\",\"object\":{\"a\":\"0123456789\"}}\n", 20, TS_EOVERFLOW,
         "larger than 20 bytes"},
        {"too large across chunks", "{\"type\":\"ADDED\",\"object\":{\"a\":\"0123456789\"}}", 20,
         TS_EOVERFLOW, "larger than 20 bytes"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct seen s = {TS_BUF_INIT, 0, 0};
        struct ts_watch_parser p;
        struct ts_err e = {0};
        size_t len = strlen(cases[i].in), half = len / 2;
        int rc;

        ts_watch_parser_init(&p, cases[i].max, record, &s);
        rc = ts_watch_parser_feed(&p, cases[i].in, half, &e);
        if (!rc)
            rc = ts_watch_parser_feed(&p, cases[i].in + half, len - half, &e);
        if (rc != cases[i].want || !strstr(e.msg, cases[i].msg))
            fail_msg("case '%s': rc %d msg '%s'", cases[i].name, rc, e.msg);
        ts_watch_parser_release(&p);
        ts_buf_release(&s.log);
    }
}

static void test_finish_reset_and_stop(void **state)
{
    struct seen s = {TS_BUF_INIT, 0, 0};
    struct ts_watch_parser p;
    struct ts_err e = {0};
    const char *ev = "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\","
                     "\"resourceVersion\":\"1\"}}}";

    (void)state;
    ts_watch_parser_init(&p, 0, record, &s);
    /* a cut connection: the partial line is dropped, not parsed */
    assert_int_equal(ts_watch_parser_feed(&p, ev, 20, &e), 0);
    ts_watch_parser_reset(&p);
    assert_int_equal(s.n, 0);
    /* a clean end without the last newline still delivers the event */
    assert_int_equal(ts_watch_parser_feed(&p, ev, strlen(ev), &e), 0);
    assert_int_equal(s.n, 0);
    assert_int_equal(ts_watch_parser_finish(&p, &e), 0);
    assert_string_equal(s.log.ptr, "ADDED a 1\n");
    /* the callback's nonzero result stops parsing and is returned */
    s.stop_after = 2;
    assert_int_equal(ts_watch_parser_feed(&p,
                                          "{\"type\":\"DELETED\",\"object\":{}}\n"
                                          "{\"type\":\"DELETED\",\"object\":{}}\n",
                                          62, &e),
                     1);
    assert_int_equal(s.n, 2);
    ts_watch_parser_release(&p);
    ts_buf_release(&s.log);
}

/* Objects printed compact, one per line. */
static int print_obj(enum ts_watch_type t, cJSON *obj, void *data)
{
    struct seen *s = data;

    (void)t;
    ts_json_print(obj, TS_JSON_COMPACT, &s->log, NULL);
    ts_buf_addc(&s->log, '\n');
    cJSON_Delete(obj);
    s->n++;
    return 0;
}

/* With strip_managed_fields the objects arrive without
 * metadata.managedFields and otherwise whole, from lines parsed in place
 * and from lines carried over a chunk boundary alike; a stream without
 * them, or with the key only in a string, is untouched. */
static void test_strip_managed_fields(void **state)
{
    static const char *const in =
        "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\",\"managedFields\":"
        "[{\"manager\":\"m\",\"fieldsV1\":{\"f:spec\":{\"f:x\":{}}}}],\"uid\":\"u\"},\"spec\":"
        "{\"x\":\"\\\"managedFields\\\":[]\"}}}\n"
        "{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{\"managedFields\":[],\"name\":\"b\"}}}\n"
        "{\"type\":\"DELETED\",\"object\":{\"metadata\":{\"name\":\"c\"},\"spec\":"
        "{\"managedFields\":1}}}\n";
    static const char *const want =
        "{\"metadata\":{\"name\":\"a\",\"uid\":\"u\"},\"spec\":{\"x\":\"\\\"managedFields\\\":[]\"}"
        "}\n"
        "{\"metadata\":{\"name\":\"b\"}}\n"
        "{\"metadata\":{\"name\":\"c\"},\"spec\":{\"managedFields\":1}}\n";
    size_t len = strlen(in);

    (void)state;
    for (size_t chunk = 1; chunk <= len; chunk++) {
        struct seen s = {TS_BUF_INIT, 0, 0};
        struct ts_watch_parser p;
        struct ts_err e = {0};

        ts_watch_parser_init(&p, 0, print_obj, &s);
        p.strip_managed_fields = 1;
        for (size_t off = 0; off < len; off += chunk)
            assert_int_equal(
                ts_watch_parser_feed(&p, in + off, off + chunk > len ? len - off : chunk, &e), 0);
        if (strcmp(s.log.ptr, want))
            fail_msg("chunks of %zu: got\n%s", chunk, s.log.ptr);
        ts_watch_parser_release(&p);
        ts_buf_release(&s.log);
    }
}

struct in_arena {
    struct seen s;
    struct ts_watch_parser *p;
    int outside; /* events whose object was not in the parser's arena */
};

static int record_in_arena(enum ts_watch_type t, cJSON *obj, void *data)
{
    struct in_arena *x = data;

    x->outside += !ts_arena_owns(x->p->arena, obj);
    cJSON_AddStringToObject(obj, "kind", "Added"); /* as the informer does: from the heap */
    return record(t, obj, &x->s);
}

/* A transient parser delivers the same events as the heap's, each parsed
 * into its one arena. */
static void test_transient_parser(void **state)
{
    struct ts_buf in = TS_BUF_INIT, want = TS_BUF_INIT;

    (void)state;
    stream(&in, &want, 50000);
    for (size_t size = 1; size <= 4096; size = size * 3 + 1) {
        struct ts_watch_parser p;
        struct in_arena x = {{TS_BUF_INIT, 0, 0}, &p, 0};
        struct ts_err e = {0};

        ts_watch_parser_init(&p, 0, record_in_arena, &x);
        ts_watch_parser_transient(&p);
        assert_non_null(p.arena);
        for (size_t off = 0; off < in.len; off += size)
            assert_int_equal(ts_watch_parser_feed(&p, in.ptr + off,
                                                  off + size > in.len ? in.len - off : size, &e),
                             0);
        assert_int_equal(ts_watch_parser_finish(&p, &e), 0);
        if (strcmp(x.s.log.ptr, want.ptr))
            fail_msg("chunk size %zu: got\n%s", size, x.s.log.ptr);
        assert_int_equal(x.outside, 0);
        ts_watch_parser_release(&p);
        assert_null(p.arena);
        ts_buf_release(&x.s.log);
    }
    ts_buf_release(&in);
    ts_buf_release(&want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_chunk_size),
        cmocka_unit_test(test_random_chunks_and_huge_event),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_finish_reset_and_stop),
        cmocka_unit_test(test_strip_managed_fields),
        cmocka_unit_test(test_transient_parser),
    };

    ts_alloc_init();
    return cmocka_run_group_tests_name("kube_watch", tests, NULL, NULL);
}
