package main

// The Cohort webhook's validation (pkg/webhooks/cohort_webhook.go) is
// unexported, unlike the other kinds'; it is bound here with go:linkname to
// the symbol of the pinned Kueue release (a rename there fails the link).

import (
	_ "unsafe"

	"k8s.io/apimachinery/pkg/util/validation/field"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	_ "sigs.k8s.io/kueue/pkg/webhooks"
)

//go:linkname webhooksValidateCohort sigs.k8s.io/kueue/pkg/webhooks.validateCohort
func webhooksValidateCohort(cohort *kueue.Cohort) field.ErrorList
