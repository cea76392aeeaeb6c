// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package admission_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	gvisoradmission "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/admission"
)

var shootKind = metav1.GroupVersionKind{Group: "core.gardener.cloud", Version: "v1beta1", Kind: "Shoot"}

// request builds the AdmissionRequest the API server sends for op on newObj (and oldObj on update).
func request(t testing.TB, op admissionv1.Operation, newObj, oldObj *gardencorev1beta1.Shoot) admission.Request {
	t.Helper()
	raw := func(s *gardencorev1beta1.Shoot) runtime.RawExtension {
		if s == nil {
			return runtime.RawExtension{}
		}
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		return runtime.RawExtension{Raw: b}
	}
	return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID: "1", Kind: shootKind, Name: "demo", Namespace: "garden-dev", Operation: op,
		Resource: metav1.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "shoots"},
		Object:   raw(newObj), OldObject: raw(oldObj),
	}}
}

func TestHandle(t *testing.T) {
	v, err := gvisoradmission.NewShootValidator()
	if err != nil {
		t.Fatal(err)
	}
	bad := shoot(t, plainWorker("a")+gvisorWorker("b", "configFlags:\n  net-raww: \"true\"\n  debug: yes\n"))
	good := shoot(t, gvisorWorker("b", "configFlags:\n  net-raw: \"true\"\n"))
	deleting := bad.DeepCopy()
	now := metav1.Now()
	deleting.DeletionTimestamp = &now
	deleting.Finalizers = nil

	wantBad := `Shoot.core.gardener.cloud "demo" is invalid: [` +
		pc1 + `.configFlags[debug]: Invalid value: true: must be a string: quote the value, for example debug: "true", ` +
		pc1 + `.configFlags[net-raww]: Invalid value: "true": unknown or not allowed runsc flag "net-raww"; allowed flags: ` + allowed + `]`

	for _, tc := range []struct {
		name    string
		req     admission.Request
		allowed bool
		code    int32
		message string
	}{
		{"create valid", request(t, admissionv1.Create, good, nil), true, http.StatusOK, ""},
		{"create invalid", request(t, admissionv1.Create, bad, nil), false, http.StatusUnprocessableEntity, wantBad},
		{"update to invalid", request(t, admissionv1.Update, bad, good), false, http.StatusUnprocessableEntity, wantBad},
		{"update keeping a stored invalid config", request(t, admissionv1.Update, bad, bad), true, http.StatusOK, ""},
		{"update of a Shoot being deleted", request(t, admissionv1.Update, deleting, good), true, http.StatusOK, ""},
		{"delete, no object sent", request(t, admissionv1.Delete, nil, bad), true, http.StatusOK, ""},
		{"create with an undecodable object", func() admission.Request {
			r := request(t, admissionv1.Create, good, nil)
			r.Object.Raw = []byte(`{"apiVersion":"core.gardener.cloud/v1beta1","kind":"Shoot","spec":"x"}`)
			return r
		}(), false, http.StatusBadRequest, ""},
		{"no request", admission.Request{}, false, http.StatusBadRequest,
			"malformed AdmissionReview: no request, or a request without uid (an API server always sends both)"},
		{"not a Shoot", func() admission.Request {
			r := request(t, admissionv1.Create, good, nil)
			r.Kind = metav1.GroupVersionKind{Group: "core.gardener.cloud", Version: "v1beta1", Kind: "Seed"}
			return r
		}(), true, http.StatusOK, "core.gardener.cloud/v1beta1, Kind=Seed is not validated by the gVisor admission"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := v.Webhook().Handle(context.Background(), tc.req)
			if resp.Allowed != tc.allowed {
				t.Fatalf("allowed = %v, want %v (result %+v)", resp.Allowed, tc.allowed, resp.Result)
			}
			if resp.Result == nil {
				t.Fatal("no result")
			}
			if resp.Result.Code != tc.code {
				t.Errorf("code = %d, want %d (%s)", resp.Result.Code, tc.code, resp.Result.Message)
			}
			if tc.message != "" && resp.Result.Message != tc.message {
				t.Errorf("message\n%s\nwant\n%s", resp.Result.Message, tc.message)
			}
			if !tc.allowed && tc.code == http.StatusUnprocessableEntity {
				if resp.Result.Reason != metav1.StatusReasonInvalid || resp.Result.Details == nil || len(resp.Result.Details.Causes) != 2 {
					t.Errorf("want reason Invalid with one cause per field error, got %+v", resp.Result)
				}
			}
		})
	}
}

// TestHandleStopsForAGoneCaller: a review whose caller is gone is neither allowed nor refused: it ends with an
// error no one reads, before the workers are judged.
func TestHandleStopsForAGoneCaller(t *testing.T) {
	v, err := gvisoradmission.NewShootValidator()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	bad := shoot(t, gvisorWorker("b", "configFlags:\n  net-raww: \"true\"\n"))
	for _, op := range []admissionv1.Operation{admissionv1.Create, admissionv1.Update} {
		var old *gardencorev1beta1.Shoot
		if op == admissionv1.Update {
			old = shoot(t, plainWorker("b"))
		}
		resp := v.Handle(ctx, request(t, op, bad, old))
		if resp.Allowed || resp.Result == nil || resp.Result.Code != http.StatusRequestTimeout {
			t.Errorf("%s with the caller gone: allowed=%v result=%+v, want an error with code %d", op, resp.Allowed, resp.Result, http.StatusRequestTimeout)
		}
	}
}
