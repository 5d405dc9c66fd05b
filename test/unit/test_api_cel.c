/* Table tests for turnstile-apiserver's CEL subset (api/cel.h) and the
 * CRD rule validation built on it (api/cel_rules.h): every distinct
 * x-kubernetes-validations rule of crds/ and config/external/ compiles and
 * is evaluated on inputs it accepts and refuses; operators, macros, CEL's
 * error semantics and integer overflow; malformed and hostile rules fail
 * to compile or run out of budget without crashing; the field errors
 * kube-apiserver gives (paths, values, fieldPath, reason, transition rules,
 * ratcheting, messageExpression, the schema-error note). */
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "api/cel.h"
#include "api/cel_rules.h"
#include "json/json.h"
#include "util/alloc.h"
#include "util/log.h"
#include "yaml/yaml.h"

/* JSON written with ' for " and ` for ' (the tables stay readable). */
static cJSON *js(const char *s)
{
    char *t = ts_xstrdup(s);
    cJSON *v = NULL;

    for (char *p = t; *p; p++)
        if (*p == '\'')
            *p = '"';
        else if (*p == '`')
            *p = '\'';
    if (ts_json_parse(t, strlen(t), &v, NULL))
        fail_msg("bad test JSON: %s", s);
    free(t);
    return v;
}

/* Evaluates rule on self/old: 1, 0, -1 (error), -2 (does not compile). */
static int eval_rule(const char *rule, const char *self, const char *old, struct ts_buf *err)
{
    struct ts_cel_prog *p = ts_cel_compile(rule, err);
    cJSON *s = self ? js(self) : NULL, *o = old ? js(old) : NULL;
    struct ts_cel_vars v = {s, NULL, o};
    int rc = p ? ts_cel_eval_bool(p, &v, err) : -2;

    ts_cel_free(p);
    cJSON_Delete(s);
    cJSON_Delete(o);
    return rc;
}

/* --- every rule of the CRDs ------------------------------------------------ */

#define QR          "{'type':'QuotaReserved','status':'True'}"
#define ADMITTED    "{'type':'Admitted','status':'True'}"
#define TOLERATIONS "self.all(x, "

struct rule_case {
    const char *rule, *self, *old;
    int want; /* 1 true, 0 false, -1 error */
};

static const struct rule_case rule_cases[] = {
    /* Workload, root */
    {"has(self.status) && has(self.status.conditions) && self.status.conditions.exists(c, c.type "
     "== 'QuotaReserved' && c.status == 'True') && has(self.status.admission) ? "
     "size(self.spec.podSets) == size(self.status.admission.podSetAssignments) : true",
     "{'spec':{'podSets':[{'name':'a'}]}}", NULL, 1},
    {"has(self.status) && has(self.status.conditions) && self.status.conditions.exists(c, c.type "
     "== 'QuotaReserved' && c.status == 'True') && has(self.status.admission) ? "
     "size(self.spec.podSets) == size(self.status.admission.podSetAssignments) : true",
     "{'spec':{'podSets':[{'name':'a'},{'name':'b'}]},'status':{'conditions':[" QR "],"
     "'admission':{'podSetAssignments':[{'name':'a'}]}}}",
     NULL, 0},
    {"(has(oldSelf.status) && has(oldSelf.status.conditions) && "
     "oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')) ? "
     "(oldSelf.spec.priorityClassSource == self.spec.priorityClassSource) : true",
     "{'spec':{'priorityClassSource':'b'}}", "{'spec':{'priorityClassSource':'a'}}", 1},
    {"(has(oldSelf.status) && has(oldSelf.status.conditions) && "
     "oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')) ? "
     "(oldSelf.spec.priorityClassSource == self.spec.priorityClassSource) : true",
     "{'spec':{'priorityClassSource':'b'}}",
     "{'spec':{'priorityClassSource':'a'},'status':{'conditions':[" QR "]}}", 0},
    {"(has(oldSelf.status) && has(oldSelf.status.conditions) && "
     "oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True') && "
     "has(oldSelf.spec.priorityClassName) && has(self.spec.priorityClassName) && "
     "oldSelf.spec.priorityClassSource != 'kueue.x-k8s.io/workloadpriorityclass') ? "
     "(oldSelf.spec.priorityClassName == self.spec.priorityClassName) : true",
     "{'spec':{'priorityClassName':'p','priorityClassSource':''}}",
     "{'spec':{'priorityClassName':'p','priorityClassSource':''},'status':{'conditions':[" QR "]}}",
     1},
    {"(has(oldSelf.status) && has(oldSelf.status.conditions) && "
     "oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True') && "
     "has(oldSelf.spec.priorityClassName) && has(self.spec.priorityClassName) && "
     "oldSelf.spec.priorityClassSource != 'kueue.x-k8s.io/workloadpriorityclass') ? "
     "(oldSelf.spec.priorityClassName == self.spec.priorityClassName) : true",
     "{'spec':{'priorityClassName':'q','priorityClassSource':''}}",
     "{'spec':{'priorityClassName':'p','priorityClassSource':''},'status':{'conditions':[" QR "]}}",
     0},
    {"(has(oldSelf.status) && has(oldSelf.status.conditions) && "
     "oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')) && "
     "(has(self.status) && has(self.status.conditions) && self.status.conditions.exists(c, c.type "
     "== 'QuotaReserved' && c.status == 'True')) && has(oldSelf.spec.queueName) && "
     "has(self.spec.queueName) ? oldSelf.spec.queueName == self.spec.queueName : true",
     "{'spec':{'queueName':'q2'}}", "{'spec':{'queueName':'q1'},'status':{'conditions':[" QR "]}}",
     1},
    {"(has(oldSelf.status) && has(oldSelf.status.conditions) && "
     "oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')) && "
     "(has(self.status) && has(self.status.conditions) && self.status.conditions.exists(c, c.type "
     "== 'QuotaReserved' && c.status == 'True')) && has(oldSelf.spec.queueName) && "
     "has(self.spec.queueName) ? oldSelf.spec.queueName == self.spec.queueName : true",
     "{'spec':{'queueName':'q2'},'status':{'conditions':[" QR "]}}",
     "{'spec':{'queueName':'q1'},'status':{'conditions':[" QR "]}}", 0},
    {"((has(oldSelf.status) && has(oldSelf.status.conditions) && "
     "oldSelf.status.conditions.exists(c, c.type == 'Admitted' && c.status == 'True')) && "
     "(has(self.status) && has(self.status.conditions) && self.status.conditions.exists(c, c.type "
     "== 'Admitted' && c.status == 'True'))) ? ((has(oldSelf.spec.maximumExecutionTimeSeconds) ? "
     "oldSelf.spec.maximumExecutionTimeSeconds : 0) == (has(self.spec.maximumExecutionTimeSeconds) "
     "? self.spec.maximumExecutionTimeSeconds : 0)) : true",
     "{'spec':{},'status':{'conditions':[" ADMITTED "]}}",
     "{'spec':{'maximumExecutionTimeSeconds':0},'status':{'conditions':[" ADMITTED "]}}", 1},
    {"((has(oldSelf.status) && has(oldSelf.status.conditions) && "
     "oldSelf.status.conditions.exists(c, c.type == 'Admitted' && c.status == 'True')) && "
     "(has(self.status) && has(self.status.conditions) && self.status.conditions.exists(c, c.type "
     "== 'Admitted' && c.status == 'True'))) ? ((has(oldSelf.spec.maximumExecutionTimeSeconds) ? "
     "oldSelf.spec.maximumExecutionTimeSeconds : 0) == (has(self.spec.maximumExecutionTimeSeconds) "
     "? self.spec.maximumExecutionTimeSeconds : 0)) : true",
     "{'spec':{'maximumExecutionTimeSeconds':60},'status':{'conditions':[" ADMITTED "]}}",
     "{'spec':{},'status':{'conditions':[" ADMITTED "]}}", 0},
    {"(has(oldSelf.status) && has(oldSelf.status.conditions) && "
     "oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')) ? "
     "(has(oldSelf.spec.priorityClassRef) ? (has(self.spec.priorityClassRef) && "
     "(has(oldSelf.spec.priorityClassRef.group) ? (has(self.spec.priorityClassRef.group) && "
     "self.spec.priorityClassRef.group == oldSelf.spec.priorityClassRef.group) : "
     "!has(self.spec.priorityClassRef.group)) && (has(oldSelf.spec.priorityClassRef.kind) ? "
     "(has(self.spec.priorityClassRef.kind) && self.spec.priorityClassRef.kind == "
     "oldSelf.spec.priorityClassRef.kind) : !has(self.spec.priorityClassRef.kind))) : "
     "!has(self.spec.priorityClassRef)) : true",
     "{'spec':{'priorityClassRef':{'group':'g','kind':'K','name':'b'}}}",
     "{'spec':{'priorityClassRef':{'group':'g','kind':'K','name':'a'}},'status':{'conditions':[" QR
     "]}}",
     1},
    {"(has(oldSelf.status) && has(oldSelf.status.conditions) && "
     "oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')) ? "
     "(has(oldSelf.spec.priorityClassRef) ? (has(self.spec.priorityClassRef) && "
     "(has(oldSelf.spec.priorityClassRef.group) ? (has(self.spec.priorityClassRef.group) && "
     "self.spec.priorityClassRef.group == oldSelf.spec.priorityClassRef.group) : "
     "!has(self.spec.priorityClassRef.group)) && (has(oldSelf.spec.priorityClassRef.kind) ? "
     "(has(self.spec.priorityClassRef.kind) && self.spec.priorityClassRef.kind == "
     "oldSelf.spec.priorityClassRef.kind) : !has(self.spec.priorityClassRef.kind))) : "
     "!has(self.spec.priorityClassRef)) : true",
     "{'spec':{'priorityClassRef':{'group':'g','kind':'Other','name':'a'}}}",
     "{'spec':{'priorityClassRef':{'group':'g','kind':'K','name':'a'}},'status':{'conditions':[" QR
     "]}}",
     0},
    {"(has(oldSelf.status) && has(oldSelf.status.conditions) && "
     "oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True') && "
     "has(oldSelf.spec.priorityClassRef) && has(self.spec.priorityClassRef) && "
     "!(has(oldSelf.spec.priorityClassRef.kind) && oldSelf.spec.priorityClassRef.kind == "
     "'WorkloadPriorityClass')) ? (oldSelf.spec.priorityClassRef.name == "
     "self.spec.priorityClassRef.name) : true",
     "{'spec':{'priorityClassRef':{'kind':'WorkloadPriorityClass','name':'b'}}}",
     "{'spec':{'priorityClassRef':{'kind':'WorkloadPriorityClass','name':'a'}},'status':{"
     "'conditions':[" QR "]}}",
     1},
    {"(has(oldSelf.status) && has(oldSelf.status.conditions) && "
     "oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True') && "
     "has(oldSelf.spec.priorityClassRef) && has(self.spec.priorityClassRef) && "
     "!(has(oldSelf.spec.priorityClassRef.kind) && oldSelf.spec.priorityClassRef.kind == "
     "'WorkloadPriorityClass')) ? (oldSelf.spec.priorityClassRef.name == "
     "self.spec.priorityClassRef.name) : true",
     "{'spec':{'priorityClassRef':{'kind':'PriorityClass','name':'b'}}}",
     "{'spec':{'priorityClassRef':{'kind':'PriorityClass','name':'a'}},'status':{'conditions':[" QR
     "]}}",
     0},
    /* Workload spec, podSets, status */
    {"has(self.priorityClassName) ? has(self.priority) : true",
     "{'priorityClassName':'p',"
     "'priority':1}",
     NULL, 1},
    {"has(self.priorityClassName) ? has(self.priority) : true", "{'priorityClassName':'p'}", NULL,
     0},
    {"has(self.priorityClassRef) ? has(self.priority) : true", "{}", NULL, 1},
    {"has(self.priorityClassRef) ? has(self.priority) : true", "{'priorityClassRef':{'name':'p'}}",
     NULL, 0},
    {"has(self.minCount) ? self.minCount <= self.count : true", "{'count':2,'minCount':2}", NULL,
     1},
    {"has(self.minCount) ? self.minCount <= self.count : true", "{'count':1,'minCount':2}", NULL,
     0},
    /* Kueue's rule: clusterName may be cleared, not changed */
    {"!has(oldSelf.clusterName) || !has(self.clusterName) || oldSelf.clusterName == "
     "self.clusterName",
     "{'clusterName':'a'}", "{'clusterName':'a'}", 1},
    {"!has(oldSelf.clusterName) || !has(self.clusterName) || oldSelf.clusterName == "
     "self.clusterName",
     "{}", "{'clusterName':'a'}", 1},
    {"!has(oldSelf.clusterName) || !has(self.clusterName) || oldSelf.clusterName == "
     "self.clusterName",
     "{'clusterName':'b'}", "{'clusterName':'a'}", 0},
    {"!has(self.clusterName) || (!has(self.nominatedClusterNames) || "
     "(has(self.nominatedClusterNames) && size(self.nominatedClusterNames) == 0))",
     "{'clusterName':'a','nominatedClusterNames':[]}", NULL, 1},
    {"!has(self.clusterName) || (!has(self.nominatedClusterNames) || "
     "(has(self.nominatedClusterNames) && size(self.nominatedClusterNames) == 0))",
     "{'clusterName':'a','nominatedClusterNames':['b']}", NULL, 0},
    /* tolerations */
    {TOLERATIONS "!has(x.operator) || x.operator in ['Equal', 'Exists'])",
     "[{},{'operator':'Equal'}]", NULL, 1},
    {TOLERATIONS "!has(x.operator) || x.operator in ['Equal', 'Exists'])", "[{'operator':'Has'}]",
     NULL, 0},
    {TOLERATIONS "!has(x.effect) || x.effect in ['NoSchedule', 'PreferNoSchedule', 'NoExecute'])",
     "[{'effect':'NoSchedule'}]", NULL, 1},
    {TOLERATIONS "!has(x.effect) || x.effect in ['NoSchedule', 'PreferNoSchedule', 'NoExecute'])",
     "[{'effect':'Bad'}]", NULL, 0},
    {"self.all(x, x.effect in ['NoSchedule', 'PreferNoSchedule', 'NoExecute'])",
     "[{'effect':'NoExecute'}]", NULL, 1},
    {"self.all(x, x.effect in ['NoSchedule', 'PreferNoSchedule', 'NoExecute'])",
     "[{'effect':'Bad'}]", NULL, 0},
    {"self.all(x, x.effect in ['NoSchedule', 'PreferNoSchedule', 'NoExecute'])", "[{'key':'k'}]",
     NULL, -1},
    /* LocalQueue and others */
    {"self == oldSelf", "'cq'", "'cq'", 1},
    {"self == oldSelf", "'cq2'", "'cq'", 0},
    {"self == oldSelf", "{'a':[1,{'b':2}]}", "{'a':[1,{'b':2}]}", 1},
    {"self == oldSelf", "{'a':[1,{'b':2}]}", "{'a':[1,{'b':3}]}", 0},
    /* ClusterQueue, Cohort */
    {"self.flavors.all(x, size(x.resources) == size(self.coveredResources))",
     "{'coveredResources':['cpu'],'flavors':[{'name':'f','resources':[{'name':'cpu'}]}]}", NULL, 1},
    {"self.flavors.all(x, size(x.resources) == size(self.coveredResources))",
     "{'coveredResources':['cpu','memory'],'flavors':[{'name':'f','resources':[{'name':'cpu'}]}]}",
     NULL, 0},
    {"!has(self.cohort) && has(self.resourceGroups) ? self.resourceGroups.all(rg, "
     "rg.flavors.all(f, f.resources.all(r, !has(r.borrowingLimit)))) : true",
     "{'cohort':'c','resourceGroups':[{'flavors':[{'resources':[{'borrowingLimit':1}]}]}]}", NULL,
     1},
    {"!has(self.cohort) && has(self.resourceGroups) ? self.resourceGroups.all(rg, "
     "rg.flavors.all(f, f.resources.all(r, !has(r.borrowingLimit)))) : true",
     "{'resourceGroups':[{'flavors':[{'resources':[{'borrowingLimit':1}]}]}]}", NULL, 0},
    {"!has(self.cohortName) && has(self.resourceGroups) ? self.resourceGroups.all(rg, "
     "rg.flavors.all(f, f.resources.all(r, !has(r.borrowingLimit)))) : true",
     "{'resourceGroups':[{'flavors':[{'resources':[{'nominalQuota':1}]}]}]}", NULL, 1},
    {"!has(self.cohortName) && has(self.resourceGroups) ? self.resourceGroups.all(rg, "
     "rg.flavors.all(f, f.resources.all(r, !has(r.borrowingLimit)))) : true",
     "{'resourceGroups':[{'flavors':[{'resources':[{}]},{'resources':[{'borrowingLimit':0}]}]}]}",
     NULL, 0},
    {"!(has(self.admissionChecks) && has(self.admissionChecksStrategy))",
     "{'admissionChecks':['a']}", NULL, 1},
    {"!(has(self.admissionChecks) && has(self.admissionChecksStrategy))",
     "{'admissionChecks':['a'],'admissionChecksStrategy':{}}", NULL, 0},
    {"!has(self.preference) || (self.whenCanBorrow == 'TryNextFlavor' && self.whenCanPreempt == "
     "'TryNextFlavor')",
     "{'preference':'x','whenCanBorrow':'TryNextFlavor','whenCanPreempt':'TryNextFlavor'}", NULL,
     1},
    {"!has(self.preference) || (self.whenCanBorrow == 'TryNextFlavor' && self.whenCanPreempt == "
     "'TryNextFlavor')",
     "{'preference':'x','whenCanBorrow':'MayStopSearch','whenCanPreempt':'TryNextFlavor'}", NULL,
     0},
    {"!(self.reclaimWithinCohort == 'Never' && has(self.borrowWithinCohort) && "
     "self.borrowWithinCohort.policy != 'Never')",
     "{'reclaimWithinCohort':'Any','borrowWithinCohort':{'policy':'LowerPriority'}}", NULL, 1},
    {"!(self.reclaimWithinCohort == 'Never' && has(self.borrowWithinCohort) && "
     "self.borrowWithinCohort.policy != 'Never')",
     "{'reclaimWithinCohort':'Never','borrowWithinCohort':{'policy':'LowerPriority'}}", NULL, 0},
    /* ResourceFlavor */
    {"!has(self.topologyName) || (has(self.nodeLabels) && size(self.nodeLabels) >= 1)",
     "{'topologyName':'t','nodeLabels':{'a':'b'}}", NULL, 1},
    {"!has(self.topologyName) || (has(self.nodeLabels) && size(self.nodeLabels) >= 1)",
     "{'topologyName':'t'}", NULL, 0},
    {"!has(oldSelf.topologyName) || (has(self.topologyName) && self.topologyName == "
     "oldSelf.topologyName)",
     "{'topologyName':'t'}", "{}", 1},
    {"!has(oldSelf.topologyName) || (has(self.topologyName) && self.topologyName == "
     "oldSelf.topologyName)",
     "{'topologyName':'u'}", "{'topologyName':'t'}", 0},
    /* Topology */
    {"size(self.filter(i, size(self.filter(j, j == i)) > 1)) == 0",
     "[{'nodeLabel':'a'},{'nodeLabel':'b'}]", NULL, 1},
    {"size(self.filter(i, size(self.filter(j, j == i)) > 1)) == 0",
     "[{'nodeLabel':'a'},{'nodeLabel':'a'}]", NULL, 0},
    {"size(self.filter(i, i.nodeLabel == 'kubernetes.io/hostname')) == 0 || self[size(self) - "
     "1].nodeLabel == 'kubernetes.io/hostname'",
     "[{'nodeLabel':'zone'},{'nodeLabel':'kubernetes.io/hostname'}]", NULL, 1},
    {"size(self.filter(i, i.nodeLabel == 'kubernetes.io/hostname')) == 0 || self[size(self) - "
     "1].nodeLabel == 'kubernetes.io/hostname'",
     "[{'nodeLabel':'kubernetes.io/hostname'},{'nodeLabel':'zone'}]", NULL, 0},
    /* Kueue v0.17's rules (crds/ took them verbatim) */
    {"(has(oldSelf.status) && has(oldSelf.status.conditions) && "
     "oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == "
     "'True') && (self.spec.priorityClassSource != "
     "'kueue.x-k8s.io/workloadpriorityclass') && has(oldSelf.spec.priorityClassName) && "
     "has(self.spec.priorityClassName)) ? (oldSelf.spec.priorityClassName == "
     "self.spec.priorityClassName) : true",
     "{'spec':{'priorityClassName':'p','priorityClassSource':''}}",
     "{'spec':{'priorityClassName':'p'},'status':{'conditions':[{'type':'QuotaReserved','s"
     "tatus':'True'}]}}",
     1},
    {"(has(oldSelf.status) && has(oldSelf.status.conditions) && "
     "oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == "
     "'True') && (self.spec.priorityClassSource != "
     "'kueue.x-k8s.io/workloadpriorityclass') && has(oldSelf.spec.priorityClassName) && "
     "has(self.spec.priorityClassName)) ? (oldSelf.spec.priorityClassName == "
     "self.spec.priorityClassName) : true",
     "{'spec':{'priorityClassName':'q','priorityClassSource':''}}",
     "{'spec':{'priorityClassName':'p'},'status':{'conditions':[{'type':'QuotaReserved','s"
     "tatus':'True'}]}}",
     0},
    {"((has(oldSelf.status) && has(oldSelf.status.conditions) && "
     "oldSelf.status.conditions.exists(c, c.type == 'Admitted' && c.status == 'True')) && "
     "(has(self.status) && has(self.status.conditions) && "
     "self.status.conditions.exists(c, c.type == 'Admitted' && c.status == "
     "'True')))?((has(oldSelf.spec.maximumExecutionTimeSeconds)?oldSelf.spec.maximumExecut"
     "ionTimeSeconds:0) ==  "
     "(has(self.spec.maximumExecutionTimeSeconds)?self.spec.maximumExecutionTimeSeconds:0)"
     "):true",
     "{'spec':{},'status':{'conditions':[{'type':'Admitted','status':'True'}]}}",
     "{'spec':{'maximumExecutionTimeSeconds':0},'status':{'conditions':[{'type':'Admitted'"
     ",'status':'True'}]}}",
     1},
    {"((has(oldSelf.status) && has(oldSelf.status.conditions) && "
     "oldSelf.status.conditions.exists(c, c.type == 'Admitted' && c.status == 'True')) && "
     "(has(self.status) && has(self.status.conditions) && "
     "self.status.conditions.exists(c, c.type == 'Admitted' && c.status == "
     "'True')))?((has(oldSelf.spec.maximumExecutionTimeSeconds)?oldSelf.spec.maximumExecut"
     "ionTimeSeconds:0) ==  "
     "(has(self.spec.maximumExecutionTimeSeconds)?self.spec.maximumExecutionTimeSeconds:0)"
     "):true",
     "{'spec':{'maximumExecutionTimeSeconds':60},'status':{'conditions':[{'type':'Admitted"
     "','status':'True'}]}}",
     "{'spec':{},'status':{'conditions':[{'type':'Admitted','status':'True'}]}}", 0},
    {"(has(oldSelf.status) && has(oldSelf.status.conditions) && "
     "oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == "
     "'True')) ? (!has(oldSelf.spec.priorityClassRef) && "
     "!has(self.spec.priorityClassRef)) || (has(oldSelf.spec.priorityClassRef) && "
     "has(self.spec.priorityClassRef)) : true",
     "{'spec':{'priorityClassRef':{'name':'b'}}}",
     "{'spec':{'priorityClassRef':{'name':'a'}},'status':{'conditions':[{'type':'QuotaRese"
     "rved','status':'True'}]}}",
     1},
    {"(has(oldSelf.status) && has(oldSelf.status.conditions) && "
     "oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == "
     "'True')) ? (!has(oldSelf.spec.priorityClassRef) && "
     "!has(self.spec.priorityClassRef)) || (has(oldSelf.spec.priorityClassRef) && "
     "has(self.spec.priorityClassRef)) : true",
     "{'spec':{}}",
     "{'spec':{'priorityClassRef':{'name':'a'}},'status':{'conditions':[{'type':'QuotaRese"
     "rved','status':'True'}]}}",
     0},
    {"(has(oldSelf.status) && has(oldSelf.status.conditions) && "
     "oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == "
     "'True') && has(oldSelf.spec.priorityClassRef) && has(self.spec.priorityClassRef)) ? "
     "oldSelf.spec.priorityClassRef.group == self.spec.priorityClassRef.group : true",
     "{'spec':{'priorityClassRef':{'group':'g','kind':'k','name':'b'}}}",
     "{'spec':{'priorityClassRef':{'group':'g','kind':'k','name':'a'}},'status':{'conditio"
     "ns':[{'type':'QuotaReserved','status':'True'}]}}",
     1},
    {"(has(oldSelf.status) && has(oldSelf.status.conditions) && "
     "oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == "
     "'True') && has(oldSelf.spec.priorityClassRef) && has(self.spec.priorityClassRef)) ? "
     "oldSelf.spec.priorityClassRef.group == self.spec.priorityClassRef.group : true",
     "{'spec':{'priorityClassRef':{'group':'h','kind':'k','name':'a'}}}",
     "{'spec':{'priorityClassRef':{'group':'g','kind':'k','name':'a'}},'status':{'conditio"
     "ns':[{'type':'QuotaReserved','status':'True'}]}}",
     0},
    {"(has(oldSelf.status) && has(oldSelf.status.conditions) && "
     "oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == "
     "'True') && has(oldSelf.spec.priorityClassRef) && has(self.spec.priorityClassRef)) ? "
     "oldSelf.spec.priorityClassRef.kind == self.spec.priorityClassRef.kind : true",
     "{'spec':{'priorityClassRef':{'group':'g','kind':'k','name':'b'}}}",
     "{'spec':{'priorityClassRef':{'group':'g','kind':'k','name':'a'}},'status':{'conditio"
     "ns':[{'type':'QuotaReserved','status':'True'}]}}",
     1},
    {"(has(oldSelf.status) && has(oldSelf.status.conditions) && "
     "oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == "
     "'True') && has(oldSelf.spec.priorityClassRef) && has(self.spec.priorityClassRef)) ? "
     "oldSelf.spec.priorityClassRef.kind == self.spec.priorityClassRef.kind : true",
     "{'spec':{'priorityClassRef':{'group':'g','kind':'l','name':'a'}}}",
     "{'spec':{'priorityClassRef':{'group':'g','kind':'k','name':'a'}},'status':{'conditio"
     "ns':[{'type':'QuotaReserved','status':'True'}]}}",
     0},
    {"(has(oldSelf.status) && has(oldSelf.status.conditions) && "
     "oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == "
     "'True') && has(oldSelf.spec.priorityClassRef) && has(self.spec.priorityClassRef) && "
     "self.spec.priorityClassRef.group == 'scheduling.k8s.io' && "
     "self.spec.priorityClassRef.kind == 'PriorityClass') ? "
     "oldSelf.spec.priorityClassRef.name == self.spec.priorityClassRef.name : true",
     "{'spec':{'priorityClassRef':{'group':'kueue.x-k8s.io','kind':'WorkloadPriorityClass'"
     ",'name':'b'}}}",
     "{'spec':{'priorityClassRef':{'group':'kueue.x-k8s.io','kind':'WorkloadPriorityClass'"
     ",'name':'a'}},'status':{'conditions':[{'type':'QuotaReserved','status':'True'}]}}",
     1},
    {"(has(oldSelf.status) && has(oldSelf.status.conditions) && "
     "oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == "
     "'True') && has(oldSelf.spec.priorityClassRef) && has(self.spec.priorityClassRef) && "
     "self.spec.priorityClassRef.group == 'scheduling.k8s.io' && "
     "self.spec.priorityClassRef.kind == 'PriorityClass') ? "
     "oldSelf.spec.priorityClassRef.name == self.spec.priorityClassRef.name : true",
     "{'spec':{'priorityClassRef':{'group':'scheduling.k8s.io','kind':'PriorityClass','nam"
     "e':'b'}}}",
     "{'spec':{'priorityClassRef':{'group':'scheduling.k8s.io','kind':'PriorityClass','nam"
     "e':'a'}},'status':{'conditions':[{'type':'QuotaReserved','status':'True'}]}}",
     0},
    {"!has(self.priorityClassRef) || has(self.priority)",
     "{'priorityClassRef':{'name':'a'},'priority':1}", NULL, 1},
    {"!has(self.priorityClassRef) || has(self.priority)", "{'priorityClassRef':{'name':'a'}}", NULL,
     0},
    {"(self.group == 'scheduling.k8s.io') ? self.kind == 'PriorityClass' : true",
     "{'group':'scheduling.k8s.io','kind':'PriorityClass','name':'a'}", NULL, 1},
    {"(self.group == 'scheduling.k8s.io') ? self.kind == 'PriorityClass' : true",
     "{'group':'scheduling.k8s.io','kind':'WorkloadPriorityClass','name':'a'}", NULL, 0},
    {"(self.group == 'kueue.x-k8s.io') ? self.kind == 'WorkloadPriorityClass' : true",
     "{'group':'kueue.x-k8s.io','kind':'WorkloadPriorityClass','name':'a'}", NULL, 1},
    {"(self.group == 'kueue.x-k8s.io') ? self.kind == 'WorkloadPriorityClass' : true",
     "{'group':'kueue.x-k8s.io','kind':'PriorityClass','name':'a'}", NULL, 0},
    {"!(self.reclaimWithinCohort == 'Never' && has(self.borrowWithinCohort) &&  "
     "self.borrowWithinCohort.policy != 'Never')",
     "{'reclaimWithinCohort':'Any','borrowWithinCohort':{'policy':'LowerPriority'}}", NULL, 1},
    {"!(self.reclaimWithinCohort == 'Never' && has(self.borrowWithinCohort) &&  "
     "self.borrowWithinCohort.policy != 'Never')",
     "{'reclaimWithinCohort':'Never','borrowWithinCohort':{'policy':'LowerPriority'}}", NULL, 0},
    {"!has(self.topologyName) || self.nodeLabels.size() >= 1",
     "{'topologyName':'t','nodeLabels':{'a':'b'}}", NULL, 1},
    {"!has(self.topologyName) || self.nodeLabels.size() >= 1",
     "{'topologyName':'t','nodeLabels':{}}", NULL, 0},
    {"!has(self.topologyName) || self.nodeLabels.size() >= 1", "{'topologyName':'t'}", NULL, -1},
    {"!has(oldSelf.topologyName) || (has(self.nodeLabels) == has(oldSelf.nodeLabels) && "
     "(!has(self.nodeLabels) || self.nodeLabels == oldSelf.nodeLabels))",
     "{'topologyName':'t','nodeLabels':{'a':'b'}}", "{'topologyName':'t','nodeLabels':{'a':'b'}}",
     1},
    {"!has(oldSelf.topologyName) || (has(self.nodeLabels) == has(oldSelf.nodeLabels) && "
     "(!has(self.nodeLabels) || self.nodeLabels == oldSelf.nodeLabels))",
     "{'topologyName':'t','nodeLabels':{'a':'c'}}", "{'topologyName':'t','nodeLabels':{'a':'b'}}",
     0},
    {"!has(oldSelf.topologyName) || (has(self.tolerations) == has(oldSelf.tolerations) && "
     "(!has(self.tolerations) || self.tolerations == oldSelf.tolerations))",
     "{'topologyName':'t'}", "{'topologyName':'t'}", 1},
    {"!has(oldSelf.topologyName) || (has(self.tolerations) == has(oldSelf.tolerations) && "
     "(!has(self.tolerations) || self.tolerations == oldSelf.tolerations))",
     "{'topologyName':'t','tolerations':[{'key':'k','operator':'Exists'}]}", "{'topologyName':'t'}",
     0},
    {"self.all(x, !has(x.key) ? x.operator == 'Exists' : true)",
     "[{'operator':'Exists'},{'key':'k'}]", NULL, 1},
    {"self.all(x, !has(x.key) ? x.operator == 'Exists' : true)", "[{'operator':'Equal'}]", NULL, 0},
    {"self.all(x, !has(x.key) ? x.operator == 'Exists' : true)", "[{'effect':'NoSchedule'}]", NULL,
     -1},
    {"self.all(x, has(x.tolerationSeconds) ? x.effect == 'NoExecute' : true)",
     "[{'key':'k','effect':'NoExecute','tolerationSeconds':5},{'key':'j'}]", NULL, 1},
    {"self.all(x, has(x.tolerationSeconds) ? x.effect == 'NoExecute' : true)",
     "[{'key':'k','effect':'NoSchedule','tolerationSeconds':5}]", NULL, 0},
    {"self.all(x, has(x.operator) && x.operator == 'Exists' ? !has(x.value) : true)",
     "[{'key':'k','operator':'Exists'},{'key':'j','value':'v'}]", NULL, 1},
    {"self.all(x, has(x.operator) && x.operator == 'Exists' ? !has(x.value) : true)",
     "[{'key':'k','operator':'Exists','value':'v'}]", NULL, 0},
};

static void test_rule_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(rule_cases) / sizeof(rule_cases[0]); i++) {
        const struct rule_case *c = &rule_cases[i];
        struct ts_buf err = TS_BUF_INIT;
        int got = eval_rule(c->rule, c->self, c->old, &err);

        if (got != c->want)
            fail_msg("case %zu: %s\n  on %s (old %s): want %d got %d (%s)", i, c->rule, c->self,
                     c->old ? c->old : "-", c->want, got, err.ptr);
        ts_buf_release(&err);
    }
}

struct crd_walk {
    size_t rules, distinct;
    struct ts_buf missing;
};

/* Whether the table has both an accepted and a refused input for rule. */
static int covered(const char *rule)
{
    int yes = 0, no = 0;

    for (size_t i = 0; i < sizeof(rule_cases) / sizeof(rule_cases[0]); i++) {
        if (strcmp(rule_cases[i].rule, rule))
            continue;
        yes |= rule_cases[i].want == 1;
        no |= rule_cases[i].want == 0;
    }
    return yes && no;
}

static void walk_schema(const cJSON *n, struct crd_walk *w, struct ts_strlist *seen)
{
    const cJSON *c, *v;

    if (cJSON_IsObject(n)) {
        cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(n, "x-kubernetes-validations"))
        {
            const char *rule = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(v, "rule"));
            struct ts_buf err = TS_BUF_INIT;
            struct ts_cel_prog *p = ts_cel_compile(rule, &err);

            if (!p)
                fail_msg("a rule of the CRDs does not compile: %s: %s", rule, err.ptr);
            ts_cel_free(p);
            ts_buf_release(&err);
            w->rules++;
            if (ts_strlist_index(seen, rule) >= 0)
                continue;
            ts_strlist_push(seen, rule);
            w->distinct++;
            if (!covered(rule))
                ts_buf_addf(&w->missing, "  %s\n", rule);
        }
    }
    cJSON_ArrayForEach(c, n)
    {
        if (cJSON_IsObject(c) || cJSON_IsArray(c))
            walk_schema(c, w, seen);
    }
}

/* Every rule of crds/ and config/external/ compiles, has a passing and a
 * failing case above, and every CRD version's rules build a rule tree. */
static void test_crd_rules(void **state)
{
    static const char *const globs[] = {"crds/*.yaml", "config/external/*.yaml"};
    struct crd_walk w = {0, 0, TS_BUF_INIT};
    struct ts_strlist seen = TS_STRLIST_INIT;

    (void)state;
    for (size_t g = 0; g < 2; g++) {
        glob_t gl;

        assert_int_equal(glob(globs[g], 0, NULL, &gl), 0);
        for (size_t f = 0; f < gl.gl_pathc; f++) {
            struct ts_yaml_stream s = TS_YAML_STREAM_INIT;
            struct ts_err err = {0};
            const cJSON *v;

            if (ts_yaml_decode_file(gl.gl_pathv[f], &s, &err))
                fail_msg("%s: %s", gl.gl_pathv[f], err.msg);
            for (size_t d = 0; d < s.n; d++) {
                walk_schema(s.docs[d].root, &w, &seen);
                cJSON_ArrayForEach(v, ts_json_get(s.docs[d].root, "spec.versions"))
                {
                    const cJSON *schema = ts_json_get(v, "schema.openAPIV3Schema");
                    struct ts_cel_rules *r = ts_cel_rules_new(schema, gl.gl_pathv[f]);

                    ts_cel_rules_free(r);
                }
            }
            ts_yaml_stream_release(&s);
        }
        globfree(&gl);
    }
    if (w.missing.len)
        fail_msg("rules of the CRDs without an accepting and a refusing case:\n%s", w.missing.ptr);
    assert_true(w.distinct >= 29);
    ts_buf_release(&w.missing);
    ts_strlist_release(&seen);
}

/* --- expressions ----------------------------------------------------------- */

struct expr_case {
    const char *expr, *self;
    const char *want;     /* result as JSON (with ' for "), or NULL for an error */
    const char *want_err; /* substring of the error */
};

static const struct expr_case expr_cases[] = {
    /* literals and arithmetic */
    {"1 + 2 * 3", NULL, "7", NULL},
    {"(1 + 2) * 3", NULL, "9", NULL},
    {"7 / 2", NULL, "3", NULL},
    {"-7 / 2", NULL, "-3", NULL},
    {"-7 % 3", NULL, "-1", NULL},
    {"7.0 / 2.0", NULL, "3.5", NULL},
    {"1.5e1 - .5", NULL, "14.5", NULL},
    {"0x1F + 1", NULL, "32", NULL},
    {"017 + 08", NULL, "25", NULL},
    {"3u * 2u", NULL, "6", NULL},
    {"- -3", NULL, "3", NULL},
    {"--3 == 3", NULL, "true", NULL},
    {"'a' + \"b\" + '''c'd''' + \"\"\"e\"\"\"", NULL, "'abc\\u0027de'", NULL},
    {"'a\\nb'.size()", NULL, "3", NULL},
    {"r'a\\nb'.size()", NULL, "4", NULL},
    {"'\\x41\\u00e9\\101'", NULL, "'A\\u00e9A'", NULL},
    {"size('h\\u00e9llo')", NULL, "5", NULL},
    {"[1, 2] + [3]", NULL, "[1,2,3]", NULL},
    {"[1, 2,]", NULL, "[1,2]", NULL},
    {"[]", NULL, "[]", NULL},
    {"null", NULL, "null", NULL},
    {"size([1, [2, 3]])", NULL, "2", NULL},
    {"[[1, 2], [3]][0][1]", NULL, "2", NULL},
    /* relations */
    {"1 < 2.5 && 2.0 == 2 && 3u > 2 && 'a' < 'b' && 'ab' > 'a' && false < true", NULL, "true",
     NULL},
    {"1 == 'a'", NULL, "false", NULL},
    {"null == null && [1, 'a'] == [1, 'a'] && [1] != [2]", NULL, "true", NULL},
    {"'x' in ['x', 'y'] && !(3 in [1, 2])", NULL, "true", NULL},
    {"'k' in self && !('z' in self)", "{'k':1}", "true", NULL},
    {"self == {'b':[1],'a':'x'}", NULL, NULL, "map literals"},
    {"self.m == self.n", "{'m':{'a':1,'b':[2]},'n':{'b':[2],'a':1}}", "true", NULL},
    {"self.m == self.n", "{'m':{'a':1},'n':{'a':1,'b':2}}", "false", NULL},
    {"1 < 'a'", NULL, NULL, "no such overload"},
    {"double('NaN') < 1.0 || double('NaN') >= 1 || double('NaN') == double('NaN')", NULL, "false",
     NULL},
    /* logic and conditionals */
    {"true ? 1 : 2", NULL, "1", NULL},
    {"false ? 1 : true ? 2 : 3", NULL, "2", NULL},
    {"1 ? 1 : 2", NULL, NULL, "no such overload"},
    {"!1", NULL, NULL, "no such overload"},
    {"-'a'", NULL, NULL, "no such overload"},
    {"!!true", NULL, "true", NULL},
    {"self.missing == 1 || true", "{}", "true", NULL},
    {"true || self.missing", "{}", "true", NULL},
    {"self.missing && false", "{}", "false", NULL},
    {"false && self.missing", "{}", "false", NULL},
    {"self.missing || false", "{}", NULL, "no such key: missing"},
    {"true && self.missing", "{}", NULL, "no such key: missing"},
    {"1 || true", NULL, "true", NULL},
    {"1 || false", NULL, NULL, "no such overload"},
    /* selection, indexing, has */
    {"self.a.b", "{'a':{'b':[true]}}", "[true]", NULL},
    {"self.a.b", "{'a':{}}", NULL, "no such key: b"},
    {"self.a.b", "{'a':1}", NULL, "no such overload"},
    {"has(self.a.b)", "{'a':{}}", "false", NULL},
    {"has(self.a)", "{'a':null}", "true", NULL},
    {"has(self.a.b)", "{}", NULL, "no such key: a"},
    {"self.l[1]", "{'l':[1,2]}", "2", NULL},
    {"self.l[2]", "{'l':[1,2]}", NULL, "index out of bounds: 2"},
    {"self.l[-1]", "{'l':[1,2]}", NULL, "index out of bounds"},
    {"self['k']", "{'k':'v'}", "'v'", NULL},
    {"self['z']", "{'k':'v'}", NULL, "no such key: z"},
    {"self[0]", "{'k':'v'}", NULL, "no such overload"},
    {"self.x / 2", "{'x':3}", "1", NULL},
    {"self.x / 2", "{'x':3.5}", NULL, "no such overload"},
    {"oldSelf", "{}", NULL, "no such attribute: oldSelf"},
    /* macros */
    {"[1, 2, 3].all(x, x > 0)", NULL, "true", NULL},
    {"[1, 2, 3].all(x, x > 1)", NULL, "false", NULL},
    {"[].all(x, x > 1)", NULL, "true", NULL},
    {"[1, 2, 3].exists(x, x == 2)", NULL, "true", NULL},
    {"[1, 2, 2].exists_one(x, x == 2)", NULL, "false", NULL},
    {"[1, 2, 3].exists_one(x, x == 2)", NULL, "true", NULL},
    {"[1, 2, 3].filter(x, x > 1)", NULL, "[2,3]", NULL},
    {"[1, 2, 3].map(x, x * 2)", NULL, "[2,4,6]", NULL},
    {"[1, 2, 3].map(x, x > 1, x * 10)", NULL, "[20,30]", NULL},
    {"self.all(k, k.startsWith('a'))", "{'ab':1,'ac':2}", "true", NULL},
    {"self.map(k, self[k])", "{'ab':1,'ac':2}", "[1,2]", NULL},
    {"[1, 0].all(x, 1 / x > 5)", NULL, "false", NULL},
    {"[0, 1].all(x, 1 / x > 0)", NULL, NULL, "division by zero"},
    {"[0, 1].exists(x, 1 / x == 1)", NULL, "true", NULL},
    {"[0, 1].exists_one(x, 1 / x == 1)", NULL, NULL, "division by zero"},
    {"[1, 2].all(x, x)", NULL, NULL, "no such overload"},
    {"[[1, 2], [3]].all(x, x.all(y, y > 0))", NULL, "true", NULL},
    {"[1].all(x, [2].all(x, x == 2))", NULL, "true", NULL},
    {"1.all(x, true)", NULL, NULL, "no such overload"},
    /* functions */
    {"'abc'.startsWith('ab') && 'abc'.endsWith('bc') && !'abc'.contains('x')", NULL, "true", NULL},
    {"int('42') + 1", NULL, "43", NULL},
    {"int('4x')", NULL, NULL, "type conversion error"},
    {"int(2.9) + int(3u)", NULL, "5", NULL},
    {"int(1e19)", NULL, NULL, "range error"},
    {"uint(-1)", NULL, NULL, "range error"},
    {"string(42) + string(-1) + string(true) + string(1.5)", NULL, "'42-1true1.5'", NULL},
    {"double(1) / 2.0", NULL, "0.5", NULL},
    {"size(1)", NULL, NULL, "no such overload"},
    /* overflow and division are errors, never wrap */
    {"9223372036854775807 + 1", NULL, NULL, "integer overflow"},
    {"-9223372036854775808 - 1", NULL, NULL, "integer overflow"},
    {"-9223372036854775808 < 0", NULL, "true", NULL},
    {"9223372036854775807 * 2", NULL, NULL, "integer overflow"},
    {"-(-9223372036854775808)", NULL, NULL, "integer overflow"},
    {"-9223372036854775808 / -1", NULL, NULL, "integer overflow"},
    {"-9223372036854775808 % -1", NULL, NULL, "integer overflow"},
    {"1 / 0", NULL, NULL, "division by zero"},
    {"1 % 0", NULL, NULL, "modulus by zero"},
    {"0u - 1u", NULL, NULL, "integer overflow"},
    {"18446744073709551615u + 1u", NULL, NULL, "integer overflow"},
    {"1 + 1.0", NULL, NULL, "no such overload"},
    {"1.0 % 1.0", NULL, NULL, "no such overload"},
    {"self.n * self.n", "{'n':4294967296}", NULL, "integer overflow"},
    /* comments and spacing */
    {"1 + // one\n 2", NULL, "3", NULL},
};

static void test_expressions(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(expr_cases) / sizeof(expr_cases[0]); i++) {
        const struct expr_case *c = &expr_cases[i];
        struct ts_buf err = TS_BUF_INIT, got = TS_BUF_INIT, want = TS_BUF_INIT;
        struct ts_cel_prog *p = ts_cel_compile(c->expr, &err);
        cJSON *self = c->self ? js(c->self) : NULL, *out = NULL, *w;
        struct ts_cel_vars v = {self, NULL, NULL};
        int rc;

        if (!p && c->want_err && strstr(err.ptr, c->want_err)) {
            cJSON_Delete(self);
            ts_buf_release(&err);
            continue;
        }
        if (!p)
            fail_msg("case %zu: %s does not compile: %s", i, c->expr, err.ptr);
        rc = ts_cel_eval(p, &v, &out, &err);
        if (c->want) {
            if (rc)
                fail_msg("case %zu: %s: error %s", i, c->expr, err.ptr);
            w = js(c->want);
            ts_json_print(out, TS_JSON_COMPACT, &got, NULL);
            ts_json_print(w, TS_JSON_COMPACT, &want, NULL);
            if (strcmp(got.ptr, want.ptr))
                fail_msg("case %zu: %s: want %s got %s", i, c->expr, want.ptr, got.ptr);
            cJSON_Delete(w);
        } else if (!rc || !strstr(err.ptr, c->want_err)) {
            ts_json_print(out, TS_JSON_COMPACT, &got, NULL);
            fail_msg("case %zu: %s: want error '%s', got %s %s", i, c->expr, c->want_err,
                     rc ? "error" : got.ptr, err.ptr);
        }
        cJSON_Delete(out);
        cJSON_Delete(self);
        ts_cel_free(p);
        ts_buf_release(&err);
        ts_buf_release(&got);
        ts_buf_release(&want);
    }
}

/* A rule that is not a bool is an error; a messageExpression is a string. */
static void test_bool_and_string(void **state)
{
    struct ts_buf b = TS_BUF_INIT;
    struct ts_cel_prog *p = ts_cel_compile("1 + 1", NULL);
    cJSON *self = js("{'n':3}");
    struct ts_cel_vars v = {self, NULL, NULL};

    (void)state;
    assert_int_equal(ts_cel_eval_bool(p, &v, &b), -1);
    assert_string_equal(b.ptr, "no such overload");
    ts_buf_reset(&b);
    assert_int_equal(ts_cel_eval_string(p, &v, &b), -1);
    ts_cel_free(p);
    ts_buf_reset(&b);
    p = ts_cel_compile("'n is ' + string(self.n)", NULL);
    assert_int_equal(ts_cel_eval_string(p, &v, &b), 0);
    assert_string_equal(b.ptr, "n is 3");
    ts_cel_free(p);
    p = ts_cel_compile("oldSelf.n == self.n", NULL);
    assert_true(ts_cel_uses_old_self(p));
    ts_cel_free(p);
    p = ts_cel_compile("[1].all(oldSelf, oldSelf == 1)", NULL);
    assert_false(ts_cel_uses_old_self(p));
    ts_cel_free(p);
    cJSON_Delete(self);
    ts_buf_release(&b);
}

/* --- malformed and hostile rules -------------------------------------------- */

static char *repeat(const char *pre, const char *mid, const char *post, int n)
{
    struct ts_buf b = TS_BUF_INIT;

    for (int i = 0; i < n; i++)
        ts_buf_adds(&b, pre);
    ts_buf_adds(&b, mid);
    for (int i = 0; i < n; i++)
        ts_buf_adds(&b, post);
    return ts_buf_take(&b);
}

static void test_malformed(void **state)
{
    static const char *const bad[] = {
        "",
        "   ",
        "1 +",
        "(1",
        "1)",
        "self.",
        "self..a",
        "foo",
        "foo(1)",
        "self.foo()",
        "size()",
        "size(1, 2)",
        "'a'.startsWith()",
        "self.all(1, true)",
        "self.all(x)",
        "self.all(x, true, false)",
        "self.map(x, 1, 2, 3)",
        "has(self)",
        "has(1)",
        "{}",
        "'unterminated",
        "\"also",
        "'''never closed",
        "'line\nbreak'",
        "1 ? 2",
        "self[",
        "self[1",
        "[1, 2",
        "9223372036854775808",
        "99999999999999999999",
        "b'x'",
        "'\\q'",
        "'\\u12'",
        "'\\uD800'",
        "1a",
        "0x",
        "@",
        "-",
        "x.all(y, true)",
        "self.all(x, y)",
        "1 == = 2",
        "self.1",
        ". self",
    };
    static const struct {
        const char *pre, *mid, *post;
    } deep[] = {
        {"(", "1", ")"},          {"!", "true", ""},
        {"-", "1.0", ""},         {"[", "1", "]"},
        {"", "self", ".a"},       {"", "1", " + 1"},
        {"size(", "'x'", ")"},    {"", "self", "[0]"},
        {"true ? 1 : ", "2", ""}, {"[1].all(x, ", "true", ")"},
        {"", "true", " && true"}, {"", "self", ".size()"},
    };
    struct ts_buf err = TS_BUF_INIT;

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct ts_cel_prog *p;

        ts_buf_reset(&err);
        p = ts_cel_compile(bad[i], &err);
        if (p)
            fail_msg("'%s' compiled", bad[i]);
        if (!err.len)
            fail_msg("'%s': no reason given", bad[i]);
    }
    for (size_t i = 0; i < sizeof(deep) / sizeof(deep[0]); i++) {
        char *shallow = repeat(deep[i].pre, deep[i].mid, deep[i].post, 10);
        char *hostile = repeat(deep[i].pre, deep[i].mid, deep[i].post, 100000);
        struct ts_cel_prog *p = ts_cel_compile(shallow, NULL);

        if (!p)
            fail_msg("%s does not compile", shallow);
        ts_cel_free(p);
        ts_buf_reset(&err);
        if ((p = ts_cel_compile(hostile, &err)))
            fail_msg("a %zu-byte nest of %s%s compiled", strlen(hostile), deep[i].pre,
                     deep[i].post);
        free(shallow);
        free(hostile);
    }
    assert_null(ts_cel_compile(NULL, NULL));
    ts_buf_release(&err);
}

/* Random token soup compiles or not, evaluates or not, never crashes. */
static void test_token_soup(void **state)
{
    static const char *const toks[] = {
        "self",
        "oldSelf",
        ".",
        "a",
        "x",
        "(",
        ")",
        "[",
        "]",
        ",",
        "1",
        "0",
        "-",
        "!",
        "+",
        "*",
        "/",
        "%",
        "==",
        "<",
        "&&",
        "||",
        "?",
        ":",
        "in",
        "'s'",
        "2.5",
        "null",
        "true",
        "size",
        "has",
        "all",
        "exists",
        "map",
        "filter",
        "exists_one",
        "9223372036854775807",
        "{",
        "u",
        " ",
        "'''",
        "\\",
    };
    cJSON *self = js("{'a':[1,2,{'a':'x'}],'x':{'a':null},'n':9223372036854775807}");
    struct ts_cel_vars v = {self, NULL, self};
    unsigned seed = 12345;

    (void)state;
    for (int i = 0; i < 20000; i++) {
        struct ts_buf src = TS_BUF_INIT, err = TS_BUF_INIT;
        int n = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 24;
        struct ts_cel_prog *p;
        cJSON *out = NULL;

        for (int k = 0; k < n; k++) {
            seed = seed * 1103515245u + 12345u;
            ts_buf_adds(&src, toks[(seed >> 16) % (sizeof(toks) / sizeof(toks[0]))]);
        }
        if ((p = ts_cel_compile(src.ptr, &err))) {
            ts_cel_eval(p, &v, &out, &err);
            cJSON_Delete(out);
            ts_cel_free(p);
        }
        ts_buf_release(&src);
        ts_buf_release(&err);
    }
    cJSON_Delete(self);
}

/* Quadratic and cubic rules over a big list stop at the step budget. */
static void test_budget(void **state)
{
    cJSON *self = cJSON_CreateArray();
    struct ts_cel_vars v = {self, NULL, NULL};
    struct ts_buf err = TS_BUF_INIT;
    struct ts_cel_prog *p;

    (void)state;
    for (int i = 0; i < 3000; i++)
        cJSON_AddItemToArray(self, cJSON_CreateNumber(i));
    p = ts_cel_compile("size(self.filter(i, size(self.filter(j, j == i)) > 1)) == 0", NULL);
    assert_int_equal(ts_cel_eval_bool(p, &v, &err), -1);
    assert_non_null(strstr(err.ptr, "cost limit exceeded"));
    ts_cel_free(p);
    ts_buf_reset(&err);
    p = ts_cel_compile("self.map(a, self.map(b, self.map(c, string(a) + string(b))))", NULL);
    assert_int_equal(ts_cel_eval_bool(p, &v, &err), -1);
    assert_non_null(strstr(err.ptr, "cost limit exceeded"));
    ts_cel_free(p);
    ts_buf_reset(&err);
    p = ts_cel_compile("self.all(a, self.exists(b, a == b || self.missing))", NULL);
    assert_int_equal(ts_cel_eval_bool(p, &v, &err), -1);
    ts_cel_free(p);
    cJSON_Delete(self);
    ts_buf_release(&err);
}

/* --- the rule tree and kube-apiserver's field errors ------------------------- */

static const char *const schema_json =
    "{'type':'object',"
    " 'x-kubernetes-validations':[{'rule':'has(self.spec)','message':'spec required'}],"
    " 'properties':{"
    "  'status':{'type':'object','x-kubernetes-preserve-unknown-fields':true},"
    "  'spec':{'type':'object',"
    "   'x-kubernetes-validations':["
    "     {'rule':'!has(self.a) || has(self.b)','message':'b needed with a'},"
    "     {'rule':'!has(oldSelf.t) || (has(self.t) && self.t == oldSelf.t)',"
    "      'message':'field is immutable','fieldPath':'.t'},"
    "     {'rule':'!has(self.k) || self.k != 1','message':'k','fieldPath':'[`labels`][`x`]'}],"
    "   'properties':{"
    "    'a':{'type':'string'},'b':{'type':'string'},'t':{'type':'string'},"
    "    "
    "'k':{'type':'integer'},'labels':{'type':'object','additionalProperties':{'type':'string'}},"
    "    'n':{'type':'integer','x-kubernetes-validations':[{'rule':'self < 10',"
    "      'messageExpression':'\\'n too big: \\' + string(self)'}]},"
    "    'm':{'type':'integer','x-kubernetes-validations':[{'rule':'self > 0',"
    "      'message':'m must be positive','messageExpression':'self.nope'}]},"
    "    'r':{'type':'number','x-kubernetes-validations':[{'rule':'self < 1.5'}]},"
    "    's':{'type':'string','x-kubernetes-validations':[{'rule':'self != `bad`'}]},"
    "    'f':{'type':'string','x-kubernetes-validations':[{'rule':'self == oldSelf',"
    "      'message':'immutable','reason':'FieldValueForbidden'}]},"
    "    'req':{'type':'string','x-kubernetes-validations':[{'rule':'self != ``',"
    "      'message':'must be set','reason':'FieldValueRequired'}]},"
    "    'dup':{'type':'object','x-kubernetes-validations':[{'rule':'false',"
    "      'message':'dup','reason':'FieldValueDuplicate'}]},"
    "    'e':{'type':'object','x-kubernetes-validations':[{'rule':'self.missing == 1',"
    "      'message':'m'}]},"
    "    'bad':{'type':'string','x-kubernetes-validations':[{'rule':'self ==','message':'x'},"
    "      {'rule':'  '}]},"
    "    'items':{'type':'array','x-kubernetes-list-type':'map',"
    "     'x-kubernetes-list-map-keys':['name'],"
    "     'items':{'type':'object','properties':{'name':{'type':'string'},"
    "      'v':{'type':'integer'}},"
    "      'x-kubernetes-validations':[{'rule':'self.v == oldSelf.v','message':'v is immutable'},"
    "       {'rule':'self.v >= 0','message':'v >= 0'}]}},"
    "    'atomic':{'type':'array','items':{'type':'object',"
    "      'x-kubernetes-validations':[{'rule':'self.v == oldSelf.v','message':'never runs'}]}},"
    "    'labels2':{'type':'object','additionalProperties':{'type':'string',"
    "      'x-kubernetes-validations':[{'rule':'self.size() < 3','message':'short'}]}}"
    "}}}}";

struct check_case {
    const char *obj, *old;
    const char *want;     /* errors formatted and joined by " | " */
    const char *warnings; /* joined by " | " */
};

static const struct check_case check_cases[] = {
    {"{'spec':{}}", NULL, "", ""},
    {"{}", NULL, "<nil>: Invalid value: spec required", ""},
    {"{'spec':{'a':'x'}}", NULL, "spec: Invalid value: b needed with a", ""},
    {"{'spec':{'n':12}}", NULL, "spec.n: Invalid value: 12: n too big: 12", ""},
    {"{'spec':{'m':0}}", NULL, "spec.m: Invalid value: 0: m must be positive", ""},
    {"{'spec':{'r':2.5}}", NULL, "spec.r: Invalid value: 2.5: failed rule: self < 1.5", ""},
    {"{'spec':{'s':'bad'}}", NULL, "spec.s: Invalid value: \"bad\": failed rule: self != 'bad'",
     ""},
    {"{'spec':{'k':1}}", NULL, "spec.labels[x]: Invalid value: k", ""},
    {"{'spec':{'req':''}}", NULL, "spec.req: Required value: must be set", ""},
    {"{'spec':{'dup':{}}}", NULL, "spec.dup: Duplicate value", ""},
    {"{'spec':{'e':{}}}", NULL,
     "spec.e: Invalid value: \"object\": no such key: missing evaluating rule: m", ""},
    {"{'spec':{'bad':'x'}}", NULL, "", ""},
    {"{'spec':{'labels2':{'a':'xyz','b':'x'}}}", NULL,
     "spec.labels2[a]: Invalid value: \"xyz\": short", ""},
    /* transition rules: skipped on create, run on update */
    {"{'spec':{'t':'a','f':'x'}}", NULL, "", ""},
    {"{'spec':{'t':'b'}}", "{'spec':{'t':'a'}}", "spec.t: Invalid value: field is immutable", ""},
    {"{'spec':{}}", "{'spec':{'t':'a'}}", "spec.t: Invalid value: field is immutable", ""},
    {"{'spec':{'t':'a'}}", "{'spec':{}}", "", ""},
    {"{'spec':{'f':'b'}}", "{'spec':{'f':'a'}}", "spec.f: Forbidden: immutable", ""},
    /* list-type=map items correlate by key, atomic lists not at all */
    {"{'spec':{'items':[{'name':'b','v':2},{'name':'a','v':2}]}}",
     "{'spec':{'items':[{'name':'a','v':1}]}}", "spec.items[1]: Invalid value: v is immutable", ""},
    {"{'spec':{'atomic':[{'v':2}]}}", "{'spec':{'atomic':[{'v':1}]}}", "", ""},
    /* ratcheting: an unchanged value's failures are warnings */
    {"{'spec':{'a':'x'},'status':{'s':2}}", "{'spec':{'a':'x'},'status':{'s':1}}", "",
     "spec: Invalid value: b needed with a"},
    {"{'spec':{'a':'x','s':'ok'}}", "{'spec':{'a':'x'}}", "spec: Invalid value: b needed with a",
     ""},
    {"{'spec':{'items':[{'name':'a','v':-1},{'name':'b','v':-2}]}}",
     "{'spec':{'items':[{'name':'a','v':-1}]}}", "spec.items[1]: Invalid value: v >= 0",
     "spec.items[0]: Invalid value: v >= 0"},
};

static void join_errors(const struct ts_field_errors *errs, struct ts_buf *out)
{
    for (size_t i = 0; i < errs->n; i++) {
        if (i)
            ts_buf_adds(out, " | ");
        ts_field_error_format(&errs->items[i], out);
    }
}

static void test_rules_check(void **state)
{
    cJSON *schema = js(schema_json);
    struct ts_cel_rules *r = ts_cel_rules_new(schema, "test");

    (void)state;
    assert_non_null(r);
    for (size_t i = 0; i < sizeof(check_cases) / sizeof(check_cases[0]); i++) {
        const struct check_case *c = &check_cases[i];
        struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
        struct ts_strlist warnings = TS_STRLIST_INIT;
        struct ts_buf got = TS_BUF_INIT, gotw = TS_BUF_INIT;
        cJSON *obj = js(c->obj), *old = c->old ? js(c->old) : NULL;

        ts_cel_rules_check(r, obj, old, &errs, &warnings);
        join_errors(&errs, &got);
        for (size_t k = 0; k < warnings.n; k++)
            ts_buf_addf(&gotw, "%s%s", k ? " | " : "", warnings.items[k]);
        if (strcmp(got.ptr, c->want) || strcmp(gotw.ptr, c->warnings))
            fail_msg("case %zu: %s (old %s):\n  want [%s] warnings [%s]\n  got  [%s] warnings [%s]",
                     i, c->obj, c->old ? c->old : "-", c->want, c->warnings, got.ptr, gotw.ptr);
        ts_field_errors_release(&errs);
        ts_strlist_release(&warnings);
        ts_buf_release(&got);
        ts_buf_release(&gotw);
        cJSON_Delete(obj);
        cJSON_Delete(old);
    }
    ts_cel_rules_free(r);
    cJSON_Delete(schema);
}

/* A schema error that stops the rules adds kube-apiserver's note and runs
 * none; one that does not (an Invalid value) lets them run. */
static void test_rules_blocked(void **state)
{
    cJSON *schema = js(schema_json), *obj = js("{'spec':{'a':'x'}}");
    struct ts_cel_rules *r = ts_cel_rules_new(schema, "test");
    struct ts_field_errors errs = TS_FIELD_ERRORS_INIT;
    struct ts_buf got = TS_BUF_INIT;

    (void)state;
    ts_field_errors_add(&errs, TS_FIELD_NOT_SUPPORTED, "spec.q", "X", 1, "supported values: Y");
    ts_cel_rules_check(r, obj, NULL, &errs, NULL);
    join_errors(&errs, &got);
    assert_string_equal(got.ptr,
                        "spec.q: Unsupported value: \"X\": supported values: Y | <nil>: Invalid "
                        "value: null: some validation rules were not checked because the object "
                        "was invalid; correct the existing errors to complete validation");
    ts_field_errors_release(&errs);
    ts_buf_reset(&got);
    ts_field_errors_add(&errs, TS_FIELD_INVALID, "spec.n", "0", 0, "must be positive");
    ts_cel_rules_check(r, obj, NULL, &errs, NULL);
    join_errors(&errs, &got);
    assert_string_equal(got.ptr, "spec.n: Invalid value: 0: must be positive | spec: Invalid "
                                 "value: b needed with a");
    ts_field_errors_release(&errs);
    ts_cel_rules_check(NULL, obj, NULL, &errs, NULL);
    assert_int_equal(errs.n, 0);
    {
        cJSON *plain = js("{'type':'object','properties':{'a':{'type':'string'}}}");

        assert_null(ts_cel_rules_new(plain, "none"));
        cJSON_Delete(plain);
    }
    ts_cel_rules_free(r);
    cJSON_Delete(schema);
    cJSON_Delete(obj);
    ts_buf_release(&got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rule_table),    cmocka_unit_test(test_crd_rules),
        cmocka_unit_test(test_expressions),   cmocka_unit_test(test_bool_and_string),
        cmocka_unit_test(test_malformed),     cmocka_unit_test(test_token_soup),
        cmocka_unit_test(test_budget),        cmocka_unit_test(test_rules_check),
        cmocka_unit_test(test_rules_blocked),
    };

    ts_alloc_init();
    ts_log_set_level(TS_LOG_ERROR); /* the skipped rules' warnings are expected */
    return cmocka_run_group_tests(tests, NULL, NULL);
}
