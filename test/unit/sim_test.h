/*
 * sim_test.h - a helper shared by the engine tests that drive the
 * simulator (test_engine_explain.c, test_engine_preempt.c; header-only,
 * static inline, so each test binary stands alone).
 *
 * Include after <cmocka.h>.
 */
#ifndef TS_TEST_SIM_TEST_H
#define TS_TEST_SIM_TEST_H

#include <string.h>

#include "sim/sim.h"
#include "yaml/yaml.h"

/* Adds every document of a YAML stream to the simulator at `now`; fails
 * the test on a decode or add error. */
static inline void sim_add_yaml(struct ts_sim *s, const char *yaml, ts_time now)
{
    struct ts_yaml_stream st = TS_YAML_STREAM_INIT;
    struct ts_err err = {0};

    if (ts_yaml_decode(yaml, strlen(yaml), "test", &st, &err))
        fail_msg("%s", err.msg);
    for (size_t i = 0; i < st.n; i++) {
        if (ts_sim_add(s, st.docs[i].root, now, &err))
            fail_msg("add: %s", err.msg);
    }
    ts_yaml_stream_release(&st);
}

#endif
