package main

// Kueue's CustomResourceDefinitions as kube-apiserver applies them to a
// custom resource on create: structural defaults, ObjectMeta rules, the
// OpenAPI schema, list-type invariants and, when none of those produced a
// blocking error, the CEL rules (x-kubernetes-validations). The loading
// code is the kueue-oracle command's, copied so that the two commands
// build independently.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	apiext "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	apiextvalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	sigsyaml "sigs.k8s.io/yaml"
)

type crdVersion struct {
	structural *structuralschema.Structural
	validator  apiextvalidation.SchemaValidator
	cel        *cel.Validator
	namespaced bool
}

// crdSchemas: kind -> version -> schema.
type crdSchemas map[string]map[string]*crdVersion

func loadCRDs(dir string) (crdSchemas, error) {
	files, err := filepath.Glob(filepath.Join(dir, "kueue.x-k8s.io_*.yaml"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no Kueue CRDs under %s (give --crds DIR)", dir)
	}
	out := crdSchemas{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var crd apiextv1.CustomResourceDefinition
		if err := sigsyaml.Unmarshal(b, &crd); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		kind := crd.Spec.Names.Kind
		out[kind] = map[string]*crdVersion{}
		for _, v := range crd.Spec.Versions {
			if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
				continue
			}
			internal := &apiext.JSONSchemaProps{}
			if err := apiextv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v.Schema.OpenAPIV3Schema, internal, nil); err != nil {
				return nil, fmt.Errorf("%s %s: %w", kind, v.Name, err)
			}
			ss, err := structuralschema.NewStructural(internal)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", kind, v.Name, err)
			}
			val, _, err := apiextvalidation.NewSchemaValidator(internal)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", kind, v.Name, err)
			}
			out[kind][v.Name] = &crdVersion{
				structural: ss,
				validator:  val,
				cel:        cel.NewValidator(ss, true, celconfig.PerCallLimit),
				namespaced: crd.Spec.Scope == apiextv1.NamespaceScoped,
			}
		}
	}
	return out, nil
}

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
func (c crdSchemas) defaultAndValidate(kind, version string, raw map[string]any) field.ErrorList {
	v := c[kind][version]
	if v == nil {
		return field.ErrorList{field.NotSupported[string](field.NewPath("apiVersion"), version, nil)}
	}
	structuraldefaulting.Default(raw, v.structural)
	u := &unstructured.Unstructured{Object: raw}
	errs := apivalidation.ValidateObjectMetaAccessor(u, v.namespaced, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	errs = append(errs, apiextvalidation.ValidateCustomResource(nil, raw, v.validator)...)
	errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, v.structural, raw)...)
	if blocking(errs) {
		errs = append(errs, field.Invalid(nil, nil, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"))
	} else if v.cel != nil {
		celErrs, _ := v.cel.Validate(context.Background(), nil, v.structural, raw, nil, celconfig.RuntimeCELCostBudget)
		errs = append(errs, celErrs...)
	}
	return errs
}
