/* Table tests for turnstile-apiserver part 2's pure pieces: write-ahead
 * log records (encode/decode, CRC-32, torn and corrupt records), server-
 * side apply (create, merge between managers, removal, conflicts, force,
 * managedFields of ordinary writes), the protobuf envelope of kubectl's
 * generator commands, and Go durations. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "apiserver/apiserver.h"
#include "apiserver/pb.h"
#include "apiserver/ssa.h"
#include "apiserver/walrec.h"
#include "json/json.h"
#include "util/alloc.h"

static cJSON *parse(const char *s)
{
    cJSON *v = NULL;

    if (ts_json_parse(s, strlen(s), &v, NULL))
        fail_msg("bad test JSON: %s", s);
    return v;
}

static void assert_json(const cJSON *got, const char *want, const char *what)
{
    cJSON *w = parse(want);

    if (!ts_json_equal(got, w)) {
        char *g = ts_json_dumps(got, TS_JSON_COMPACT);
        fail_msg("%s: got %s want %s", what, g, want);
    }
    cJSON_Delete(w);
}

/* --- WAL records ------------------------------------------------------------ */

static void test_crc32(void **state)
{
    (void)state;
    assert_int_equal(ts_walrec_crc32("123456789", 9), 0xcbf43926u);
    assert_int_equal(ts_walrec_crc32("", 0), 0);
}

static void test_walrec_roundtrip(void **state)
{
    struct ts_buf b = TS_BUF_INIT;
    struct ts_walrec in[3], got;
    size_t off = 0, used;

    (void)state;
    memset(in, 0, sizeof(in));
    in[0] = (struct ts_walrec){'S', 41, {0}, {0}, {0}, {0}, {0}};
    in[1] = (struct ts_walrec){'P',
                               42,
                               ts_str_c("batch"),
                               ts_str_c("jobs"),
                               ts_str_c("ns"),
                               ts_str_c("j\n1"),
                               ts_str_c("{\"a\":1}")};
    in[2] = (struct ts_walrec){
        'D', 43, ts_str_c(""), ts_str_c("namespaces"), ts_str_c(""), ts_str_c("team-a"), {0}};
    in[1].name = ts_str_c("j1");
    for (int i = 0; i < 3; i++)
        assert_int_equal(ts_walrec_encode(&b, &in[i]), 0);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(ts_walrec_decode(b.ptr + off, b.len - off, &got, &used), 0);
        assert_int_equal(got.op, in[i].op);
        assert_int_equal(got.rv, in[i].rv);
        assert_true(got.name.len == in[i].name.len &&
                    !memcmp(got.name.ptr, in[i].name.ptr ? in[i].name.ptr : "", got.name.len));
        assert_true(got.body.len == in[i].body.len);
        off += used;
    }
    assert_int_equal(ts_walrec_decode(b.ptr + off, b.len - off, &got, &used), 1);
    ts_buf_release(&b);
}

static void test_walrec_torn(void **state)
{
    struct ts_buf b = TS_BUF_INIT;
    struct ts_walrec rec = {'P',
                            7,
                            ts_str_c("g"),
                            ts_str_c("r"),
                            ts_str_c("n"),
                            ts_str_c("x"),
                            ts_str_c("{\"k\":\"value\"}")},
                     got;
    size_t used;

    (void)state;
    ts_walrec_encode(&b, &rec);
    for (size_t cut = 1; cut < b.len; cut++) /* every torn length */
        assert_int_equal(ts_walrec_decode(b.ptr, cut, &got, &used), TS_EPARSE);
    for (size_t i = 0; i < b.len; i++) { /* every flipped byte */
        b.ptr[i] ^= 0x40;
        assert_int_equal(ts_walrec_decode(b.ptr, b.len, &got, &used), TS_EPARSE);
        b.ptr[i] ^= 0x40;
    }
    assert_int_equal(ts_walrec_decode(b.ptr, b.len, &got, &used), 0);
    ts_buf_release(&b);
}

/* --- server-side apply -------------------------------------------------------- */

static const struct ts_ssa_ctx ctx_a = {"alice", "v1", "2026-01-01T00:00:00Z", NULL, NULL};
static const struct ts_ssa_ctx ctx_b = {"bob", "v1", "2026-01-01T00:00:00Z", NULL, NULL};

static cJSON *apply(const cJSON *live, const char *cfg, int force, const struct ts_ssa_ctx *c,
                    int want_conflicts, const char *want_msg)
{
    cJSON *in = parse(cfg), *out = NULL;
    struct ts_ssa_conflicts cf = {0};
    int rc = ts_ssa_apply(live, in, force, c, &out, &cf);

    assert_int_equal(rc, want_conflicts && !force ? 1 : 0);
    assert_int_equal(cf.n, (size_t)want_conflicts);
    if (want_msg) {
        struct ts_buf m = TS_BUF_INIT;
        ts_ssa_conflicts_message(&cf, &m);
        assert_string_equal(m.ptr, want_msg);
        ts_buf_release(&m);
    }
    ts_ssa_conflicts_release(&cf);
    cJSON_Delete(in);
    return out;
}

static void strip_managed(cJSON *o)
{
    cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "metadata"),
                                            "managedFields");
}

static void test_ssa_flow(void **state)
{
    cJSON *o1, *o2, *o3, *o4, *view;

    (void)state;
    o1 = apply(NULL, "{\"metadata\":{\"name\":\"x\"},\"spec\":{\"a\":1,\"b\":{\"c\":2}}}", 0,
               &ctx_a, 0, NULL);
    assert_json(ts_json_get(o1, "metadata.managedFields[0].fieldsV1"),
                "{\"f:spec\":{\"f:a\":{},\"f:b\":{\"f:c\":{}}}}", "fieldsV1 after create");
    /* bob adds a field: merged, both own their own */
    o2 = apply(o1, "{\"spec\":{\"d\":3}}", 0, &ctx_b, 0, NULL);
    view = cJSON_Duplicate(o2, 1);
    strip_managed(view);
    assert_json(view, "{\"metadata\":{\"name\":\"x\"},\"spec\":{\"a\":1,\"b\":{\"c\":2},\"d\":3}}",
                "merge");
    cJSON_Delete(view);
    /* bob sets alice's field to another value: conflict, then force */
    assert_null(apply(o2, "{\"spec\":{\"a\":9,\"d\":3}}", 0, &ctx_b, 1,
                      "Apply failed with 1 conflict: conflict with \"alice\": .spec.a"));
    o3 = apply(o2, "{\"spec\":{\"a\":9,\"d\":3}}", 1, &ctx_b, 1, NULL);
    assert_int_equal(cJSON_GetArraySize(ts_json_get(o3, "metadata.managedFields")), 2);
    /* same value is shared, not a conflict */
    cJSON_Delete(apply(o3, "{\"spec\":{\"a\":9}}", 0, &ctx_a, 0, NULL));
    /* alice stops applying b: removed; a is bob's now, so it stays */
    o4 = apply(o3, "{\"spec\":{}}", 0, &ctx_a, 0, NULL);
    view = cJSON_Duplicate(o4, 1);
    strip_managed(view);
    assert_json(view, "{\"metadata\":{\"name\":\"x\"},\"spec\":{\"a\":9,\"d\":3}}", "removal");
    cJSON_Delete(view);
    cJSON_Delete(o1);
    cJSON_Delete(o2);
    cJSON_Delete(o3);
    cJSON_Delete(o4);
}

static void test_ssa_map_lists(void **state)
{
    cJSON *sch = parse("{\"properties\":{\"spec\":{\"properties\":{\"items\":{\"type\":\"array\","
                       "\"x-kubernetes-list-type\":\"map\",\"x-kubernetes-list-map-keys\":"
                       "[\"name\"],\"items\":{\"type\":\"object\"}}}}}}");
    struct ts_ssa_ctx a = ctx_a, b = ctx_b;
    cJSON *o1, *o2, *o3;

    (void)state;
    a.schema = b.schema = sch;
    o1 = apply(NULL, "{\"spec\":{\"items\":[{\"name\":\"p\",\"v\":1}]}}", 0, &a, 0, NULL);
    o2 = apply(o1, "{\"spec\":{\"items\":[{\"name\":\"q\",\"v\":2}]}}", 0, &b, 0, NULL);
    assert_json(ts_json_get(o2, "spec.items"),
                "[{\"name\":\"p\",\"v\":1},{\"name\":\"q\",\"v\":2}]", "items merged by key");
    assert_null(apply(o2, "{\"spec\":{\"items\":[{\"name\":\"p\",\"v\":5}]}}", 0, &b, 1,
                      "Apply failed with 1 conflict: conflict with \"alice\": "
                      ".spec.items[{\"name\":\"p\"}].v"));
    o3 = apply(o2, "{\"spec\":{\"items\":[]}}", 0, &a, 0, NULL);
    assert_json(ts_json_get(o3, "spec.items"), "[{\"name\":\"q\",\"v\":2}]",
                "item alice no longer applies is removed");
    cJSON_Delete(o1);
    cJSON_Delete(o2);
    cJSON_Delete(o3);
    cJSON_Delete(sch);
}

static void test_ssa_track(void **state)
{
    cJSON *old = parse("{\"metadata\":{\"name\":\"x\"},\"spec\":{\"a\":1}}");
    cJSON *obj =
        apply(NULL, "{\"metadata\":{\"name\":\"x\"},\"spec\":{\"a\":1}}", 0, &ctx_a, 0, NULL);
    struct ts_ssa_ctx upd = {"kubectl-edit", "v1", "t", NULL, NULL};

    (void)state;
    cJSON_Delete(old);
    old = cJSON_Duplicate(obj, 1);
    cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(obj, "spec"), "a",
                                           cJSON_CreateNumber(2));
    ts_ssa_track(old, obj, &upd);
    assert_json(
        ts_json_get(obj, "metadata.managedFields"),
        "[{\"manager\":\"kubectl-edit\",\"operation\":\"Update\",\"apiVersion\":\"v1\","
        "\"time\":\"t\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:spec\":{\"f:a\":{}}}}]",
        "the editor took spec.a over");
    /* conflicts name an Update manager with its apiVersion, group the
     * fields by manager and sort the managers, as kube-apiserver does */
    cJSON_Delete(old);
    old = apply(obj, "{\"spec\":{\"b\":1,\"c\":1}}", 0, &ctx_a, 0, NULL);
    assert_null(apply(old, "{\"spec\":{\"a\":3}}", 0, &ctx_b, 1,
                      "Apply failed with 1 conflict: conflict with \"kubectl-edit\" using v1: "
                      ".spec.a"));
    assert_null(apply(old, "{\"spec\":{\"b\":2,\"a\":3,\"c\":2}}", 0, &ctx_b, 3,
                      "Apply failed with 3 conflicts: conflicts with \"alice\":\n- .spec.b\n- "
                      ".spec.c\nconflicts with \"kubectl-edit\" using v1:\n- .spec.a"));
    cJSON_Delete(old);
    cJSON_Delete(obj);
}

/* --- protobuf --------------------------------------------------------------- */

static void pb_varint(struct ts_buf *b, uint64_t v)
{
    do {
        unsigned char c = v & 0x7f;
        v >>= 7;
        ts_buf_addc(b, (char)(c | (v ? 0x80 : 0)));
    } while (v);
}

static void pb_bytes(struct ts_buf *b, unsigned num, const void *p, size_t n)
{
    pb_varint(b, (uint64_t)num << 3 | 2);
    pb_varint(b, n);
    ts_buf_add(b, p, n);
}

static void pb_str(struct ts_buf *b, unsigned num, const char *s)
{
    pb_bytes(b, num, s, strlen(s));
}

static void pb_entry(struct ts_buf *b, unsigned num, const char *k, const char *v)
{
    struct ts_buf e = TS_BUF_INIT;

    pb_str(&e, 1, k);
    pb_str(&e, 2, v);
    pb_bytes(b, num, e.ptr, e.len);
    ts_buf_release(&e);
}

/* "k8s\0" + Unknown{typeMeta{v1, kind}, raw{metadata{name, labels}, extra}} */
static void pb_object(struct ts_buf *out, const char *kind, const struct ts_buf *extra)
{
    struct ts_buf tm = TS_BUF_INIT, md = TS_BUF_INIT, raw = TS_BUF_INIT;

    pb_str(&tm, 1, "v1");
    pb_str(&tm, 2, kind);
    pb_str(&md, 1, "obj");
    pb_str(&md, 2, "");
    pb_entry(&md, 11, "app", "x");
    pb_bytes(&raw, 1, md.ptr, md.len);
    ts_buf_add(&raw, extra->ptr, extra->len);
    ts_buf_add(out, "k8s\0", 4);
    pb_bytes(out, 1, tm.ptr, tm.len);
    pb_bytes(out, 2, raw.ptr, raw.len);
    pb_str(out, 4, "application/vnd.kubernetes.protobuf");
    ts_buf_release(&tm);
    ts_buf_release(&md);
    ts_buf_release(&raw);
}

static void test_pb_kinds(void **state)
{
    static const struct {
        const char *kind, *want;
    } cases[] = {
        {"Namespace",
         "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"obj\","
         "\"labels\":{\"app\":\"x\"}},\"spec\":{\"finalizers\":[\"kubernetes\"]}}"},
        {"ConfigMap",
         "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"obj\","
         "\"labels\":{\"app\":\"x\"}},\"data\":{\"a\":\"1\",\"b\":\"two\"}}"},
        {"Secret", "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"obj\","
                   "\"labels\":{\"app\":\"x\"}},\"data\":{\"user\":\"YWRtaW4=\"},"
                   "\"type\":\"Opaque\"}"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct ts_buf extra = TS_BUF_INIT, body = TS_BUF_INIT, spec = TS_BUF_INIT;
        cJSON *got = NULL;

        if (!strcmp(cases[i].kind, "Namespace")) {
            pb_str(&spec, 1, "kubernetes");
            pb_bytes(&extra, 2, spec.ptr, spec.len);
        } else if (!strcmp(cases[i].kind, "ConfigMap")) {
            pb_entry(&extra, 2, "a", "1");
            pb_entry(&extra, 2, "b", "two");
        } else {
            pb_entry(&extra, 2, "user", "admin");
            pb_str(&extra, 3, "Opaque");
        }
        pb_object(&body, cases[i].kind, &extra);
        assert_int_equal(ts_pb_decode(body.ptr, body.len, "", NULL, &got, NULL), 0);
        assert_json(got, cases[i].want, cases[i].kind);
        cJSON_Delete(got);
        for (size_t cut = 0; cut < body.len; cut++) { /* truncations never crash */
            got = NULL;
            if (ts_pb_decode(body.ptr, cut, "", NULL, &got, NULL) == 0)
                assert_non_null(got);
            cJSON_Delete(got);
        }
        ts_buf_release(&extra);
        ts_buf_release(&body);
        ts_buf_release(&spec);
    }
}

static void test_pb_rejects(void **state)
{
    struct ts_buf body = TS_BUF_INIT, none = TS_BUF_INIT;
    struct ts_err err = {0};
    cJSON *got = NULL;

    (void)state;
    assert_int_equal(ts_pb_decode("{}", 2, "", NULL, &got, NULL), TS_EPARSE);
    assert_int_equal(ts_pb_decode("k8s\0\xff\xff\xff", 7, "", NULL, &got, NULL), TS_EPARSE);
    pb_object(&body, "Pod", &none);
    assert_int_equal(ts_pb_decode(body.ptr, body.len, "", NULL, &got, NULL), TS_EUNSUPPORTED);
    assert_null(got);
    assert_int_equal(ts_pb_decode(body.ptr, body.len, "", "Pod", &got, NULL), TS_EUNSUPPORTED);
    /* an object of another kind than the resource's: kube-apiserver's 400 */
    assert_int_equal(ts_pb_decode(body.ptr, body.len, "", "ConfigMap", &got, &err), TS_EINVAL);
    assert_string_equal(err.msg, "Pod in version \"v1\" cannot be handled as a ConfigMap: "
                                 "converting (v1.Pod) to (core.ConfigMap): unknown conversion");
    assert_null(got);
    ts_buf_release(&body);
}

static void test_durations(void **state)
{
    static const struct {
        const char *in;
        int64_t want;
        int ok;
    } cases[] = {
        {"30s", 30000000000LL, 1},
        {"1m30s", 90000000000LL, 1},
        {"250ms", 250000000LL, 1},
        {"1.5h", 5400000000000LL, 1},
        {"0", 0, 1},
        {"", 0, 0},
        {"10", 0, 0},
        {"5x", 0, 0},
        {"-1s", 0, 0},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int64_t got = -1;
        int rc = ts_apiserver_parse_duration(cases[i].in, &got);

        if (cases[i].ok != (rc == 0) || (rc == 0 && got != cases[i].want))
            fail_msg("duration '%s': rc=%d got=%lld", cases[i].in, rc, (long long)got);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc32),         cmocka_unit_test(test_walrec_roundtrip),
        cmocka_unit_test(test_walrec_torn),   cmocka_unit_test(test_ssa_flow),
        cmocka_unit_test(test_ssa_map_lists), cmocka_unit_test(test_ssa_track),
        cmocka_unit_test(test_pb_kinds),      cmocka_unit_test(test_pb_rejects),
        cmocka_unit_test(test_durations),
    };

    ts_alloc_init();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
