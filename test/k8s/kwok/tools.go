//go:build tools

// Package tools pins the kwok command built by k8s.mk into this module's go.mod.
package tools

import _ "sigs.k8s.io/kwok/cmd/kwok"
