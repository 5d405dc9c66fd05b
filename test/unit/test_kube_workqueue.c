/* Tests for pkg/kube/workqueue (client-go semantics, fake clock) and the
 * event loop's timers, hooks and fd watchers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kube/loop.h"
#include "kube/workqueue.h"
#include "util/alloc.h"
#include "util/buf.h"

#define MS  INT64_C(1000000)
#define SEC INT64_C(1000000000)

static void expect_get(struct ts_workqueue *q, int64_t now, const char *want)
{
    char *k = ts_workqueue_get(q, now);

    if (!want) {
        if (k)
            fail_msg("expected nothing ready, got '%s'", k);
        return;
    }
    if (!k || strcmp(k, want))
        fail_msg("expected '%s', got '%s'", want, k ? k : "(none)");
    free(k);
}

static void test_dedup_and_order(void **state)
{
    struct ts_workqueue *q = ts_workqueue_new(NULL);

    (void)state;
    ts_workqueue_add(q, "ns/a");
    ts_workqueue_add(q, "ns/b");
    ts_workqueue_add(q, "ns/a"); /* already dirty: no second entry */
    ts_workqueue_add(q, "ns/c");
    assert_int_equal(ts_workqueue_len(q), 3);
    expect_get(q, 0, "ns/a");
    expect_get(q, 0, "ns/b");
    expect_get(q, 0, "ns/c");
    expect_get(q, 0, NULL);
    ts_workqueue_done(q, "ns/a");
    ts_workqueue_done(q, "ns/b");
    ts_workqueue_done(q, "ns/c");
    ts_workqueue_done(q, "never-taken"); /* ignored */
    assert_int_equal(ts_workqueue_processing(q), 0);
    ts_workqueue_free(q);
}

static void test_processing_key_is_not_handed_out_twice(void **state)
{
    struct ts_workqueue *q = ts_workqueue_new(NULL);

    (void)state;
    ts_workqueue_add(q, "k");
    expect_get(q, 0, "k");
    ts_workqueue_add(q, "k"); /* while processing: only marked dirty */
    ts_workqueue_add(q, "k");
    assert_int_equal(ts_workqueue_len(q), 0);
    expect_get(q, 0, NULL);
    ts_workqueue_done(q, "k"); /* requeued once at done */
    assert_int_equal(ts_workqueue_len(q), 1);
    expect_get(q, 0, "k");
    ts_workqueue_done(q, "k");
    expect_get(q, 0, NULL);
    ts_workqueue_free(q);
}

static void test_delayed_adds(void **state)
{
    struct ts_workqueue *q = ts_workqueue_new(NULL);

    (void)state;
    ts_workqueue_add_after(q, "late", 300 * MS, 0);
    ts_workqueue_add_after(q, "early", 100 * MS, 0);
    ts_workqueue_add_after(q, "late", 200 * MS, 0); /* earlier time wins */
    ts_workqueue_add_after(q, "later", 500 * MS, 0);
    ts_workqueue_add_after(q, "later", 900 * MS, 0); /* later time ignored */
    ts_workqueue_add_after(q, "now", 0, 0);
    assert_int_equal(ts_workqueue_waiting(q), 3);
    assert_int_equal(ts_workqueue_next_delay(q, 0), 100 * MS);
    expect_get(q, 0, "now");
    expect_get(q, 99 * MS, NULL);
    expect_get(q, 100 * MS, "early");
    expect_get(q, 150 * MS, NULL);
    assert_int_equal(ts_workqueue_next_delay(q, 150 * MS), 50 * MS);
    expect_get(q, 250 * MS, "late");
    expect_get(q, 499 * MS, NULL);
    expect_get(q, 500 * MS, "later");
    assert_int_equal(ts_workqueue_next_delay(q, 500 * MS), -1);
    ts_workqueue_free(q);
}

/* Per-key exponential backoff 5 ms .. 1000 s; the overall bucket (10 qps,
 * burst 100) dominates only when many keys fail at once. */
static void test_rate_limited_backoff(void **state)
{
    struct ts_workqueue *q = ts_workqueue_new(NULL);
    int64_t want = 5 * MS;

    (void)state;
    for (int i = 0; i < 25; i++) {
        int64_t got = ts_workqueue_add_rate_limited(q, "bad", 0);

        assert_int_equal(got, want < 1000 * SEC ? want : 1000 * SEC);
        want *= 2;
    }
    assert_int_equal(ts_workqueue_requeues(q, "bad"), 25);
    ts_workqueue_forget(q, "bad");
    assert_int_equal(ts_workqueue_requeues(q, "bad"), 0);
    assert_int_equal(ts_workqueue_add_rate_limited(q, "bad", 0), 5 * MS);
    ts_workqueue_free(q);

    q = ts_workqueue_new(NULL);
    for (int i = 0; i < 100; i++) {
        char key[16];

        snprintf(key, sizeof(key), "k%d", i);
        assert_int_equal(ts_workqueue_add_rate_limited(q, key, 0), 5 * MS);
    }
    assert_int_equal(ts_workqueue_add_rate_limited(q, "k100", 0), 100 * MS);
    assert_int_equal(ts_workqueue_add_rate_limited(q, "k101", 0), 200 * MS);
    ts_workqueue_free(q);
}

static void test_shutdown_drains(void **state)
{
    struct ts_workqueue *q = ts_workqueue_new(NULL);

    (void)state;
    ts_workqueue_add(q, "a");
    ts_workqueue_add(q, "b");
    ts_workqueue_add_after(q, "c", SEC, 0);
    expect_get(q, 0, "a");
    ts_workqueue_shutdown(q);
    assert_true(ts_workqueue_shutting_down(q));
    ts_workqueue_add(q, "d"); /* refused */
    assert_int_equal(ts_workqueue_waiting(q), 0);
    assert_false(ts_workqueue_drained(q));
    expect_get(q, 2 * SEC, "b"); /* queued keys are still handed out */
    expect_get(q, 2 * SEC, NULL);
    ts_workqueue_done(q, "a");
    assert_false(ts_workqueue_drained(q));
    ts_workqueue_done(q, "b");
    assert_true(ts_workqueue_drained(q));
    ts_workqueue_free(q);
}

/* --- the queue on the loop, with a fake clock ---------------------------------- */

struct fake {
    int64_t mono;
    struct ts_buf log;
    struct ts_workqueue *q;
};

static int64_t fake_now(void *data)
{
    return ((struct fake *)data)->mono;
}

static void handle(struct ts_workqueue *q, const char *key, void *data)
{
    struct fake *f = data;

    ts_buf_addf(&f->log, "%s@%lld ", key, (long long)(f->mono / MS));
    if (!strcmp(key, "retry") && ts_workqueue_requeues(q, key) < 2)
        ts_workqueue_add_rate_limited(q, key, f->mono);
    ts_workqueue_done(q, key);
}

static void test_queue_on_loop(void **state)
{
    struct fake f = {0, TS_BUF_INIT, NULL};
    struct ts_loop *l = ts_loop_new();

    (void)state;
    ts_loop_set_clock(l, fake_now, fake_now, &f);
    f.q = ts_workqueue_new(NULL);
    assert_int_equal(ts_workqueue_run_on(f.q, l, 2, handle, &f), 0);
    ts_workqueue_add(f.q, "a");
    ts_workqueue_add(f.q, "b");
    ts_workqueue_add(f.q, "c");
    ts_workqueue_add(f.q, "retry");
    ts_workqueue_add_after(f.q, "later", 30 * MS, 0);
    ts_loop_run_once(l, 0); /* batch of 2 per pass */
    assert_string_equal(f.log.ptr, "a@0 b@0 ");
    ts_loop_run_once(l, 0);
    assert_string_equal(f.log.ptr, "a@0 b@0 c@0 retry@0 ");
    for (int i = 0; i < 50; i++) { /* 1 ms per pass */
        f.mono += MS;
        ts_loop_run_once(l, 0);
    }
    assert_string_equal(f.log.ptr, "a@0 b@0 c@0 retry@0 retry@5 retry@15 later@30 ");
    ts_workqueue_free(f.q);
    assert_int_equal(ts_loop_timer_count(l), 0);
    ts_loop_free(l);
    ts_buf_release(&f.log);
}

/* --- loop basics ------------------------------------------------------------------ */

static void note(struct ts_loop *l, void *data)
{
    (void)l;
    ts_buf_adds(data, "t");
}

static void on_pipe(struct ts_loop *l, int fd, unsigned ev, void *data)
{
    char c;

    (void)l;
    if ((ev & TS_LOOP_READ) && read(fd, &c, 1) == 1)
        ts_buf_addc(data, c);
}

static void test_loop_timers_and_fds(void **state)
{
    struct fake f = {0, TS_BUF_INIT, NULL};
    struct ts_loop *l = ts_loop_new();
    uint64_t id;
    int fds[2];

    (void)state;
    ts_loop_set_clock(l, fake_now, fake_now, &f);
    ts_loop_timer_add(l, 10 * MS, note, &f.log);
    id = ts_loop_timer_add(l, 5 * MS, note, &f.log);
    assert_int_equal(ts_loop_timer_cancel(l, id), 1);
    assert_int_equal(ts_loop_timer_cancel(l, id), 0);
    ts_loop_run_once(l, 0);
    assert_string_equal(f.log.ptr, "");
    f.mono = 10 * MS;
    ts_loop_run_once(l, 0);
    assert_string_equal(f.log.ptr, "t");
    assert_int_equal(pipe(fds), 0);
    assert_int_equal(ts_loop_watch(l, fds[0], TS_LOOP_READ, on_pipe, &f.log), 0);
    assert_int_equal(write(fds[1], "x", 1), 1);
    ts_loop_run_once(l, SEC);
    assert_string_equal(f.log.ptr, "tx");
    ts_loop_unwatch(l, fds[0]);
    assert_int_equal(write(fds[1], "y", 1), 1);
    ts_loop_run_once(l, 0);
    assert_string_equal(f.log.ptr, "tx");
    close(fds[0]);
    close(fds[1]);
    ts_loop_free(l);
    ts_buf_release(&f.log);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dedup_and_order),
        cmocka_unit_test(test_processing_key_is_not_handed_out_twice),
        cmocka_unit_test(test_delayed_adds),
        cmocka_unit_test(test_rate_limited_backoff),
        cmocka_unit_test(test_shutdown_drains),
        cmocka_unit_test(test_queue_on_loop),
        cmocka_unit_test(test_loop_timers_and_fds),
    };

    ts_alloc_init();
    return cmocka_run_group_tests_name("kube_workqueue", tests, NULL, NULL);
}
