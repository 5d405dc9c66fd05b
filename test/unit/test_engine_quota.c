/* Tests for pkg/engine/quota: Kueue's resource-node arithmetic, checked on
 * Kueue's worked examples of cohort lending and borrowing and by an
 * invariant over random edits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "engine/quota.h"
#include "util/alloc.h"
#include "util/err.h"

#define NONE TS_AMOUNT_NONE

static void test_amount_saturation(void **state)
{
    (void)state;
    assert_true(ts_amount_add(TS_AMOUNT_UNLIMITED, 5) == TS_AMOUNT_UNLIMITED);
    assert_true(ts_amount_add(INT64_MAX - 1, 5) == TS_AMOUNT_UNLIMITED);
    assert_true(ts_amount_sub(5, TS_AMOUNT_UNLIMITED) == INT64_MIN);
    assert_true(ts_amount_sub(TS_AMOUNT_UNLIMITED, TS_AMOUNT_UNLIMITED) == 0);
    assert_true(ts_amount_sub(TS_AMOUNT_UNLIMITED, 7) == TS_AMOUNT_UNLIMITED);
    assert_true(ts_amount_add(3, 4) == 7);
    assert_true(ts_amount_sub(3, 4) == -1);
}

/* Counts times amounts saturate instead of wrapping; negative or zero
 * inputs count nothing. */
static void test_amount_mul_saturates(void **state)
{
    static const struct {
        int64_t a, count, want;
    } rows[] = {
        {3, 4, 12},
        {0, INT64_MAX, 0},
        {INT64_MAX, 0, 0},
        {-5, 3, 0},
        {5, -3, 0},
        {INT64_MAX / 2, 2, INT64_MAX - 1},
        {INT64_MAX / 2 + 1, 2, TS_AMOUNT_UNLIMITED},
        {4294968000, 2147483647, TS_AMOUNT_UNLIMITED},
        {TS_AMOUNT_UNLIMITED, 1, TS_AMOUNT_UNLIMITED},
        {INT64_C(1) << 53, 1023, (INT64_C(1) << 53) * 1023},
        {INT64_C(1) << 53, 1024, TS_AMOUNT_UNLIMITED},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        if (ts_amount_mul(rows[i].a, rows[i].count) != rows[i].want)
            fail_msg("row %zu: %lld * %lld = %lld, want %lld", i, (long long)rows[i].a,
                     (long long)rows[i].count, (long long)ts_amount_mul(rows[i].a, rows[i].count),
                     (long long)rows[i].want);
    }
}

/* Usage is exact past the int64 range, in a queue and in its cohort: read
 * back it is clamped at the top (never wraps), and removing what was added
 * gives back exactly what was there, so a queue that held huge amounts is
 * never left full for good. */
static void test_usage_never_wraps(void **state)
{
    struct ts_quota_node c, a;

    (void)state;
    ts_quota_node_init(&c, "C", 1, 1);
    ts_quota_node_init(&a, "A", 0, 1);
    ts_quota_set(&a, 0, TS_AMOUNT_UNLIMITED, NONE, NONE);
    assert_int_equal(ts_quota_node_set_parent(&a, &c), 0);
    for (int i = 0; i < 3; i++)
        ts_quota_add_usage(&a, 0, INT64_MAX);
    assert_true(ts_quota_usage(&a, 0) == INT64_MAX);
    assert_true(ts_quota_usage(&c, 0) == INT64_MAX);
    assert_int_equal(ts_quota_available(&a, 0), 0);
    ts_quota_add_usage(&a, 0, 5);
    for (int i = 0; i < 3; i++)
        ts_quota_remove_usage(&a, 0, INT64_MAX);
    assert_true(ts_quota_usage(&a, 0) == 5);
    assert_true(ts_quota_usage(&c, 0) == 5);
    assert_true(ts_quota_available(&a, 0) == INT64_MAX - 5);
    /* a full node offers nothing more */
    ts_quota_add_usage(&a, 0, INT64_MAX);
    ts_quota_set(&a, 0, 10, NONE, NONE);
    assert_int_equal(ts_quota_available(&a, 0), 0);
    ts_quota_node_release(&a);
    ts_quota_node_release(&c);
}

/* Kueue's worked example of lending: cohort C, A nominal 10 lending 4,
 * B nominal 6. */
static void test_flat_cohort_lending_borrowing(void **state)
{
    struct ts_quota_node c, a, b;

    (void)state;
    ts_quota_node_init(&c, "C", 1, 1);
    ts_quota_node_init(&a, "A", 0, 1);
    ts_quota_node_init(&b, "B", 0, 1);
    ts_quota_set(&a, 0, 10, NONE, 4);
    ts_quota_set(&b, 0, 6, NONE, NONE);
    assert_int_equal(ts_quota_node_set_parent(&a, &c), 0);
    assert_int_equal(ts_quota_node_set_parent(&b, &c), 0);
    assert_int_equal(ts_quota_local(&a, 0), 6);
    assert_int_equal(ts_quota_local(&b, 0), 0);
    assert_int_equal(ts_quota_subtree(&c, 0), 10);
    ts_quota_add_usage(&a, 0, 3);
    assert_int_equal(ts_quota_usage(&c, 0), 0); /* fits A's private 6 */
    ts_quota_add_usage(&b, 0, 5);
    assert_int_equal(ts_quota_usage(&c, 0), 5);
    assert_int_equal(ts_quota_available(&b, 0), 5);
    assert_int_equal(ts_quota_available(&a, 0), 8);
    assert_int_equal(ts_quota_potential(&a, 0), 16);
    ts_quota_set(&b, 0, 6, 2, NONE);
    assert_int_equal(ts_quota_available(&b, 0), 3);
    assert_int_equal(ts_quota_potential(&b, 0), 8);
    /* release everything: the cohort returns to zero usage */
    ts_quota_remove_usage(&b, 0, 5);
    ts_quota_remove_usage(&a, 0, 3);
    assert_int_equal(ts_quota_usage(&c, 0), 0);
    assert_int_equal(ts_quota_usage(&a, 0), 0);
    ts_quota_node_release(&a);
    ts_quota_node_release(&b);
    ts_quota_node_release(&c);
}

/* A quota set to the int64 limit and back leaves every sum exact: the
 * cohort's saturated subtree quota is summed again, not corrected by a
 * difference (found by test_fuzz_objects: 8191Pi, then 5 again). */
static void test_saturated_quota_restored(void **state)
{
    static const int64_t huge[] = {INT64_MAX, INT64_MAX / 2 + 1, INT64_C(1) << 62};
    struct ts_quota_node r, x, a, b;

    (void)state;
    for (size_t i = 0; i < sizeof(huge) / sizeof(huge[0]); i++) {
        ts_quota_node_init(&r, "R", 1, 1);
        ts_quota_node_init(&x, "X", 1, 1);
        ts_quota_node_init(&a, "A", 0, 1);
        ts_quota_node_init(&b, "B", 0, 1);
        ts_quota_set(&a, 0, 5000, NONE, 1500);
        ts_quota_set(&b, 0, 2000, NONE, NONE);
        assert_int_equal(ts_quota_node_set_parent(&x, &r), 0);
        assert_int_equal(ts_quota_node_set_parent(&a, &x), 0);
        assert_int_equal(ts_quota_node_set_parent(&b, &r), 0);
        ts_quota_add_usage(&b, 0, 8000);
        ts_quota_set(&b, 0, huge[i], NONE, NONE);
        ts_quota_set(&a, 0, huge[i], NONE, 1500);
        ts_quota_set(&a, 0, 5000, NONE, huge[i]);
        ts_quota_set(&a, 0, 5000, NONE, 1500);
        ts_quota_set(&b, 0, 2000, NONE, NONE);
        assert_int_equal(ts_quota_subtree(&x, 0), 1500);
        assert_int_equal(ts_quota_subtree(&r, 0), 3500);
        assert_int_equal(ts_quota_usage(&r, 0), 8000);
        assert_int_equal(ts_quota_available(&b, 0), 0);
        /* moved out and back, the sums stay exact too */
        assert_int_equal(ts_quota_node_set_parent(&a, NULL), 0);
        assert_int_equal(ts_quota_subtree(&r, 0), 2000);
        assert_int_equal(ts_quota_node_set_parent(&a, &x), 0);
        assert_int_equal(ts_quota_subtree(&r, 0), 3500);
        ts_quota_node_release(&a);
        ts_quota_node_release(&b);
        ts_quota_node_release(&x);
        ts_quota_node_release(&r);
    }
}

/* Kueue's hierarchical cohort example: R <- X (nominal 2, lending 0)
 * <- CQ-1 (4). */
static void test_hierarchy_private_cohort_quota(void **state)
{
    struct ts_quota_node r, x, q1, y, q2;

    (void)state;
    ts_quota_node_init(&r, "R", 1, 1);
    ts_quota_node_init(&x, "X", 1, 1);
    ts_quota_node_init(&q1, "CQ-1", 0, 1);
    ts_quota_node_init(&y, "Y", 1, 1);
    ts_quota_node_init(&q2, "CQ-2", 0, 1);
    ts_quota_set(&x, 0, 2, NONE, 0);
    ts_quota_set(&q1, 0, 4, NONE, NONE);
    ts_quota_set(&q2, 0, 3, NONE, NONE);
    ts_quota_node_set_parent(&q1, &x);
    ts_quota_node_set_parent(&x, &r);
    ts_quota_node_set_parent(&q2, &y);
    ts_quota_node_set_parent(&y, &r);
    assert_int_equal(ts_quota_subtree(&x, 0), 6);
    assert_int_equal(ts_quota_subtree(&r, 0), 3); /* only Y's 3 are shared */
    assert_int_equal(ts_quota_available(&q1, 0), 6 + 3);
    assert_int_equal(ts_quota_available(&q2, 0), 3);
    {
        int reclaim = 0;

        /* 5 in an empty CQ-1 exceed CQ-1 (4) but fit in X, below the root */
        assert_int_equal(ts_quota_fit_height(&q1, 0, 5, &reclaim), 1);
        assert_true(reclaim);
    }
    ts_quota_add_usage(&q1, 0, 6);
    assert_int_equal(ts_quota_usage(&r, 0), 0); /* held inside X */
    assert_int_equal(ts_quota_available(&q2, 0), 3);
    assert_int_equal(ts_quota_fit_height(&q2, 0, 3, &(int){0}), 0);
    {
        int reclaim = 0;

        /* 2 more in CQ-1 exceed CQ-1 (4) and X (6): the root is the lowest
         * fit, and nothing above the root can be reclaimed from (Kueue's
         * FindHeightOfLowestSubtreeThatFits answers trackingNode.HasParent()) */
        assert_int_equal(ts_quota_fit_height(&q1, 0, 2, &reclaim), 2);
        assert_false(reclaim);
    }
    /* a cycle is refused */
    assert_int_equal(ts_quota_node_set_parent(&r, &x), TS_EINVAL);
    ts_quota_node_release(&q1);
    ts_quota_node_release(&q2);
    ts_quota_node_release(&x);
    ts_quota_node_release(&y);
    ts_quota_node_release(&r);
}

/* Edge cases: zero quota, unlimited borrowing, exact fit, unlimited quota. */
static void test_edge_cases_table(void **state)
{
    static const struct {
        const char *name;
        int64_t a_nominal, a_borrow, a_lend, b_nominal, a_used, b_used;
        int64_t want_avail_a, want_potential_a;
    } cases[] = {
        {"zero quota, alone in the cohort", 0, NONE, NONE, 0, 0, 0, 0, 0},
        {"zero quota borrows everything the cohort has", 0, NONE, NONE, 8, 0, 0, 8, 8},
        {"unlimited borrowing takes all unused", 2, NONE, NONE, 6, 0, 1, 7, 8},
        {"borrowing limit 0: nominal only", 2, 0, NONE, 6, 0, 0, 2, 2},
        {"exact fit: all used", 4, NONE, NONE, 0, 4, 0, 0, 4},
        {"other queue borrowed our quota", 4, NONE, NONE, 4, 0, 8, 0, 8},
        {"lending limit keeps the rest private", 4, NONE, 1, 4, 0, 5, 3, 8},
        {"unlimited nominal: read back clamped at the top", TS_AMOUNT_UNLIMITED, NONE, NONE, 4, 1,
         0, TS_AMOUNT_UNLIMITED, TS_AMOUNT_UNLIMITED},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct ts_quota_node c, a, b;

        ts_quota_node_init(&c, "c", 1, 1);
        ts_quota_node_init(&a, "a", 0, 1);
        ts_quota_node_init(&b, "b", 0, 1);
        ts_quota_set(&a, 0, cases[i].a_nominal, cases[i].a_borrow, cases[i].a_lend);
        ts_quota_set(&b, 0, cases[i].b_nominal, NONE, NONE);
        ts_quota_node_set_parent(&a, &c);
        ts_quota_node_set_parent(&b, &c);
        ts_quota_add_usage(&a, 0, cases[i].a_used);
        ts_quota_add_usage(&b, 0, cases[i].b_used);
        if (ts_quota_available(&a, 0) != cases[i].want_avail_a ||
            ts_quota_potential(&a, 0) != cases[i].want_potential_a)
            fail_msg("%s: available %lld (want %lld), potential %lld (want %lld)", cases[i].name,
                     (long long)ts_quota_available(&a, 0), (long long)cases[i].want_avail_a,
                     (long long)ts_quota_potential(&a, 0), (long long)cases[i].want_potential_a);
        ts_quota_node_release(&a);
        ts_quota_node_release(&b);
        ts_quota_node_release(&c);
    }
}

/* Recomputes a cohort's subtree quota and usage from its children. */
static void check_invariant(const struct ts_quota_node *n)
{
    for (size_t fr = 0; fr < n->nfr; fr++) {
        int64_t q = n->nominal[fr], u = 0;

        if (!n->is_cohort)
            continue;
        for (size_t i = 0; i < n->n_children; i++) {
            const struct ts_quota_node *c = n->children[i];
            int64_t local = ts_quota_local(c, fr);

            q += ts_quota_subtree(c, fr) - local;
            u += ts_quota_usage(c, fr) - local > 0 ? ts_quota_usage(c, fr) - local : 0;
        }
        if (q != ts_quota_subtree(n, fr) || u != ts_quota_usage(n, fr))
            fail_msg("node %s fr %zu: subtree %lld (want %lld) usage %lld (want %lld)", n->name, fr,
                     (long long)ts_quota_subtree(n, fr), (long long)q,
                     (long long)ts_quota_usage(n, fr), (long long)u);
    }
    for (size_t i = 0; i < n->n_children; i++)
        check_invariant(n->children[i]);
}

static void test_random_edits_keep_invariants(void **state)
{
    enum { NCQ = 6, NCO = 3, NFR = 2, STEPS = 4000 };
    struct ts_quota_node cq[NCQ], co[NCO];
    int64_t used[NCQ][NFR] = {{0}};
    unsigned seed = 12345;

    (void)state;
    for (int i = 0; i < NCO; i++)
        ts_quota_node_init(&co[i], "co", 1, NFR);
    for (int i = 0; i < NCQ; i++)
        ts_quota_node_init(&cq[i], "cq", 0, NFR);
    ts_quota_node_set_parent(&co[1], &co[0]);
    ts_quota_node_set_parent(&co[2], &co[0]);
    for (int i = 0; i < NCQ; i++)
        ts_quota_node_set_parent(&cq[i], &co[1 + i % 2]);
    for (int step = 0; step < STEPS; step++) {
        int i = (int)(rand_r(&seed) % NCQ), fr = (int)(rand_r(&seed) % NFR);
        int op = (int)(rand_r(&seed) % 5);
        int64_t v = rand_r(&seed) % 7;

        if (op == 0) {
            ts_quota_set(&cq[i], (size_t)fr, v + 2, rand_r(&seed) % 2 ? NONE : v,
                         rand_r(&seed) % 2 ? NONE : v / 2);
        } else if (op == 1 && i < NCO) {
            ts_quota_set(&co[i], (size_t)fr, v, NONE, i ? (int64_t)(rand_r(&seed) % 3) : NONE);
        } else if (op == 2) {
            int64_t take = used[i][fr] < v ? used[i][fr] : v;

            ts_quota_remove_usage(&cq[i], (size_t)fr, take);
            used[i][fr] -= take;
        } else if (op == 3 && step % 97 == 0) {
            ts_quota_node_set_parent(&cq[i], &co[1 + (step / 97) % 2]);
        } else {
            ts_quota_add_usage(&cq[i], (size_t)fr, v);
            used[i][fr] += v;
        }
        check_invariant(&co[0]);
        assert_true(ts_quota_available(&cq[i], (size_t)fr) >= 0);
    }
    for (int i = 0; i < NCQ; i++)
        ts_quota_node_release(&cq[i]);
    for (int i = 0; i < NCO; i++)
        ts_quota_node_release(&co[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_amount_saturation),
        cmocka_unit_test(test_amount_mul_saturates),
        cmocka_unit_test(test_usage_never_wraps),
        cmocka_unit_test(test_flat_cohort_lending_borrowing),
        cmocka_unit_test(test_saturated_quota_restored),
        cmocka_unit_test(test_hierarchy_private_cohort_quota),
        cmocka_unit_test(test_edge_cases_table),
        cmocka_unit_test(test_random_edits_keep_invariants),
    };

    ts_alloc_init();
    return cmocka_run_group_tests_name("engine_quota", tests, NULL, NULL);
}
