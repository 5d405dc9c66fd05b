/* Validation of the queue kinds (ClusterQueue, Cohort, LocalQueue,
 * ResourceFlavor, WorkloadPriorityClass, PriorityClass, Namespace): one
 * table row per CRD/CEL/webhook rule, each an edit of a valid base object
 * and the field path + message Kueue (or Kubernetes) reports. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "api_queue_test.h"

#define DESC_64 "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd"
#define DESC_1024                                                                                  \
    DESC_64 DESC_64 DESC_64 DESC_64 DESC_64 DESC_64 DESC_64 DESC_64 DESC_64 DESC_64 DESC_64        \
        DESC_64 DESC_64 DESC_64 DESC_64 DESC_64
#define DESC_2048 DESC_1024 DESC_1024
#define DESC_2049 DESC_2048 "d"

static const char *const base_cq =
    "{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'ClusterQueue','metadata':{'name':'cq'},"
    "'spec':{'cohortName':'co','namespaceSelector':{},'resourceGroups':["
    "{'coveredResources':['cpu','memory'],'flavors':["
    "{'name':'default','resources':[{'name':'cpu','nominalQuota':'9'},"
    "{'name':'memory','nominalQuota':'36Gi'}]},"
    "{'name':'spot','resources':[{'name':'cpu','nominalQuota':'4','borrowingLimit':'2',"
    "'lendingLimit':'1'},{'name':'memory','nominalQuota':'8Gi'}]}]},"
    "{'coveredResources':['nvidia.com/gpu'],'flavors':[{'name':'a100','resources':["
    "{'name':'nvidia.com/gpu','nominalQuota':8}]}]}]}}";

static const char *const base_co =
    "{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'Cohort','metadata':{'name':'co'},"
    "'spec':{'parentName':'root','fairSharing':{'weight':'2'},'resourceGroups':["
    "{'coveredResources':['cpu'],'flavors':[{'name':'default','resources':[{'name':'cpu',"
    "'nominalQuota':'10','borrowingLimit':'2','lendingLimit':'20'}]}]}]}}";

static const char *const base_lq =
    "{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'LocalQueue',"
    "'metadata':{'name':'lq','namespace':'team-a'},'spec':{'clusterQueue':'cq'}}";

static const char *const base_rf =
    "{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'ResourceFlavor','metadata':{'name':'spot'},"
    "'spec':{'nodeLabels':{'instance-type':'spot'},"
    "'nodeTaints':[{'key':'spot','value':'true','effect':'NoSchedule'}],"
    "'tolerations':[{'key':'spot-taint','operator':'Exists','effect':'NoSchedule'}],"
    "'topologyName':'default'}}";

static const char *const base_wpc =
    "{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'WorkloadPriorityClass',"
    "'metadata':{'name':'high'},'value':1000,'description':'high'}";

static const char *const base_pc =
    "{'apiVersion':'scheduling.k8s.io/v1','kind':'PriorityClass','metadata':{'name':'high'},"
    "'value':1000000,'globalDefault':false,'description':'d'}";

static const char *const base_ns =
    "{'apiVersion':'v1','kind':'Namespace','metadata':{'name':'ns'}}";

static const char *base_of(const char *kind)
{
    static const struct {
        const char *kind, *base;
    } bases[] = {{"ClusterQueue", base_cq},
                 {"Cohort", base_co},
                 {"LocalQueue", base_lq},
                 {"ResourceFlavor", base_rf},
                 {"WorkloadPriorityClass", base_wpc},
                 {"PriorityClass", base_pc},
                 {"Namespace", base_ns}};

    for (size_t i = 0; i < N_ELEMS(bases); i++) {
        if (strcmp(bases[i].kind, kind) == 0)
            return bases[i].base;
    }
    fail_msg("no base for %s", kind);
    return NULL;
}

/* Decodes base(kind)+edits into x; decoding must succeed. */
static void build(const char *name, const char *kind, const char *const *edits, size_t n,
                  union tq_any *x)
{
    struct ts_field_errors derr = TS_FIELD_ERRORS_INIT;
    cJSON *j = tq_json(base_of(kind));

    tq_edit(j, edits, n);
    tq_decode(tq_kind_of(kind), j, x, &derr);
    tq_assert_no_errors(name, &derr);
    ts_field_errors_release(&derr);
    cJSON_Delete(j);
}

static void test_bases_are_valid(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(tq_kinds); i++) {
        struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
        union tq_any x;

        build(tq_kinds[i].kind, tq_kinds[i].kind, NULL, 0, &x);
        tq_kinds[i].validate(&x, &errs);
        tq_assert_no_errors(tq_kinds[i].kind, &errs);
        tq_kinds[i].release(&x);
        ts_field_errors_release(&errs);
    }
}

#define RG  "spec.resourceGroups"
#define F00 RG "[0].flavors[0]"
#define F01 RG "[0].flavors[1]"

static const struct vcase {
    const char *name, *kind;
    const char *edits[4];
    const char *path, *want; /* path NULL: the edit must stay valid */
} vcases[] = {
    /* ClusterQueue: webhook */
    {"cq resource name must match covered",
     "ClusterQueue",
     {F00 ".resources[1].name='mem'"},
     F00 ".resources[1].name",
     "Invalid value: \"mem\": must match the name in coveredResources"},
    {"cq negative nominal",
     "ClusterQueue",
     {F00 ".resources[0].nominalQuota='-1'"},
     F00 ".resources[0].nominalQuota",
     "Invalid value: \"-1\": must be greater than or equal to 0"},
    {"cq negative borrowing",
     "ClusterQueue",
     {F01 ".resources[0].borrowingLimit='-1'"},
     F01 ".resources[0].borrowingLimit",
     "must be greater than or equal to 0"},
    {"cq negative lending",
     "ClusterQueue",
     {F01 ".resources[0].lendingLimit='-500m'"},
     F01 ".resources[0].lendingLimit",
     "Invalid value: \"-500m\": must be greater than or equal"},
    {"cq lending above nominal",
     "ClusterQueue",
     {F01 ".resources[0].lendingLimit='5'"},
     F01 ".resources[0].lendingLimit",
     "Invalid value: \"5\": must be less than or equal to the nominalQuota"},
    {"cq lending equal nominal ok",
     "ClusterQueue",
     {F01 ".resources[0].lendingLimit='4'"},
     NULL,
     NULL},
    {"cq lending without cohort",
     "ClusterQueue",
     {"spec.cohortName=null", F01 ".resources[0].borrowingLimit=null"},
     F01 ".resources[0].lendingLimit",
     "Invalid value: \"1\": must be nil when cohort is empty"},
    {"cq borrowing without cohort (CEL)",
     "ClusterQueue",
     {"spec.cohortName=null"},
     "spec",
     "Invalid value: borrowingLimit must be nil when cohort is empty"},
    {"cq covered duplicated across groups",
     "ClusterQueue",
     {RG "[1].coveredResources[0]='cpu'", RG "[1].flavors[0].resources[0].name='cpu'"},
     RG "[1].coveredResources[0]",
     "Duplicate value: \"cpu\""},
    {"cq covered not a qualified name",
     "ClusterQueue",
     {RG "[1].coveredResources[0]='bad name'", RG "[1].flavors[0].resources[0].name='bad name'"},
     RG "[1].coveredResources[0]",
     "Invalid value: \"bad name\": name part must consist of"},
    {"cq flavor duplicated across groups",
     "ClusterQueue",
     {RG "[1].flavors[0].name='default'"},
     RG "[1].flavors[0].name",
     "Duplicate value: \"default\""},
    {"cq namespaceSelector In without values",
     "ClusterQueue",
     {"spec.namespaceSelector={'matchExpressions':[{'key':'team','operator':'In'}]}"},
     "spec.namespaceSelector.matchExpressions[0].values",
     "Required value"},
    {"cq namespaceSelector bad label value",
     "ClusterQueue",
     {"spec.namespaceSelector={'matchLabels':{'team':'a b'}}"},
     "spec.namespaceSelector.matchLabels",
     "Invalid value: \"a b\""},
    {"cq preference needs TryNextFlavor",
     "ClusterQueue",
     {"spec.flavorFungibility={'preference':'BorrowingOverPreemption'}"},
     "spec.flavorFungibility",
     "Invalid value: preference can only be set when both whenCanBorrow and whenCanPreempt are "
     "TryNextFlavor"},
    {"cq preference with TryNextFlavor ok",
     "ClusterQueue",
     {"spec.flavorFungibility={'whenCanBorrow':'TryNextFlavor','whenCanPreempt':'TryNextFlavor',"
      "'preference':'PreemptionOverBorrowing'}"},
     NULL,
     NULL},
    {"cq weight negative",
     "ClusterQueue",
     {"spec.fairSharing={'weight':'-1'}"},
     "spec.fairSharing",
     "Invalid value: \"-1\": must be greater than or equal to 0"},
    {"cq weight 1n",
     "ClusterQueue",
     {"spec.fairSharing={'weight':'1n'}"},
     "spec.fairSharing",
     "When not 0, weight must be > 10e-9"},
    {"cq weight 0 ok", "ClusterQueue", {"spec.fairSharing={'weight':'0'}"}, NULL, NULL},
    {"cq weight 2n ok", "ClusterQueue", {"spec.fairSharing={'weight':'2n'}"}, NULL, NULL},
    /* Kueue v0.17 does not check onFlavors against the queue's flavors
     * (pkg/webhooks/clusterqueue_webhook.go): a check on a flavor the
     * queue lacks simply never applies */
    {"cq onFlavors may name other flavors",
     "ClusterQueue",
     {"spec.admissionChecksStrategy={'admissionChecks':[{'name':'prov','onFlavors':['default',"
      "'nope']}]}"},
     NULL,
     NULL},
    {"cq lastAcceptableFlavorName must be a flavor",
     "ClusterQueue",
     {"spec.concurrentAdmissionPolicy={'migration':{'mode':'TryPreferredFlavors',"
      "'constraints':{'lastAcceptableFlavorName':'gone'}}}"},
     "spec.concurrentAdmissionPolicy.migration.constraints.lastAcceptableFlavorName",
     "Unsupported value: \"gone\""},
    /* ClusterQueue: CRD schema and CEL */
    {"cq reclaim Never with borrowWithinCohort",
     "ClusterQueue",
     {"spec.preemption={'borrowWithinCohort':{'policy':'LowerPriority'}}"},
     "spec.preemption",
     "Invalid value: reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never"},
    {"cq reclaim Any with borrowWithinCohort ok",
     "ClusterQueue",
     {"spec.preemption={'reclaimWithinCohort':'Any','borrowWithinCohort':{'policy':"
      "'LowerPriority','maxPriorityThreshold':100}}"},
     NULL,
     NULL},
    {"cq flavor duplicated in group (listMap)",
     "ClusterQueue",
     {F01 ".name='default'"},
     F01,
     "Duplicate value: {\"name\":\"default\"}"},
    {"cq resource duplicated in flavor (listMap)",
     "ClusterQueue",
     {F00 ".resources[1].name='cpu'"},
     F00 ".resources[1]",
     "Duplicate value: {\"name\":\"cpu\"}"},
    {"cq resources count != covered (CEL)",
     "ClusterQueue",
     {F00 ".resources=[{'name':'cpu','nominalQuota':'1'}]"},
     RG "[0]",
     "Invalid value: flavors must have the same number of resources as the "
     "coveredResources"},
    {"cq coveredResources minItems",
     "ClusterQueue",
     {RG "[1].coveredResources=[]", RG "[1].flavors[0].resources=[]"},
     RG "[1].coveredResources",
     "Invalid value: 0: " RG "[1].coveredResources in body should have at least 1 items"},
    {"cq flavors minItems",
     "ClusterQueue",
     {RG "[1].flavors=[]"},
     RG "[1].flavors",
     "should have at least 1 items"},
    {"cq resources minItems",
     "ClusterQueue",
     {RG "[1].flavors[0].resources=[]"},
     RG "[1].flavors[0].resources",
     "should have at least 1 items"},
    {"cq flavor name pattern",
     "ClusterQueue",
     {RG "[1].flavors[0].name='A100'"},
     RG "[1].flavors[0].name",
     "Invalid value: \"A100\": " RG "[1].flavors[0].name in body should match "
     "'^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$'"},
    {"cq cohortName pattern",
     "ClusterQueue",
     {"spec.cohortName='Bad_Cohort'"},
     "spec.cohortName",
     "Invalid value: \"Bad_Cohort\": spec.cohortName in body should match"},
    {"cq onFlavors pattern",
     "ClusterQueue",
     {"spec.admissionChecksStrategy={'admissionChecks':[{'name':'p','onFlavors':['Default']}]}"},
     "spec.admissionChecksStrategy.admissionChecks[0].onFlavors[0]",
     "in body should match"},
    {"cq migration mode required",
     "ClusterQueue",
     {"spec.concurrentAdmissionPolicy={'migration':{}}"},
     "spec.concurrentAdmissionPolicy.migration.mode",
     "Required value"},
    {"cq metadata.name subdomain",
     "ClusterQueue",
     {"metadata.name='Bad_Name'"},
     "metadata.name",
     "Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain"},
    {"cq metadata.name required",
     "ClusterQueue",
     {"metadata={}"},
     "metadata.name",
     "Required value: name or generateName is required"},
    {"cq generateName is enough", "ClusterQueue", {"metadata={'generateName':'cq-'}"}, NULL, NULL},
    /* Cohort */
    {"cohort borrowing without parent",
     "Cohort",
     {"spec.parentName=null"},
     RG "[0].flavors[0].resources[0].borrowingLimit",
     "Invalid value: \"2\": must be nil when parent is empty"},
    {"cohort lending without parent",
     "Cohort",
     {"spec.parentName=null"},
     RG "[0].flavors[0].resources[0].lendingLimit",
     "must be nil when parent is empty"},
    {"cohort parentName pattern",
     "Cohort",
     {"spec.parentName='Root'"},
     "spec.parentName",
     "in body should match"},
    {"cohort negative nominal",
     "Cohort",
     {RG "[0].flavors[0].resources[0].nominalQuota='-2'"},
     RG "[0].flavors[0].resources[0].nominalQuota",
     "must be greater than or equal to 0"},
    {"cohort resource name must match",
     "Cohort",
     {RG "[0].flavors[0].resources[0].name='gpu'"},
     RG "[0].flavors[0].resources[0].name",
     "must match the name in coveredResources"},
    {"cohort weight 1n",
     "Cohort",
     {"spec.fairSharing.weight='1n'"},
     "spec.fairSharing",
     "When not 0, weight must be > 10e-9"},
    {"cohort flavors minItems",
     "Cohort",
     {RG "[0].flavors=[]"},
     RG "[0].flavors",
     "should have at least 1 items"},
    /* LocalQueue */
    {"lq clusterQueue pattern",
     "LocalQueue",
     {"spec.clusterQueue='CQ'"},
     "spec.clusterQueue",
     "Invalid value: \"CQ\": spec.clusterQueue in body should match"},
    {"lq namespace required",
     "LocalQueue",
     {"metadata.namespace=null"},
     "metadata.namespace",
     "Required value"},
    {"lq name subdomain", "LocalQueue", {"metadata.name='a_b'"}, "metadata.name", "RFC 1123"},
    /* ResourceFlavor: CRD schema and CEL */
    {"rf taint effect (CEL)",
     "ResourceFlavor",
     {"spec.nodeTaints[0].effect='Sometimes'"},
     "spec.nodeTaints",
     "Invalid value: supported taint effect values: 'NoSchedule', 'PreferNoSchedule', "
     "'NoExecute'"},
    {"rf taint effect required",
     "ResourceFlavor",
     {"spec.nodeTaints[0].effect=null"},
     "spec.nodeTaints[0].effect",
     "Required value"},
    {"rf taint key required",
     "ResourceFlavor",
     {"spec.nodeTaints[0].key=null"},
     "spec.nodeTaints[0].key",
     "Required value"},
    {"rf toleration without key needs Exists",
     "ResourceFlavor",
     {"spec.tolerations=[{'operator':'Equal','value':'x'}]"},
     "spec.tolerations",
     "operator must be Exists when 'key' is empty, which means 'match all values and all keys'"},
    {"rf tolerationSeconds needs NoExecute",
     "ResourceFlavor",
     {"spec.tolerations[0].tolerationSeconds=30"},
     "spec.tolerations",
     "effect must be 'NoExecute' when 'tolerationSeconds' is set"},
    {"rf toleration operator enum",
     "ResourceFlavor",
     {"spec.tolerations[0].operator='Maybe'"},
     "spec.tolerations",
     "supported toleration values: 'Equal'(default), 'Exists'"},
    {"rf toleration Exists without value",
     "ResourceFlavor",
     {"spec.tolerations[0].value='x'"},
     "spec.tolerations",
     "a value must be empty when 'operator' is 'Exists'"},
    {"rf toleration effect enum",
     "ResourceFlavor",
     {"spec.tolerations[0].effect='Never'"},
     "spec.tolerations",
     "supported taint effect values"},
    {"rf topology needs a nodeLabel",
     "ResourceFlavor",
     {"spec.nodeLabels=null"},
     "spec",
     "Invalid value: at least one nodeLabel is required when topology is set"},
    {"rf topologyName pattern",
     "ResourceFlavor",
     {"spec.topologyName='Topo'"},
     "spec.topologyName",
     "in body should match"},
    {"rf nodeLabels maxProperties",
     "ResourceFlavor",
     {"spec.nodeLabels={'a':'1','b':'1','c':'1','d':'1','e':'1','f':'1','g':'1','h':'1','i':'1'}"},
     "spec.nodeLabels",
     "Too many: 9: must have at most 8 items"},
    {"rf nodeLabels 8 ok",
     "ResourceFlavor",
     {"spec.nodeLabels={'a':'1','b':'1','c':'1','d':'1','e':'1','f':'1','g':'1','h':'1'}"},
     NULL,
     NULL},
    /* ResourceFlavor: webhook */
    {"rf nodeLabels key",
     "ResourceFlavor",
     {"spec.nodeLabels={'bad key':'x'}"},
     "spec.nodeLabels",
     "Invalid value: \"bad key\": name part must consist of"},
    {"rf nodeLabels value",
     "ResourceFlavor",
     {"spec.nodeLabels={'a':'-x'}"},
     "spec.nodeLabels",
     "Invalid value: \"-x\": a valid label must be an empty string"},
    {"rf taint key",
     "ResourceFlavor",
     {"spec.nodeTaints[0].key='bad key'"},
     "spec.nodeTaints[0].key",
     "Invalid value: \"bad key\""},
    {"rf taint value",
     "ResourceFlavor",
     {"spec.nodeTaints[0].value='no way'"},
     "spec.nodeTaints[0].value",
     "Invalid value: \"no way\""},
    {"rf taints unique by key and effect",
     "ResourceFlavor",
     {"spec.nodeTaints=[{'key':'k','value':'a','effect':'NoSchedule'},{'key':'k','value':'b',"
      "'effect':'NoSchedule'}]"},
     "spec.nodeTaints[1]",
     "Duplicate value: {\"key\":\"k\",\"value\":\"b\",\"effect\":"
     "\"NoSchedule\"}: taints must be unique by key and effect pair"},
    {"rf duplicate taint without value shows none",
     "ResourceFlavor",
     {"spec.nodeTaints=[{'key':'k','effect':'NoSchedule'},{'key':'k','effect':'NoSchedule'}]"},
     "spec.nodeTaints[1]",
     "Duplicate value: {\"key\":\"k\",\"effect\":\"NoSchedule\"}: taints must be unique"},
    {"rf same key other effect ok",
     "ResourceFlavor",
     {"spec.nodeTaints=[{'key':'k','effect':'NoSchedule'},{'key':'k','effect':'NoExecute'}]"},
     NULL,
     NULL},
    {"rf toleration key",
     "ResourceFlavor",
     {"spec.tolerations[0].key='bad/key/x'"},
     "spec.tolerations[0].key",
     "Invalid value: \"bad/key/x\""},
    {"rf toleration Equal value",
     "ResourceFlavor",
     {"spec.tolerations=[{'key':'k','operator':'Equal','value':'a b'}]"},
     "spec.tolerations[0].operator",
     "Invalid value: \"a b\""},
    /* WorkloadPriorityClass, PriorityClass, Namespace */
    {"wpc name", "WorkloadPriorityClass", {"metadata.name='High'"}, "metadata.name", "RFC 1123"},
    {"wpc description past 2048 bytes",
     "WorkloadPriorityClass",
     {"description='" DESC_2049 "'"},
     "description",
     "Too long: may not be more than 2048 bytes"},
    {"wpc description at 2048 bytes ok",
     "WorkloadPriorityClass",
     {"description='" DESC_2048 "'"},
     NULL,
     NULL},
    {"pc user value cap",
     "PriorityClass",
     {"value=1000000001"},
     "value",
     "Forbidden: maximum allowed value of a user defined priority is 1000000000"},
    {"pc user value at cap ok", "PriorityClass", {"value=1000000000"}, NULL, NULL},
    {"pc system prefix reserved",
     "PriorityClass",
     {"metadata.name='system-mine'"},
     "metadata.name",
     "Forbidden: priority class names with 'system-' prefix are reserved for system use only. "
     "error: system-mine is not a known system priority class"},
    {"pc system class value",
     "PriorityClass",
     {"metadata.name='system-cluster-critical'"},
     "metadata.name",
     "value of system-cluster-critical PriorityClass must be 2000000000"},
    {"pc system class ok",
     "PriorityClass",
     {"metadata.name='system-node-critical'", "value=2000001000"},
     NULL,
     NULL},
    {"pc preemptionPolicy enum",
     "PriorityClass",
     {"preemptionPolicy='Sometimes'"},
     "preemptionPolicy",
     "Unsupported value: \"Sometimes\": supported values: \"PreemptLowerPriority\", \"Never\""},
    {"ns name is a label",
     "Namespace",
     {"metadata.name='a.b'"},
     "metadata.name",
     "must not contain dots"},
    {"ns name is a label (characters)",
     "Namespace",
     {"metadata.name='a_b'"},
     "metadata.name",
     "a lowercase RFC 1123 label"},
};

static void test_validate_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(vcases); i++) {
        const struct vcase *c = &vcases[i];
        const struct tq_kind *k = tq_kind_of(c->kind);
        struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
        union tq_any x;

        build(c->name, c->kind, c->edits, N_ELEMS(c->edits), &x);
        k->validate(&x, &errs);
        if (c->path)
            tq_assert_error(c->name, &errs, c->path, c->want);
        else
            tq_assert_no_errors(c->name, &errs);
        k->release(&x);
        ts_field_errors_release(&errs);
    }
}

static const struct ucase {
    const char *name, *kind;
    const char *old_edits[2], *new_edits[2];
    const char *path, *want;
} ucases[] = {
    {"lq clusterQueue immutable",
     "LocalQueue",
     {NULL},
     {"spec.clusterQueue='other'"},
     "spec.clusterQueue",
     "Invalid value: \"string\": field is immutable"},
    {"lq stopPolicy may change",
     "LocalQueue",
     {NULL},
     {"spec.stopPolicy='HoldAndDrain'"},
     NULL,
     NULL},
    {"lq clusterQueue may be set", "LocalQueue", {"spec.clusterQueue=null"}, {NULL}, NULL, NULL},
    {"rf topologyName immutable",
     "ResourceFlavor",
     {NULL},
     {"spec.topologyName='other'"},
     "spec.topologyName",
     "field is immutable"},
    {"rf topologyName may be set",
     "ResourceFlavor",
     {"spec.topologyName=null"},
     {NULL},
     NULL,
     NULL},
    {"cq concurrentAdmissionPolicy immutable",
     "ClusterQueue",
     {NULL},
     {"spec.concurrentAdmissionPolicy={'migration':{'mode':'RetainFirstAdmission'}}"},
     "spec.concurrentAdmissionPolicy",
     "field is immutable"},
    {"cq update runs create rules",
     "ClusterQueue",
     {NULL},
     {"spec.cohortName=null"},
     "spec",
     "borrowingLimit must be nil when cohort is empty"},
    {"cohort update runs create rules",
     "Cohort",
     {NULL},
     {"spec.parentName=null"},
     RG "[0].flavors[0].resources[0].borrowingLimit",
     "must be nil when parent is empty"},
    {"wpc value may change", "WorkloadPriorityClass", {NULL}, {"value=5"}, NULL, NULL},
    {"pc value immutable",
     "PriorityClass",
     {NULL},
     {"value=7"},
     "value",
     "Forbidden: may not be changed in an update."},
    {"pc preemptionPolicy immutable",
     "PriorityClass",
     {NULL},
     {"preemptionPolicy='Never'"},
     "preemptionPolicy",
     "Invalid value: \"Never\": field is immutable"},
};

static void test_validate_update_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(ucases); i++) {
        const struct ucase *c = &ucases[i];
        const struct tq_kind *k = tq_kind_of(c->kind);
        struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
        union tq_any o, n;

        build(c->name, c->kind, c->old_edits, N_ELEMS(c->old_edits), &o);
        build(c->name, c->kind, c->new_edits, N_ELEMS(c->new_edits), &n);
        k->validate_update(&o, &n, &errs);
        if (c->path)
            tq_assert_error(c->name, &errs, c->path, c->want);
        else
            tq_assert_no_errors(c->name, &errs);
        k->release(&o);
        k->release(&n);
        ts_field_errors_release(&errs);
    }
}

/* kube-apiserver never calls the webhook for an object the schema rejects. */
static void test_schema_errors_hide_webhook_errors(void **state)
{
    static const char *const edits[] = {"spec.cohortName='Bad'",
                                        F01 ".resources[0].lendingLimit='9'"};
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    union tq_any x;

    (void)state;
    build("schema first", "ClusterQueue", edits, N_ELEMS(edits), &x);
    ts_cluster_queue_validate(&x.cq, &errs);
    assert_int_equal(errs.n, 1);
    tq_assert_error("schema first", &errs, "spec.cohortName", "in body should match");
    ts_field_errors_release(&errs);
    free(x.cq.spec.cohort_name); /* fix the schema error: now the webhook speaks */
    x.cq.spec.cohort_name = ts_xstrdup("good");
    ts_cluster_queue_validate(&x.cq, &errs);
    assert_int_equal(errs.n, 1);
    tq_assert_error("webhook", &errs, F01 ".resources[0].lendingLimit",
                    "must be less than or equal to the nominalQuota");
    ts_field_errors_release(&errs);
    ts_cluster_queue_release(&x.cq);
}

/* A ClusterQueue of g groups, each of f flavors covering r resources. */
static char *gen_cq(size_t g, size_t f, size_t r)
{
    struct ts_buf b = TS_BUF_INIT;

    ts_buf_adds(&b, "{'metadata':{'name':'big'},'spec':{'resourceGroups':[");
    for (size_t i = 0; i < g; i++) {
        ts_buf_adds(&b, i ? ",{'coveredResources':[" : "{'coveredResources':[");
        for (size_t k = 0; k < r; k++)
            ts_buf_addf(&b, "%s'r%zu-%zu'", k ? "," : "", i, k);
        ts_buf_adds(&b, "],'flavors':[");
        for (size_t j = 0; j < f; j++) {
            ts_buf_addf(&b, "%s{'name':'f%zu-%zu','resources':[", j ? "," : "", i, j);
            for (size_t k = 0; k < r; k++)
                ts_buf_addf(&b, "%s{'name':'r%zu-%zu','nominalQuota':'1'}", k ? "," : "", i, k);
            ts_buf_adds(&b, "]}");
        }
        ts_buf_adds(&b, "]}");
    }
    ts_buf_adds(&b, "]}}");
    return ts_buf_take(&b);
}

static const struct {
    size_t g, f, r;
    const char *path, *want;
} size_cases[] = {
    {17, 1, 1, RG, "Too many: 17: must have at most 16 items"},
    {1, 65, 1, RG "[0].flavors", "Too many: 65: must have at most 64 items"},
    {1, 1, 65, RG "[0].coveredResources", "Too many: 65: must have at most 64 items"},
    {1, 1, 65, RG "[0].flavors[0].resources", "Too many: 65: must have at most 64 items"},
    {5, 64, 1, RG,
     "Invalid value: 320: total number of flavors across all resourceGroups must be ≤ 256, "
     "got 320"},
    {5, 1, 60, RG,
     "total number of covered resources across all resourceGroups must be ≤ 256, got 300"},
    {1, 9, 60, RG "[0]",
     "number of flavor-resource combinations in a resourceGroup must be ≤ 512, got 540"},
    {16, 16, 16, NULL, NULL}, /* 256 flavors, 256 resources, 256 combinations each */
};

static void test_cq_size_limits(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(size_cases); i++) {
        char *text = gen_cq(size_cases[i].g, size_cases[i].f, size_cases[i].r);
        cJSON *j = tq_json(text);
        struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
        union tq_any x;
        char name[64];

        snprintf(name, sizeof(name), "%zu groups x %zu flavors x %zu resources", size_cases[i].g,
                 size_cases[i].f, size_cases[i].r);

        tq_decode(tq_kind_of("ClusterQueue"), j, &x, &errs);
        tq_assert_no_errors("decode", &errs);
        ts_cluster_queue_validate(&x.cq, &errs);
        if (size_cases[i].path)
            tq_assert_error(name, &errs, size_cases[i].path, size_cases[i].want);
        else
            tq_assert_no_errors(name, &errs);
        ts_field_errors_release(&errs);
        ts_cluster_queue_release(&x.cq);
        cJSON_Delete(j);
        free(text);
    }
}

/* The totals across resource groups bind ClusterQueues only: Kueue's
 * Cohort webhook does not count them. */
static void test_cohort_size_not_limited(void **state)
{
    char *text = gen_cq(5, 64, 1);
    cJSON *j = tq_json(text);
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    union tq_any x;

    (void)state;
    cJSON_DeleteItemFromObjectCaseSensitive(j, "kind");
    cJSON_AddStringToObject(j, "kind", "Cohort");
    tq_decode(tq_kind_of("Cohort"), j, &x, &errs);
    tq_assert_no_errors("decode", &errs);
    ts_cohort_validate(&x.co, &errs);
    tq_assert_no_errors("cohort with 320 flavors", &errs);
    ts_field_errors_release(&errs);
    ts_cohort_release(&x.co);
    cJSON_Delete(j);
    free(text);
}

static void test_long_names(void **state)
{
    char name[400];
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    union tq_any x;

    (void)state;
    build("long", "ClusterQueue", NULL, 0, &x);
    memset(name, 'a', sizeof(name) - 1);
    name[sizeof(name) - 1] = '\0';
    free(x.cq.spec.cohort_name);
    x.cq.spec.cohort_name = ts_xstrndup(name, 254);
    x.cq.spec.admission_checks_strategy.set = 1;
    x.cq.spec.admission_checks_strategy.n = 1;
    x.cq.spec.admission_checks_strategy.items =
        ts_xcalloc(1, sizeof(struct ts_admission_check_rule));
    x.cq.spec.admission_checks_strategy.items[0].name = ts_xstrndup(name, 317);
    ts_cluster_queue_validate(&x.cq, &errs);
    tq_assert_error("cohort", &errs, "spec.cohortName", "Too long: may not be more than 253 bytes");
    tq_assert_error("check", &errs, "spec.admissionChecksStrategy.admissionChecks[0].name",
                    "Too long: may not be more than 316 bytes");
    ts_field_errors_release(&errs);
    free(x.cq.spec.admission_checks_strategy.items[0].name);
    x.cq.spec.admission_checks_strategy.items[0].name = ts_xstrndup(name, 316);
    free(x.cq.spec.cohort_name);
    x.cq.spec.cohort_name = ts_xstrndup(name, 253);
    ts_cluster_queue_validate(&x.cq, &errs);
    assert_false(tq_has_error(&errs, "spec.cohortName", "Too long"));
    assert_false(tq_has_error(&errs, "spec.admissionChecksStrategy.admissionChecks[0].name", ""));
    ts_field_errors_release(&errs);
    ts_cluster_queue_release(&x.cq);
}

/* maxItems 8 on taints and tolerations; maxItems 64 on status usage. */
static void test_list_limits(void **state)
{
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    union tq_any rf, cq;
    char res[32];

    (void)state;
    build("rf", "ResourceFlavor", NULL, 0, &rf);
    rf.rf.spec.n_node_taints = 9; /* reuse the first taint 9 times: counts only */
    rf.rf.spec.n_tolerations = 9;
    rf.rf.spec.node_taints = ts_xrealloc(rf.rf.spec.node_taints, 9 * sizeof(struct ts_taint));
    rf.rf.spec.tolerations = ts_xrealloc(rf.rf.spec.tolerations, 9 * sizeof(struct ts_toleration));
    for (size_t i = 1; i < 9; i++) {
        snprintf(res, sizeof(res), "k%zu", i);
        rf.rf.spec.node_taints[i] =
            (struct ts_taint){ts_xstrdup(res), NULL, ts_xstrdup("NoExecute")};
        rf.rf.spec.tolerations[i] =
            (struct ts_toleration){ts_xstrdup(res), NULL, NULL, NULL, {0, 0}};
    }
    ts_resource_flavor_validate(&rf.rf, &errs);
    tq_assert_error("taints", &errs, "spec.nodeTaints", "Too many: 9: must have at most 8 items");
    tq_assert_error("tols", &errs, "spec.tolerations", "Too many: 9: must have at most 8 items");
    ts_field_errors_release(&errs);
    ts_resource_flavor_release(&rf.rf);
    build("cq", "ClusterQueue", NULL, 0, &cq);
    for (int i = 0; i < 65; i++) {
        snprintf(res, sizeof(res), "f%d", i);
        ts_flavor_usages_at(&cq.cq.status.flavors_usage, res, "cpu");
    }
    ts_cluster_queue_validate(&cq.cq, &errs);
    tq_assert_error("usage", &errs, "status.flavorsUsage", "Too many: 65: must have at most 64");
    ts_field_errors_release(&errs);
    ts_cluster_queue_release(&cq.cq);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bases_are_valid),
        cmocka_unit_test(test_validate_table),
        cmocka_unit_test(test_validate_update_table),
        cmocka_unit_test(test_schema_errors_hide_webhook_errors),
        cmocka_unit_test(test_cq_size_limits),
        cmocka_unit_test(test_cohort_size_not_limited),
        cmocka_unit_test(test_long_names),
        cmocka_unit_test(test_list_limits),
    };

    ts_alloc_init();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
