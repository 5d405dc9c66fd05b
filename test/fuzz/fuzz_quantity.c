/* Fuzz target: the resource.Quantity parser.  Properties: a quantity that
 * parses prints in canonical form, that text parses back to the same
 * value, and printing is stable from the second round on; q + q - q == q when nothing overflows;
 * the integer views never crash. */
#include "fuzz.h"

#include <string.h>

#include "resource/quantity.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ts_str s = {(const char *)data, size};
    struct ts_quantity q, back, sum, diff;
    struct ts_err err;
    char text[TS_QUANTITY_STR_MAX], again[TS_QUANTITY_STR_MAX];
    int64_t i64;

    if (size > 256 || ts_quantity_parse(s, &q, &err))
        return 0;
    ts_quantity_format(&q, text, sizeof(text));
    TS_FUZZ_CHECK(ts_quantity_parse_c(text, &back, &err) == 0);
    TS_FUZZ_CHECK(ts_quantity_cmp(&q, &back) == 0);
    /* Canonical text is a fixed point after one round: a binary value
     * that is no whole multiple of 1024 prints bare ("991312.5Ki" ->
     * "1015104000"), which reads back as decimal ("1015104k"), exactly as
     * in Kubernetes; from there it stays. */
    ts_quantity_format(&back, again, sizeof(again));
    TS_FUZZ_CHECK(ts_quantity_parse_c(again, &back, &err) == 0);
    TS_FUZZ_CHECK(ts_quantity_cmp(&q, &back) == 0);
    ts_quantity_format(&back, text, sizeof(text));
    TS_FUZZ_CHECK(strcmp(text, again) == 0);
    if (ts_quantity_add(&q, &q, &sum) == 0 && ts_quantity_sub(&sum, &q, &diff) == 0)
        TS_FUZZ_CHECK(ts_quantity_cmp(&diff, &q) == 0);
    (void)ts_quantity_value(&q, &i64);
    (void)ts_quantity_milli_value(&q, &i64);
    return 0;
}
