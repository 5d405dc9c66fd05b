/* admissioncheck.c - reading an AdmissionCheck (admissioncheck.h). */
#include "api/admissioncheck.h"

#include "json/json.h"

#include <string.h>

int ts_admission_check_is(const cJSON *obj)
{
    const char *av = ts_json_get_string(obj, "apiVersion");
    const char *kind = ts_json_get_string(obj, "kind");

    return av && kind && !strncmp(av, "kueue.x-k8s.io/", 15) && !strcmp(kind, "AdmissionCheck");
}

int ts_admission_check_read(const cJSON *obj, const char **name, const char **controller,
                            int *active)
{
    const cJSON *cond;

    *name = ts_json_get_string(obj, "metadata.name");
    *controller = ts_json_get_string(obj, "spec.controllerName");
    *active = 0;
    cJSON_ArrayForEach(cond, ts_json_get(obj, "status.conditions"))
    {
        const char *type = ts_json_get_string(cond, "type");
        const char *status = ts_json_get_string(cond, "status");

        if (type && !strcmp(type, "Active"))
            *active = status && !strcmp(status, "True");
    }
    return *name ? 0 : -1;
}
