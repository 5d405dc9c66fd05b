/* Fuzz target: JSON merge patch (RFC 7386) and JSON patch (RFC 6902).
 * Input: one mode byte (even: merge patch, odd: JSON patch), then the
 * document, a NUL byte, the patch.  Properties: a patch that applies gives
 * a tree that prints as JSON and parses back equal; the patch created
 * from the document to that result applies to the document and gives the
 * result again. */
#include "fuzz.h"

#include <string.h>

#include "json/json.h"
#include "json/patch.h"
#include "util/buf.h"

typedef int (*apply_fn)(const cJSON *, const cJSON *, cJSON **, struct ts_err *);
typedef int (*create_fn)(const cJSON *, const cJSON *, cJSON **, struct ts_err *);

static void check_valid_json(const cJSON *v)
{
    struct ts_buf out = TS_BUF_INIT;
    struct ts_err err;
    cJSON *back = NULL;

    TS_FUZZ_CHECK(ts_json_print(v, TS_JSON_COMPACT, &out, &err) == 0);
    TS_FUZZ_CHECK(ts_json_parse(out.ptr, out.len, &back, &err) == 0);
    TS_FUZZ_CHECK(ts_json_equal(v, back));
    cJSON_Delete(back);
    ts_buf_release(&out);
}

static void check(const cJSON *doc, const cJSON *patch, apply_fn apply, create_fn create)
{
    cJSON *out = NULL, *p = NULL, *again = NULL;
    struct ts_err err;

    if (apply(doc, patch, &out, &err) != 0)
        return;
    check_valid_json(out);
    if (create(doc, out, &p, &err) == 0) {
        TS_FUZZ_CHECK(apply(doc, p, &again, &err) == 0);
        TS_FUZZ_CHECK(ts_json_equal(again, out));
    }
    cJSON_Delete(again);
    cJSON_Delete(p);
    cJSON_Delete(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data + 1, *nul;
    cJSON *doc = NULL, *patch = NULL;
    struct ts_err err;
    size_t len;

    if (size < 2 || size > TS_FUZZ_MAX_INPUT)
        return 0;
    len = size - 1;
    nul = memchr(text, '\0', len);
    if (!nul)
        return 0;
    if (ts_json_parse(text, (size_t)(nul - text), &doc, &err) == 0 &&
        ts_json_parse(nul + 1, len - (size_t)(nul - text) - 1, &patch, &err) == 0) {
        if (data[0] % 2 == 0)
            check(doc, patch, ts_json_merge_patch_apply, ts_json_merge_patch_create);
        else
            check(doc, patch, ts_json_patch_apply, ts_json_patch_create);
    }
    cJSON_Delete(doc);
    cJSON_Delete(patch);
    return 0;
}
