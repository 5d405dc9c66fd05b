/* Fuzz target: the YAML stream decoder (YAML -> cJSON, kubectl typing).
 * Property: every decoded document that the encoder accepts (it refuses
 * invalid UTF-8) round-trips: encode, decode again, same tree; and the
 * line map answers for any path. */
#include "fuzz.h"

#include "json/json.h"
#include "util/buf.h"
#include "yaml/yaml.h"

static void roundtrip(const struct ts_yaml_doc *doc)
{
    struct ts_buf out = TS_BUF_INIT;
    struct ts_err err;
    cJSON *back = NULL;

    (void)ts_yaml_doc_line(doc, "spec.a[0].b");
    if (ts_yaml_encode(doc->root, TS_YAML_SORT_KEYS, &out, &err) == 0) {
        TS_FUZZ_CHECK(ts_yaml_decode_one(out.ptr, out.len, &back, &err) == 0);
        TS_FUZZ_CHECK(ts_json_equal(doc->root, back));
        cJSON_Delete(back);
    }
    ts_buf_release(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ts_yaml_stream s = TS_YAML_STREAM_INIT;
    struct ts_err err;

    if (size > TS_FUZZ_MAX_INPUT)
        return 0;
    if (ts_yaml_decode((const char *)data, size, "fuzz", &s, &err) == 0)
        for (size_t i = 0; i < s.n; i++)
            roundtrip(&s.docs[i]);
    ts_yaml_stream_release(&s);
    return 0;
}
