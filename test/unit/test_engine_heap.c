/* Tests for pkg/engine/heap: order, removal from the middle, re-keying. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "engine/heap.h"
#include "util/alloc.h"

struct item {
    int key;
    int id;
    size_t pos;
};

static int less(const void *a, const void *b)
{
    const struct item *x = a, *y = b;

    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static size_t *pos(void *e)
{
    return &((struct item *)e)->pos;
}

static void test_heap_random_ops_match_sorted_order(void **state)
{
    enum { N = 500 };
    struct item items[N];
    struct ts_heap h;
    unsigned seed = 7;
    int in[N] = {0};

    (void)state;
    ts_heap_init(&h, less, pos);
    for (int i = 0; i < N; i++) {
        items[i] = (struct item){(int)(rand_r(&seed) % 50), i, TS_HEAP_NOT_IN};
        ts_heap_push(&h, &items[i]);
        in[i] = 1;
    }
    for (int i = 0; i < N; i += 3) { /* remove a third from the middle */
        assert_true(ts_heap_remove(&h, &items[i]));
        assert_false(ts_heap_remove(&h, &items[i]));
        in[i] = 0;
    }
    for (int i = 1; i < N; i += 5) { /* re-key some */
        if (!in[i])
            continue;
        items[i].key = (int)(rand_r(&seed) % 50);
        ts_heap_fix(&h, &items[i]);
    }
    {
        struct item *prev = NULL, *cur;
        size_t count = 0;

        while ((cur = ts_heap_pop(&h))) {
            assert_int_equal(cur->pos, TS_HEAP_NOT_IN);
            if (prev)
                assert_true(less(prev, cur) < 0);
            prev = cur;
            count++;
        }
        assert_int_equal(count, N - (N + 2) / 3);
    }
    assert_null(ts_heap_peek(&h));
    ts_heap_release(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heap_random_ops_match_sorted_order),
    };

    ts_alloc_init();
    return cmocka_run_group_tests_name("engine_heap", tests, NULL, NULL);
}
