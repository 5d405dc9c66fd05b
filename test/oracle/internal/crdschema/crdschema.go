// Package crdschema compiles Kueue's CustomResourceDefinitions (the
// kueue.x-k8s.io_*.yaml files of a directory) into what kube-apiserver
// checks a custom resource with: per kind and version, the structural
// schema (defaults, pruning, list types), the OpenAPI validator and the CEL
// rules. Both oracle commands read their input through it.
package crdschema

import (
	"fmt"
	"os"
	"path/filepath"

	apiext "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	apiextvalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	sigsyaml "sigs.k8s.io/yaml"
)

// Version is one served version of a CRD.
type Version struct {
	Structural *structuralschema.Structural
	Validator  apiextvalidation.SchemaValidator
	CEL        *cel.Validator
	Namespaced bool
	// HasStatus: the version serves the /status subresource, so an update
	// of the object keeps the stored status and one of /status keeps
	// everything else.
	HasStatus bool
	// StatusValidator: the OpenAPI validator of the status schema alone,
	// which kube-apiserver checks a /status update with; nil without one.
	StatusValidator apiextvalidation.SchemaValidator
}

// Schemas maps kind -> version -> schema.
type Schemas map[string]map[string]*Version

// Load compiles every Kueue CRD under dir; none there is an error.
func Load(dir string) (Schemas, error) {
	files, err := filepath.Glob(filepath.Join(dir, "kueue.x-k8s.io_*.yaml"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no Kueue CRDs under %s (give --crds DIR)", dir)
	}
	out := Schemas{}
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
		out[kind] = map[string]*Version{}
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
			ver := &Version{
				Structural: ss,
				Validator:  val,
				CEL:        cel.NewValidator(ss, true, celconfig.PerCallLimit),
				Namespaced: crd.Spec.Scope == apiextv1.NamespaceScoped,
				HasStatus:  v.Subresources != nil && v.Subresources.Status != nil,
			}
			if st, ok := internal.Properties["status"]; ok && ver.HasStatus {
				if ver.StatusValidator, _, err = apiextvalidation.NewSchemaValidator(&st); err != nil {
					return nil, fmt.Errorf("%s %s status: %w", kind, v.Name, err)
				}
			}
			out[kind][v.Name] = ver
		}
	}
	return out, nil
}
