/*
 * pb.h - decoding of the Kubernetes protobuf envelope ("k8s\0" +
 * runtime.Unknown{typeMeta, raw}) for the core kinds kubectl's generator
 * commands send: v1 Namespace (create namespace), ConfigMap (create
 * configmap) and Secret (create secret generic).  Pure; never trusts the
 * input (every length is checked).
 *
 * The result is the object as JSON (what a JSON client would have sent):
 * ObjectMeta name, generateName, namespace, labels, annotations,
 * finalizers; ConfigMap data/binaryData/immutable; Secret
 * data/stringData/type/immutable; Namespace spec.finalizers.  Fields
 * outside that set are skipped.
 */
#ifndef TS_APISERVER_PB_H
#define TS_APISERVER_PB_H

#include <cJSON.h>
#include <stddef.h>

#include "util/err.h"

/* Decodes body[0..len) sent to a resource of kind want_kind in group
 * want_group ("" for the core group; want_kind NULL: any kind).  Returns 0
 * and *out (caller deletes), TS_EPARSE (malformed), TS_EINVAL (an object of
 * another kind, refused with kube-apiserver's words) or TS_EUNSUPPORTED (a
 * kind other than the three). */
int ts_pb_decode(const void *body, size_t len, const char *want_group, const char *want_kind,
                 cJSON **out, struct ts_err *err);

#endif
