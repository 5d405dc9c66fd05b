/*
 * podtemplate.h - a view of a core/v1 PodTemplateSpec that keeps the
 * original JSON as the source of truth.
 *
 * Kueue reads only a few parts of a pod template (requests and limits,
 * overhead, node selector, tolerations, required node affinity, priority
 * and runtime class, pod-level resources, metadata labels/annotations) but
 * has to hand the whole template back unchanged when it restores a job.
 * So struct ts_pod_template holds an owned deep copy of the template JSON
 * (`raw`) plus typed copies of the modelled parts.  ts_pod_template_encode()
 * writes the typed parts into a copy of raw: image, command, env, volumes
 * and every other field nobody modelled survive untouched.
 *
 * Request arithmetic follows Kubernetes' PodRequests as Kueue uses it
 * (pkg/resources/requests.go): limits fill in missing requests per
 * container, then max(Σ containers + sidecars, each init container +
 * sidecars started before it), pod-level requests override
 * cpu/memory/hugepages, plus overhead.
 *
 * Ownership: a template owns raw and every typed container; release it
 * with ts_pod_template_release() (which leaves it initialised).  Functions
 * are pure and not thread-safe on the same object.
 */
#ifndef TS_API_PODTEMPLATE_H
#define TS_API_PODTEMPLATE_H

#include <cJSON.h>
#include <stddef.h>

#include "api/core.h"
#include "api/dec.h"
#include "api/field.h"
#include "resource/resource_list.h"
#include "util/strlist.h"
#include "util/strmap.h"

/* One container or init container, as far as quota is concerned. */
struct ts_container {
    char *name;
    struct ts_resource_list requests;
    struct ts_resource_list limits;
    char *restart_policy; /* init containers only: "Always" marks a sidecar */
};

/* core/v1 NodeSelectorOperator. */
enum ts_node_selector_op {
    TS_NODE_SELECTOR_IN = 0,
    TS_NODE_SELECTOR_NOT_IN,
    TS_NODE_SELECTOR_EXISTS,
    TS_NODE_SELECTOR_DOES_NOT_EXIST,
    TS_NODE_SELECTOR_GT,
    TS_NODE_SELECTOR_LT,
};

struct ts_node_selector_req {
    char *key;
    enum ts_node_selector_op op;
    struct ts_strlist values;
};

/* One nodeSelectorTerms[] entry; its matchFields stay in raw only. */
struct ts_node_selector_term {
    struct ts_node_selector_req *exprs;
    size_t n_exprs;
};

struct ts_pod_template {
    cJSON *raw; /* owned deep copy of the whole template object; NULL = {} */
    struct ts_strmap labels;
    struct ts_strmap annotations;
    struct ts_container *containers;
    size_t n_containers;
    struct ts_container *init_containers;
    size_t n_init_containers;
    struct ts_resource_list overhead;
    struct ts_strmap node_selector;
    struct ts_toleration *tolerations;
    size_t n_tolerations;
    /* affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution */
    int has_required_affinity;
    struct ts_node_selector_term *affinity_terms;
    size_t n_affinity_terms;
    char *priority_class_name;
    char *runtime_class_name;
    struct ts_resource_list pod_requests; /* spec.resources.requests */
    struct ts_resource_list pod_limits;   /* spec.resources.limits */
};

/* Initialises an empty template (raw NULL, i.e. {}); allocates nothing. */
void ts_pod_template_init(struct ts_pod_template *t);
/* Frees everything and re-initialises t. */
void ts_pod_template_release(struct ts_pod_template *t);
/* dst = deep copy of src; dst must be initialised (its content is released
 * first).  Ownership: dst owns the copy. */
void ts_pod_template_copy(struct ts_pod_template *dst, const struct ts_pod_template *src);
/* Like ts_pod_template_copy, but only what decides where the pods may run
 * (nodeSelector, tolerations, required node affinity): what flavor
 * assignment reads.  The rest of dst is empty (raw NULL).  Held for every
 * workload, the whole template would be most of the engine's memory. */
void ts_pod_template_copy_placement(struct ts_pod_template *dst, const struct ts_pod_template *src);

/* Decodes a PodTemplateSpec object (the value of "template", not its
 * parent) into t, which must be initialised; tmpl may be NULL (empty
 * template).  Problems are appended to d's error list under d's current
 * path.  Ownership: t keeps a deep copy of tmpl, tmpl stays the caller's. */
void ts_pod_template_decode(struct ts_dec *d, const cJSON *tmpl, struct ts_pod_template *t);

/* Returns a copy of raw with every modelled field overwritten from the
 * typed fields (absent typed values delete the raw key).  Containers are
 * matched to raw containers by index.  Ownership: caller cJSON_Delete()s. */
cJSON *ts_pod_template_encode(const struct ts_pod_template *t);

/* 1 when a and b encode to the same JSON. */
int ts_pod_template_equal(const struct ts_pod_template *a, const struct ts_pod_template *b);

/* The per-pod request of the template with Kubernetes PodRequests
 * semantics (see the top comment).  out must be initialised; its content is
 * replaced.  Returns 0 or TS_EOVERFLOW. */
int ts_pod_template_requests(const struct ts_pod_template *t, struct ts_resource_list *out);

/* The effective requests of one container: its requests with limits
 * filling in missing names.  out must be initialised; content replaced. */
void ts_container_effective_requests(const struct ts_container *c, struct ts_resource_list *out);

/* Kueue's ValidateResources: for every container and init container whose
 * requests exceed its limits, appends
 *   <path>.template.spec.containers[i]: Invalid value: ["cpu"]:
 *   requests must not exceed its limits
 * where `path` is the pod set path (e.g. "podSets[0]").  Returns the number
 * of errors added. */
int ts_pod_template_validate_limits(const struct ts_pod_template *t, const char *path,
                                    struct ts_field_errors *errs);

/* v1.NodeSelectorRequirement semantics against a label set: In/NotIn on the
 * value, Exists/DoesNotExist on the key, Gt/Lt compare the integer value
 * (a non-integer label or a values list not holding exactly one integer
 * never matches). */
int ts_node_selector_req_matches(const struct ts_node_selector_req *r,
                                 const struct ts_strmap *labels);
/* All expressions of the term match.  An empty term matches nothing, as in
 * Kubernetes (Kueue's "term left empty by flavor filtering matches all" is
 * the caller's rule). */
int ts_node_selector_term_matches(const struct ts_node_selector_term *term,
                                  const struct ts_strmap *labels);
/* The template's required node affinity accepts labels: no required
 * affinity, or some term matches. */
int ts_pod_template_affinity_matches(const struct ts_pod_template *t,
                                     const struct ts_strmap *labels);
/* The operator's Kubernetes name ("In", "Gt", ...).  Static string. */
const char *ts_node_selector_op_name(enum ts_node_selector_op op);

#endif
