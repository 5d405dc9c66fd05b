package main

// The Kueue kinds the oracle handles: their v1beta2 (hub) and v1beta1 Go
// types, the webhook's Default and validation functions (of create, and of
// update: validateUpdate(new, old), nil where the kind has no validating
// webhook; statusWebhook where it also serves the /status subresource, as
// the verbs and resources of Kueue's +kubebuilder:webhook markers say). Kinds whose CRD
// converts with strategy None (ResourceFlavor, WorkloadPriorityClass) have
// no v1beta1 Convertible: only the apiVersion changes between versions.

import (
	"context"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/conversion"

	kueuev1beta1 "sigs.k8s.io/kueue/apis/kueue/v1beta1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	"sigs.k8s.io/kueue/pkg/webhooks"
)

type kindInfo struct {
	hub      func() client.Object
	old      func() conversion.Convertible // nil: same schema in both versions
	defaults func(client.Object) error     // the mutating webhook; nil when none
	validate func(client.Object) field.ErrorList

	validateUpdate func(newObj, oldObj client.Object) field.ErrorList
	statusWebhook  bool
}

var ctx = context.Background()

var kinds = map[string]kindInfo{
	"ClusterQueue": {
		hub: func() client.Object { return &kueue.ClusterQueue{} },
		old: func() conversion.Convertible { return &kueuev1beta1.ClusterQueue{} },
		defaults: func(o client.Object) error {
			return (&webhooks.ClusterQueueWebhook{}).Default(ctx, o.(*kueue.ClusterQueue))
		},
		validate: func(o client.Object) field.ErrorList {
			return webhooks.ValidateClusterQueue(o.(*kueue.ClusterQueue))
		},
		validateUpdate: func(n, _ client.Object) field.ErrorList {
			return webhooks.ValidateClusterQueueUpdate(n.(*kueue.ClusterQueue))
		},
	},
	"Cohort": {
		hub: func() client.Object { return &kueue.Cohort{} },
		old: func() conversion.Convertible { return &kueuev1beta1.Cohort{} },
		validate: func(o client.Object) field.ErrorList {
			return webhooksValidateCohort(o.(*kueue.Cohort))
		},
		validateUpdate: func(n, _ client.Object) field.ErrorList {
			return webhooksValidateCohort(n.(*kueue.Cohort))
		},
	},
	"LocalQueue": {
		hub: func() client.Object { return &kueue.LocalQueue{} },
		old: func() conversion.Convertible { return &kueuev1beta1.LocalQueue{} },
	},
	"ResourceFlavor": {
		hub: func() client.Object { return &kueue.ResourceFlavor{} },
		defaults: func(o client.Object) error {
			return (&webhooks.ResourceFlavorWebhook{}).Default(ctx, o.(*kueue.ResourceFlavor))
		},
		validate: func(o client.Object) field.ErrorList {
			return webhooks.ValidateResourceFlavor(o.(*kueue.ResourceFlavor))
		},
		validateUpdate: func(n, _ client.Object) field.ErrorList {
			return webhooks.ValidateResourceFlavor(n.(*kueue.ResourceFlavor))
		},
	},
	"WorkloadPriorityClass": {
		hub: func() client.Object { return &kueue.WorkloadPriorityClass{} },
	},
	"Workload": {
		hub: func() client.Object { return &kueue.Workload{} },
		old: func() conversion.Convertible { return &kueuev1beta1.Workload{} },
		defaults: func(o client.Object) error {
			return (&webhooks.WorkloadWebhook{}).Default(ctx, o.(*kueue.Workload))
		},
		validate: func(o client.Object) field.ErrorList {
			return webhooks.ValidateWorkload(o.(*kueue.Workload))
		},
		validateUpdate: func(n, o client.Object) field.ErrorList {
			return webhooks.ValidateWorkloadUpdate(n.(*kueue.Workload), o.(*kueue.Workload))
		},
		statusWebhook: true,
	},
}
