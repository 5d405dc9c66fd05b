package main

// validate: one object through kube-apiserver's create path for a Kueue
// custom resource and Kueue's webhooks, in the order the API server runs
// them: CRD defaults, the mutating webhook (Default, on the object
// converted to v1beta2), the CRD's validation, and, only when that passed,
// the validating webhook.

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/conversion"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

type fieldError struct {
	Type    string `json:"type"`
	Field   string `json:"field"`
	Message string `json:"message"`
}

type validation struct {
	APIVersion string       `json:"apiVersion"`
	Kind       string       `json:"kind"`
	Name       string       `json:"name"`
	Namespace  string       `json:"namespace,omitempty"`
	Allowed    bool         `json:"allowed"`
	Errors     []fieldError `json:"errors"`
	Object     any          `json:"object,omitempty"`
	Error      string       `json:"error,omitempty"`
}

func splitAPIVersion(apiVersion string) (group, version string) {
	if i := strings.LastIndex(apiVersion, "/"); i >= 0 {
		return apiVersion[:i], apiVersion[i+1:]
	}
	return "", apiVersion
}

func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

// kindOf checks the document names a Kueue kind this oracle handles.
func kindOf(raw map[string]any) (kindInfo, string, error) {
	apiVersion, kind := str(raw, "apiVersion"), str(raw, "kind")
	group, version := splitAPIVersion(apiVersion)
	info, ok := kinds[kind]
	if group != kueue.GroupVersion.Group || (version != "v1beta1" && version != "v1beta2") || !ok {
		return kindInfo{}, "", fmt.Errorf("unsupported object: apiVersion %q, kind %q", apiVersion, kind)
	}
	return info, version, nil
}

// toHub decodes raw (of `version`) into the v1beta2 Go type, through
// Kueue's conversion for a v1beta1 object of a converting kind.
func toHub(info kindInfo, version string, raw map[string]any) (client.Object, error) {
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	hub := info.hub()
	if version == "v1beta1" && info.old != nil {
		old := info.old()
		if err := json.Unmarshal(b, old); err != nil {
			return nil, err
		}
		if err := old.ConvertTo(hub.(conversion.Hub)); err != nil {
			return nil, err
		}
	} else if err := json.Unmarshal(b, hub); err != nil {
		return nil, err
	}
	hub.GetObjectKind().SetGroupVersionKind(kueue.GroupVersion.WithKind(str(raw, "kind")))
	return hub, nil
}

// normalised: v as the generic JSON tree encoding/json gives it.
func normalised(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return nil
	}
	return out
}

func fieldErrors(errs field.ErrorList) []fieldError {
	out := make([]fieldError, 0, len(errs))
	for _, e := range errs {
		out = append(out, fieldError{Type: string(e.Type), Field: e.Field, Message: e.Error()})
	}
	return out
}

// decodeError: Go's message, with the JSON path of the field when Go
// names it (without list indexes, which Go does not keep).
func decodeError(err error) fieldError {
	fe := fieldError{Type: "DecodeError", Message: err.Error()}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		fe.Field = te.Field
	}
	return fe
}

// fixNamespace gives raw the namespace kubectl and kube-apiserver give it:
// kubectl fills that of a namespaced object from its context, "default"
// here; kube-apiserver drops that of a cluster-scoped one
// (k8s.io/apiserver pkg/registry/rest/meta.go
// EnsureObjectNamespaceMatchesRequestNamespace).  Returns the name and
// namespace.
func fixNamespace(v *crdschemaVersion, raw map[string]any) (name, namespace string) {
	md, _ := raw["metadata"].(map[string]any)
	if md == nil {
		return "", ""
	}
	name, namespace = str(md, "name"), str(md, "namespace")
	if v != nil && v.Namespaced && namespace == "" {
		md["namespace"] = "default"
		namespace = "default"
	} else if v != nil && !v.Namespaced {
		delete(md, "namespace")
		namespace = ""
	}
	return name, namespace
}

func validateDoc(crds crdSchemas, d doc) validation {
	if d.err != nil {
		return validation{Errors: []fieldError{}, Error: d.err.Error()}
	}
	raw := d.raw
	res := validation{APIVersion: str(raw, "apiVersion"), Kind: str(raw, "kind"), Errors: []fieldError{}}
	info, version, err := kindOf(raw)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	res.Name, res.Namespace = fixNamespace(crds[res.Kind][version], raw)
	crdErrs := defaultAndValidate(crds, res.Kind, version, raw)
	hub, err := toHub(info, version, raw)
	if err != nil {
		// What the schema let through but Go cannot decode (an int32 out
		// of range) is refused by the webhook, which cannot read it; what
		// the schema refused never reaches a validating webhook.
		res.Errors = fieldErrors(crdErrs)
		if len(crdErrs) == 0 {
			res.Errors = append(res.Errors, decodeError(err))
		}
		return res
	}
	if info.defaults != nil {
		if err := info.defaults(hub); err != nil {
			res.Error = err.Error()
			return res
		}
	}
	errs := crdErrs
	if len(errs) == 0 && info.validate != nil {
		errs = info.validate(hub)
	}
	res.Errors = fieldErrors(errs)
	res.Allowed = len(errs) == 0
	res.Object = normalised(hub)
	return res
}
