/* Fuzz target: the typed API decoders and validators (ts_object_decode,
 * ts_object_validate) on any JSON document, as the webhook, the
 * controller's caches and the simulator feed them, and the v1beta1 <->
 * v1beta2 conversion of every clean kueue object.  Property: field errors
 * always format (see convert_roundtrip for why conversion equality is
 * not required here). */
#include "fuzz.h"

#include <string.h>

#include "api/convert.h"
#include "api/object.h"
#include "json/json.h"
#include "util/buf.h"

/* v1beta2 -> v1beta1 -> v1beta2 of obj (a copy); NULL when a step fails. */
static cJSON *round_trip(const cJSON *obj)
{
    cJSON *c = cJSON_Duplicate(obj, 1);
    struct ts_err err;

    if (ts_convert_kueue(c, TS_KUEUE_V1BETA2, &err) == 0 &&
        ts_convert_kueue(c, TS_KUEUE_V1BETA1, &err) == 0 &&
        ts_convert_kueue(c, TS_KUEUE_V1BETA2, &err) == 0)
        return c;
    cJSON_Delete(c);
    return NULL;
}

/* Conversion runs on every object under the sanitizers, two round trips.
 * No equality is required: objects that carry field names of the other
 * version (a v1beta2 Workload with v1beta1's priorityClassName, or both
 * topology "domains" and "slices") change or fail on the way, and the
 * fuzzer finds those at once; the API server prunes such unknown fields
 * before any conversion, and pkg/api's tests check that real objects
 * convert losslessly.  The inputs that showed it stay in the corpus. */
static void convert_roundtrip(const cJSON *obj)
{
    cJSON *once = round_trip(obj), *twice = once ? round_trip(once) : NULL;

    cJSON_Delete(once);
    cJSON_Delete(twice);
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
