package main

// validate --old: one object through kube-apiserver's update path for a
// Kueue custom resource and Kueue's validating webhook, in the order the
// API server runs them (k8s.io/apiextensions-apiserver
// pkg/registry/customresource strategy.go and status_strategy.go): CRD
// defaults on both objects (the stored one is defaulted when read), then
// PrepareForUpdate (an update of the object keeps the stored status, one
// of /status keeps everything but the status), ObjectMeta's update rules,
// the schema and list types with ratcheting (a value unchanged from the
// old object is not refused again), the CEL rules with oldSelf and, only
// when all of that passed, the validating webhook's ValidateUpdate.
// Kueue's mutating webhooks serve CREATE only, so none runs here.

import (
	"context"
	"fmt"

	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	apiextvalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/common"
)

// prepareForUpdate returns the object the API server validates: with the
// stored status on an update of the object, the stored object with the
// sent status on one of /status (both only where the version serves
// /status).
func prepareForUpdate(v *crdschemaVersion, raw, old map[string]any, status bool) map[string]any {
	if !v.HasStatus {
		return raw
	}
	if status {
		st, ok := raw["status"]
		out := runtime.DeepCopyJSON(old)
		delete(out, "status")
		if ok {
			out["status"] = st
		}
		return out
	}
	delete(raw, "status")
	if st, ok := old["status"]; ok {
		raw["status"] = runtime.DeepCopyJSONValue(st)
	}
	return raw
}

// resourceVersion: the client sends the stored object's, which the update
// rules require; where the documents carry none, "1" stands for it (and
// is not part of the answer).  Returns whether it was set on raw.
func setResourceVersion(raw, old map[string]any) bool {
	set := false
	for i, m := range []map[string]any{raw, old} {
		if md, ok := m["metadata"].(map[string]any); ok {
			if _, has := md["resourceVersion"]; !has {
				md["resourceVersion"] = "1"
				set = set || i == 0
			}
		}
	}
	return set
}

// crdUpdateErrors: what the custom resource strategy's ValidateUpdate (or
// the status strategy's) refuses.
func crdUpdateErrors(v *crdschemaVersion, raw, old map[string]any, status bool) field.ErrorList {
	corr := common.NewCorrelatedObject(raw, old, &model.Structural{Structural: v.Structural})
	errs := apivalidation.ValidateObjectMetaAccessorUpdate(&unstructured.Unstructured{Object: raw},
		&unstructured.Unstructured{Object: old}, field.NewPath("metadata"))
	if !status {
		errs = append(errs, apiextvalidation.ValidateCustomResourceUpdate(nil, raw, old, v.Validator,
			apiextvalidation.WithRatcheting(corr))...)
		if len(structurallisttype.ValidateListSetsAndMaps(nil, v.Structural, old)) == 0 {
			errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, v.Structural, raw)...)
		}
	} else {
		if st, ok := raw["status"]; ok && v.StatusValidator != nil {
			errs = append(errs, apiextvalidation.ValidateCustomResourceUpdate(field.NewPath("status"), st,
				old["status"], v.StatusValidator, apiextvalidation.WithRatcheting(corr.Key("status")))...)
		}
		if ne := structurallisttype.ValidateListSetsAndMaps(nil, v.Structural, raw); len(ne) > 0 &&
			len(structurallisttype.ValidateListSetsAndMaps(nil, v.Structural, old)) == 0 {
			errs = append(errs, ne...)
		}
	}
	if blocking(errs) {
		errs = append(errs, field.Invalid(nil, nil, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"))
	} else if v.CEL != nil {
		celErrs, _ := v.CEL.Validate(context.Background(), nil, v.Structural, raw, old,
			celconfig.RuntimeCELCostBudget, cel.WithRatcheting(corr))
		errs = append(errs, celErrs...)
	}
	return errs
}

func validateUpdateDoc(crds crdSchemas, d, od doc, status bool) validation {
	if d.err != nil || od.err != nil {
		err := d.err
		if err == nil {
			err = fmt.Errorf("old object: %w", od.err)
		}
		return validation{Errors: []fieldError{}, Error: err.Error()}
	}
	raw, old := d.raw, od.raw
	res := validation{APIVersion: str(raw, "apiVersion"), Kind: str(raw, "kind"), Errors: []fieldError{}}
	info, version, err := kindOf(raw)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	if str(old, "apiVersion") != res.APIVersion || str(old, "kind") != res.Kind {
		res.Error = fmt.Sprintf("old object: apiVersion %q, kind %q: not the new object's", str(old, "apiVersion"), str(old, "kind"))
		return res
	}
	v := crds[res.Kind][version]
	if v == nil {
		res.Error = fmt.Sprintf("no CRD for %s %s", res.Kind, version)
		return res
	}
	if status && !v.HasStatus {
		res.Error = fmt.Sprintf("%s %s serves no status subresource", res.Kind, version)
		return res
	}
	res.Name, res.Namespace = fixNamespace(v, raw)
	fixNamespace(v, old)
	structuraldefaulting.Default(old, v.Structural)
	structuraldefaulting.Default(raw, v.Structural)
	rvSet := setResourceVersion(raw, old)
	raw = prepareForUpdate(v, raw, old, status)
	crdErrs := crdUpdateErrors(v, raw, old, status)
	hub, err := toHub(info, version, raw)
	if err != nil {
		res.Errors = fieldErrors(crdErrs)
		if len(crdErrs) == 0 {
			res.Errors = append(res.Errors, decodeError(err))
		}
		return res
	}
	errs := crdErrs
	if len(errs) == 0 && info.validateUpdate != nil && (!status || info.statusWebhook) {
		oldHub, err := toHub(info, version, old)
		if err != nil {
			res.Error = "old object: " + err.Error()
			return res
		}
		errs = info.validateUpdate(hub, oldHub)
	}
	if rvSet {
		hub.SetResourceVersion("")
	}
	res.Errors = fieldErrors(errs)
	res.Allowed = len(errs) == 0
	res.Object = normalised(hub)
	return res
}
