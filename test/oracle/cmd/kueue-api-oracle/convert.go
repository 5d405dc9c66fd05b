package main

// convert: one object to v1beta1 or v1beta2 with Kueue's conversion
// functions (apis/kueue/v1beta1/*_conversion.go), as its conversion webhook
// does. Kinds without conversion functions keep their fields and change
// apiVersion only. Null fields (Go's nil slices and maps) are dropped from
// the result, as the API server prunes them from a conversion response.

import (
	"sigs.k8s.io/controller-runtime/pkg/conversion"

	kueuev1beta1 "sigs.k8s.io/kueue/apis/kueue/v1beta1"
)

type convertError struct {
	Error string `json:"error"`
}

func convertDoc(d doc, to string) any {
	if d.err != nil {
		return convertError{d.err.Error()}
	}
	info, from, err := kindOf(d.raw)
	if err != nil {
		return convertError{err.Error()}
	}
	kind := str(d.raw, "kind")
	if from == to {
		return d.raw
	}
	hub, err := toHub(info, from, d.raw)
	if err != nil {
		return convertError{err.Error()}
	}
	if to == "v1beta2" {
		return dropNulls(normalised(hub))
	}
	if info.old == nil {
		out := dropNulls(normalised(hub)).(map[string]any)
		out["apiVersion"] = kueuev1beta1.GroupVersion.String()
		return out
	}
	old := info.old()
	if err := old.ConvertFrom(hub.(conversion.Hub)); err != nil {
		return convertError{err.Error()}
	}
	old.GetObjectKind().SetGroupVersionKind(kueuev1beta1.GroupVersion.WithKind(kind))
	return dropNulls(normalised(old))
}

// dropNulls removes null members from every map of v.
func dropNulls(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			if x == nil {
				delete(t, k)
			} else {
				t[k] = dropNulls(x)
			}
		}
	case []any:
		for i := range t {
			t[i] = dropNulls(t[i])
		}
	}
	return v
}
