/* Fuzz target: the typed API decoders and validators (ts_object_decode,
 * ts_object_validate) on any JSON document, as the webhook, the
 * controller's caches and the simulator feed them.  Property: a kueue
 * object converted to v1beta1 and back equals the object converted to
 * v1beta2 directly (conversion is lossless), whenever both succeed; field
 * errors always format. */
#include "fuzz.h"

#include <string.h>

#include "api/convert.h"
#include "api/object.h"
#include "json/json.h"
#include "util/buf.h"

static void convert_roundtrip(const cJSON *obj)
{
    cJSON *direct = cJSON_Duplicate(obj, 1), *via = cJSON_Duplicate(obj, 1);
    struct ts_err err;

    if (ts_convert_kueue(direct, TS_KUEUE_V1BETA2, &err) == 0 &&
        ts_convert_kueue(via, TS_KUEUE_V1BETA1, &err) == 0) {
        TS_FUZZ_CHECK(ts_convert_kueue(via, TS_KUEUE_V1BETA2, &err) == 0);
        TS_FUZZ_CHECK(ts_json_equal(direct, via));
    }
    cJSON_Delete(direct);
    cJSON_Delete(via);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_buf msg = TS_BUF_INIT;
    struct ts_object o;
    struct ts_err err;
    cJSON *obj = NULL;

    if (size > TS_FUZZ_MAX_INPUT || ts_json_parse((const char *)data, size, &obj, &err))
        return 0;
    memset(&o, 0, sizeof(o));
    if (ts_object_decode(obj, &o, &errs, &err) == 0) {
        ts_object_validate(&o, &errs);
        (void)ts_object_meta(&o);
        ts_field_errors_format(&errs, &msg);
        ts_object_release(&o);
        if (errs.n == 0)
            convert_roundtrip(obj);
    }
    ts_field_errors_release(&errs);
    ts_buf_release(&msg);
    cJSON_Delete(obj);
    return 0;
}
