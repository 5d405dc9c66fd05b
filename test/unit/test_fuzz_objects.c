/* Malformed objects never crash, never leak, never corrupt quota: every
 * object of the samples, the Kueue examples and the engine scenarios is
 * mutated at random (a field deleted, or replaced by a value of another
 * type, an absurd number or a huge string; or a quantity replaced by one
 * at the limits of the arithmetic) and fed to the decoders, the
 * validators and a simulator holding the unmodified objects, then the
 * real object is put back.  After each document's batch the engine's
 * self-check (usage re-derived from the workloads) must hold.
 * Deterministic: a fixed seed per file; FUZZ_DEBUG=1 prints the mutation
 * that first breaks the accounting. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/object.h"
#include "api/workload.h"
#include "engine/engine.h"
#include "json/json.h"
#include "resource/quantity.h"
#include "sim/sim.h"
#include "util/alloc.h"
#include "util/hmap.h"
#include "yaml/yaml.h"

#define NOW               (INT64_C(1795255200) * TS_TIME_SECOND)
#define MUTATIONS_PER_DOC 40

static uint64_t rng;

static unsigned rnd(unsigned n)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)((rng >> 33) % n);
}

/* Counts the nodes of a tree. */
static size_t count(const cJSON *v)
{
    size_t n = 1;
    const cJSON *c;

    cJSON_ArrayForEach(c, v) n += count(c);
    return n;
}

/* The k-th node below v in pre-order, and its parent; NULL past the end. */
static cJSON *nth(cJSON *v, size_t *k, cJSON **parent)
{
    cJSON *c;

    cJSON_ArrayForEach(c, v)
    {
        cJSON *r;

        if ((*k)-- == 0) {
            *parent = v;
            return c;
        }
        if ((r = nth(c, k, parent)))
            return r;
    }
    return NULL;
}

static cJSON *odd_value(void)
{
    static const double numbers[] = {-1, 0, 1e300, -9.3e18, 2147483648.0, 0.5};
    static const char *const strings[] = {
        "", "-1", "1e999", "NaN", "99999999999999999999Gi", "\xff\xfe", "a/b/c", "0.0000000001m"};
    char *big;
    cJSON *v;

    switch (rnd(7)) {
    case 0:
        return cJSON_CreateNull();
    case 1:
        return cJSON_CreateNumber(numbers[rnd(6)]);
    case 2:
        return cJSON_CreateString(strings[rnd(8)]);
    case 3:
        return cJSON_CreateBool(rnd(2));
    case 4:
        return cJSON_CreateObject();
    case 5:
        v = cJSON_CreateArray();
        cJSON_AddItemToArray(v, cJSON_CreateNumber(1));
        return v;
    default:
        big = ts_xmalloc(70000);
        memset(big, 'x', 69999);
        big[69999] = 0;
        v = cJSON_CreateString(big);
        free(big);
        return v;
    }
}

/* A valid quantity at or near a limit of the arithmetic: int64 base
 * units or milli-units, 2^53 and 2^62, and the
 * largest magnitude a quantity holds. */
static const char *huge_quantity(void)
{
    static const char *const q[] = {"9223372036854775807",
                                    "9223372036854775",
                                    "9223372036854775807m",
                                    "9223372036854776",
                                    "7Ei",
                                    "8191Pi",
                                    "999999999E",
                                    "9007199254740993m",
                                    "9007199254741",
                                    "4611686018427387904"};

    return q[rnd(sizeof(q) / sizeof(q[0]))];
}

/* Counts the string leaves below v that parse as quantities. */
static size_t count_quantities(const cJSON *v)
{
    size_t n = 0;
    const cJSON *c;
    struct ts_quantity q;

    cJSON_ArrayForEach(c, v)
    {
        if (cJSON_IsString(c) && ts_quantity_parse_c(c->valuestring, &q, NULL) == 0)
            n++;
        n += count_quantities(c);
    }
    return n;
}

/* Replaces the k-th quantity leaf below v with a huge quantity. */
static int replace_quantity(cJSON *v, size_t *k)
{
    cJSON *c;
    struct ts_quantity q;

    cJSON_ArrayForEach(c, v)
    {
        if (cJSON_IsString(c) && ts_quantity_parse_c(c->valuestring, &q, NULL) == 0 &&
            (*k)-- == 0) {
            cJSON_SetValuestring(c, huge_quantity());
            return 1;
        }
        if (replace_quantity(c, k))
            return 1;
    }
    return 0;
}

/* Breaks one field of m in place (never apiVersion/kind, so the object
 * still reaches its kind's decoder, nor its identity). */
static void break_field(cJSON *m)
{
    cJSON *parent = NULL;
    size_t i = rnd((unsigned)count(m) - 1);
    cJSON *target = nth(m, &i, &parent);

    /* keep the kind and the identity: a mutant with another name is a new,
     * valid object (an admitted one may legitimately exceed the quota) */
    if (!target ||
        (target->string &&
         (!strcmp(target->string, "apiVersion") || !strcmp(target->string, "kind"))) ||
        (parent == cJSON_GetObjectItemCaseSensitive(m, "metadata") &&
         (!strcmp(target->string, "name") || !strcmp(target->string, "namespace"))) ||
        target == cJSON_GetObjectItemCaseSensitive(m, "metadata"))
        return;
    if (rnd(3) == 0) {
        cJSON_Delete(cJSON_DetachItemViaPointer(parent, target));
    } else if (cJSON_IsObject(parent)) { /* keeps the member's key */
        cJSON_ReplaceItemInObjectCaseSensitive(parent, target->string, odd_value());
    } else {
        cJSON_ReplaceItemViaPointer(parent, target, odd_value());
    }
}

/* One mutation of a copy of doc: a third of them put a huge quantity where
 * a quantity was (requests, usage, quota), the rest break any field.
 * Ownership: caller deletes. */
static cJSON *mutate(const cJSON *doc)
{
    cJSON *m = cJSON_Duplicate(doc, 1);
    size_t nq = count_quantities(m);

    if (nq && rnd(3) == 0) {
        size_t k = rnd((unsigned)nq);

        replace_quantity(m, &k);
    } else {
        break_field(m);
    }
    return m;
}

static void feed(struct ts_sim *sim, const cJSON *obj)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_err err = {0};
    struct ts_object o;

    if (ts_object_decode(obj, &o, &errs, &err) == 0) {
        ts_object_validate(&o, &errs);
        ts_object_release(&o);
    }
    ts_field_errors_release(&errs);
    ts_err_clear(&err);
    ts_sim_add(sim, obj, NOW, &err); /* refused or taken, never a crash */
}

/* The object as the simulator holds it (Workloads), else doc itself.
 * Ownership: caller deletes. */
static cJSON *current(struct ts_sim *sim, const cJSON *doc)
{
    const char *kind = ts_json_get_string(doc, "kind");
    const char *ns = ts_json_get_string(doc, "metadata.namespace");
    const char *name = ts_json_get_string(doc, "metadata.name");
    const struct ts_workload *wl;

    if (kind && !strcmp(kind, "Workload") && name &&
        (wl = ts_sim_find(sim, ns ? ns : "default", name)))
        return ts_workload_encode(wl);
    return cJSON_Duplicate(doc, 1);
}

static void fuzz_file(const char *path, size_t *docs, size_t *mutations)
{
    struct ts_yaml_stream st = TS_YAML_STREAM_INIT;
    struct ts_engine_config ec;
    struct ts_sim *sim;
    struct ts_err err = {0};
    char msg[512];

    ts_engine_config_init(&ec);
    ec.check_memo = 1;
    sim = ts_sim_new(&ec);

    if (ts_yaml_decode_file(path, &st, &err))
        fail_msg("%s: %s", path, err.msg);
    rng = ts_hash_str(path);
    for (size_t i = 0; i < st.n; i++) /* the real objects first */
        ts_sim_add(sim, st.docs[i].root, NOW, &err);
    ts_sim_run(sim, 0, NOW);
    for (size_t i = 0; i < st.n; i++) {
        cJSON *base;

        if (!cJSON_IsObject(st.docs[i].root) || count(st.docs[i].root) < 3)
            continue;
        (*docs)++;
        for (int j = 0; j < MUTATIONS_PER_DOC; j++) {
            cJSON *m;

            /* mutate and restore the object as the cluster holds it now: a
             * Workload's status is the simulator's, not the file's (a stale
             * admission put back would be a valid, external over-admission) */
            base = current(sim, st.docs[i].root);
            m = mutate(base);
            feed(sim, m);
            if (getenv("FUZZ_DEBUG") && ts_engine_check(ts_sim_engine(sim), msg, sizeof(msg)) &&
                strstr(msg, "out of sync")) {
                char *t = cJSON_PrintUnformatted(m), *b = cJSON_PrintUnformatted(base);

                fprintf(stderr, "after mutation %d: %s\nBASE %s\nMUT  %s\n", j, msg, b, t);
                free(t);
                free(b);
            }
            cJSON_Delete(m);
            (*mutations)++;
            ts_sim_add(sim, base, NOW, &err);
            cJSON_Delete(base);
            if (getenv("FUZZ_DEBUG") && ts_engine_check(ts_sim_engine(sim), msg, sizeof(msg)) &&
                strstr(msg, "out of sync"))
                fprintf(stderr, "after restore %d: %s\n", j, msg);
            if (rnd(4) == 0)
                ts_sim_run(sim, 2, NOW);
            if (getenv("FUZZ_DEBUG") && ts_engine_check(ts_sim_engine(sim), msg, sizeof(msg)) &&
                strstr(msg, "out of sync"))
                fprintf(stderr, "after run %d: %s\n", j, msg);
        }
        ts_sim_run(sim, 0, NOW);
        if (ts_engine_check(ts_sim_engine(sim), msg, sizeof(msg)))
            fail_msg("%s document %zu: engine self-check: %s", path, i + 1, msg);
    }
    ts_sim_free(sim);
    ts_yaml_stream_release(&st);
}

static void test_mutated_objects(void **state)
{
    static const char *const patterns[] = {"config/samples/*.yaml", "test/scenarios/*.yaml",
                                           "../shared/samples/kueue-examples/*.yaml",
                                           "../shared/samples/seeds/*.yaml"};
    size_t files = 0, docs = 0, mutations = 0;

    (void)state;
    for (size_t p = 0; p < sizeof(patterns) / sizeof(patterns[0]); p++) {
        glob_t g;

        if (glob(patterns[p], 0, NULL, &g))
            continue;
        for (size_t i = 0; i < g.gl_pathc; i++, files++)
            fuzz_file(g.gl_pathv[i], &docs, &mutations);
        globfree(&g);
    }
    if (files < 50)
        fail_msg("only %zu files found (run from the repository root)", files);
    printf("fuzzed %zu files, %zu documents, %zu mutations\n", files, docs, mutations);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mutated_objects),
    };

    ts_alloc_init();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
