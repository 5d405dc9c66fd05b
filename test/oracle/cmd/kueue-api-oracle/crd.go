package main

// Kueue's CustomResourceDefinitions as kube-apiserver applies them to a
// custom resource on create: structural defaults, ObjectMeta rules, the
// OpenAPI schema, list-type invariants and, when none of those produced a
// blocking error, the CEL rules (x-kubernetes-validations).

import (
	"context"

	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	apiextvalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"

	"turnstile.dev/test/oracle/internal/crdschema"
)

// crdSchemas: Kueue's CRDs, per kind and version (internal/crdschema).
type crdSchemas = crdschema.Schemas

type crdschemaVersion = crdschema.Version

func loadCRDs(dir string) (crdSchemas, error) { return crdschema.Load(dir) }

// blocking: the error types after which kube-apiserver skips the CEL
// rules (customresource strategy's hasBlockingErr).
func blocking(errs field.ErrorList) bool {
	for _, e := range errs {
		switch e.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong,
			field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return true
		}
	}
	return false
}

// defaultAndValidate applies the CRD's defaults to raw in place and returns
// what kube-apiserver's custom resource strategy would refuse on create.
func defaultAndValidate(c crdSchemas, kind, version string, raw map[string]any) field.ErrorList {
	v := c[kind][version]
	if v == nil {
		return field.ErrorList{field.NotSupported[string](field.NewPath("apiVersion"), version, nil)}
	}
	structuraldefaulting.Default(raw, v.Structural)
	u := &unstructured.Unstructured{Object: raw}
	errs := apivalidation.ValidateObjectMetaAccessor(u, v.Namespaced, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	errs = append(errs, apiextvalidation.ValidateCustomResource(nil, raw, v.Validator)...)
	errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, v.Structural, raw)...)
	if blocking(errs) {
		errs = append(errs, field.Invalid(nil, nil, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"))
	} else if v.CEL != nil {
		celErrs, _ := v.CEL.Validate(context.Background(), nil, v.Structural, raw, nil, celconfig.RuntimeCELCostBudget)
		errs = append(errs, celErrs...)
	}
	return errs
}
