package main

// Kueue's scheduler runs one scheduling cycle in an unexported method
// (scheduler.(*Scheduler).schedule), which its own unit tests call directly
// (pkg/scheduler/scheduler_test.go). The oracle does the same through
// go:linkname instead of copying the module: these declarations bind to the
// symbols of the pinned Kueue release; a rename there fails the link.

import (
	"context"
	"reflect"
	"unsafe"

	"k8s.io/apimachinery/pkg/util/validation/field"

	configapi "sigs.k8s.io/kueue/apis/config/v1beta2"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	"sigs.k8s.io/kueue/pkg/controller/core"

	"sigs.k8s.io/kueue/pkg/scheduler"
	"sigs.k8s.io/kueue/pkg/util/routine"
	"sigs.k8s.io/kueue/pkg/util/wait"
)

//go:linkname kueueSchedule sigs.k8s.io/kueue/pkg/scheduler.(*Scheduler).schedule
func kueueSchedule(s *scheduler.Scheduler, ctx context.Context) wait.SpeedSignal

//go:linkname kueueSetAdmissionRoutineWrapper sigs.k8s.io/kueue/pkg/scheduler.(*Scheduler).setAdmissionRoutineWrapper
func kueueSetAdmissionRoutineWrapper(s *scheduler.Scheduler, w routine.Wrapper)

// The workload controller's waitForPodsReady settings are built by an
// unexported function of pkg/controller/core (core.go); its result type is
// unexported too, so it travels as a pointer into core.WithWaitForPodsReady.
//
//go:linkname coreWaitForPodsReadyPtr sigs.k8s.io/kueue/pkg/controller/core.waitForPodsReady
func coreWaitForPodsReadyPtr(cfg *configapi.WaitForPodsReady) unsafe.Pointer

func coreWaitForPodsReadyOption(cfg *configapi.WaitForPodsReady) core.Option {
	fn := reflect.ValueOf(core.WithWaitForPodsReady)
	argType := fn.Type().In(0)
	arg := reflect.Zero(argType)
	if p := coreWaitForPodsReadyPtr(cfg); p != nil {
		arg = reflect.NewAt(argType.Elem(), p)
	}
	return fn.Call([]reflect.Value{arg})[0].Interface().(core.Option)
}

// The Cohort webhook's validation (pkg/webhooks/cohort_webhook.go) is
// unexported, unlike the other kinds'.
//
//go:linkname webhooksValidateCohort sigs.k8s.io/kueue/pkg/webhooks.validateCohort
func webhooksValidateCohort(cohort *kueue.Cohort) field.ErrorList
