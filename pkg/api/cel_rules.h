/*
 * cel_rules.h - the x-kubernetes-validations rules of a CRD version's
 * schema, compiled once, and their evaluation on a custom resource as
 * kube-apiserver does it (apiextensions-apiserver
 * pkg/apiserver/schema/cel/validation.go): each rule applies to the value
 * at its schema node (self); a transition rule (one using oldSelf) runs
 * only on update and only where the old object has a value correlated to
 * it (object fields by name, x-kubernetes-list-type=map items by their
 * keys; other list items are not correlated); on update, a failure of a
 * rule without oldSelf whose value (or nearest correlated ancestor) is
 * unchanged is a warning, not an error (ratcheting).  Pure.
 *
 * Messages: "<path>: Invalid value: <value>: <message>", the value
 * omitted for objects and lists, "<nil>" as the path of the root; the
 * message is messageExpression's result when it evaluates to a usable
 * string, else `message`, else "failed rule: <rule>"; fieldPath extends the
 * path; reason picks the error type (FieldValueForbidden, ...Required,
 * ...Duplicate, else ...Invalid).  A rule that fails to evaluate gives
 * "<path>: Invalid value: \"<schema type>\": <error> evaluating rule:
 * <message or rule>".  Not supported: allOf rules, optionalOldSelf (such
 * rules run only where an old value exists), cost budgets beyond
 * TS_CEL_MAX_STEPS per rule.
 *
 * Ownership: a ts_cel_rules borrows the schema it was built from, which
 * must outlive it; the caller frees it with ts_cel_rules_free().  It is
 * read-only after ts_cel_rules_new(), so threads may share it.
 */
#ifndef TS_API_CEL_RULES_H
#define TS_API_CEL_RULES_H

#include <cJSON.h>

#include "api/field.h"
#include "util/strlist.h"

struct ts_cel_rules;

/* Compiles every rule of schema (a CRD version's openAPIV3Schema).
 * Returns NULL when the schema has no rules.  A rule that does not
 * compile is logged once, naming `what` (e.g. the CRD and version), and
 * skipped. */
struct ts_cel_rules *ts_cel_rules_new(const cJSON *schema, const char *what);
void ts_cel_rules_free(struct ts_cel_rules *r);

/* The CEL step of a custom resource's validation, after its schema
 * validation filled errs: when errs holds an error that stops the rules
 * (kube-apiserver's hasBlockingErr: Unsupported value, Required value,
 * Too long, Too many, a wrong type) appends the cause "<nil>: Invalid
 * value: null: some validation rules were not checked ..."; otherwise
 * evaluates the rules on obj (old: the stored object on update, NULL on
 * create), appending failures to errs and the texts of ratcheted ones to
 * warnings (may be NULL).  Does nothing when r is NULL. */
void ts_cel_rules_check(const struct ts_cel_rules *r, const cJSON *obj, const cJSON *old,
                        struct ts_field_errors *errs, struct ts_strlist *warnings);

#endif
