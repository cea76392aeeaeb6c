// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package admission

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// WebhookPath is where the webhook server serves the Shoot validator; the application chart's
// ValidatingWebhookConfiguration points there.
const WebhookPath = "/webhooks/validate-shoot"

// ShootValidator is the admission.Handler for core.gardener.cloud/v1beta1 Shoots. It holds only a decoder, so one
// value serves concurrent requests.
type ShootValidator struct {
	decoder admission.Decoder
}

// NewShootValidator returns a ShootValidator decoding with a scheme that knows core.gardener.cloud/v1beta1.
func NewShootValidator() (*ShootValidator, error) {
	s := runtime.NewScheme()
	if err := gardencorev1beta1.AddToScheme(s); err != nil {
		return nil, fmt.Errorf("adding core.gardener.cloud/v1beta1 to the admission scheme: %w", err)
	}
	return &ShootValidator{decoder: admission.NewDecoder(s)}, nil
}

// Webhook wraps v in controller-runtime's admission.Webhook (panics are recovered into an error response).
func (v *ShootValidator) Webhook() *admission.Webhook {
	return (&admission.Webhook{Handler: v}).WithRecoverPanic(true)
}

// Handle refuses an AdmissionReview without a request (no uid) as malformed (400), allows DELETE and CONNECT
// unconditionally (deleting a Shoot is never blocked), validates CREATE with ValidateShoot and UPDATE with
// ValidateShootUpdate, and refuses with a 422 Invalid status listing the errors (at most v1alpha1.MaxErrors and a
// count of the rest). A review whose caller is gone (ctx ended: gardener-apiserver's timeout, a closed connection)
// stops at the next step instead of being judged for no one, and gives its share of the webhook back.
func (v *ShootValidator) Handle(ctx context.Context, req admission.Request) admission.Response {
	if req.UID == "" {
		// controller-runtime hands a review whose request is missing or null to the handler as an empty request;
		// an API server always sends a uid, so this is not one: answering "allowed" would approve nothing.
		return admission.Errored(http.StatusBadRequest,
			errors.New("malformed AdmissionReview: no request, or a request without uid (an API server always sends both)"))
	}
	if req.Operation != admissionv1.Create && req.Operation != admissionv1.Update {
		return admission.Allowed("")
	}
	if req.Kind.Group != gardencorev1beta1.GroupName || req.Kind.Kind != "Shoot" {
		// Only Shoots are registered; anything else is a misconfigured webhook, which must not block the garden.
		return admission.Allowed(fmt.Sprintf("%s is not validated by the gVisor admission", req.Kind.String()))
	}
	shoot := &gardencorev1beta1.Shoot{}
	if err := v.decoder.Decode(req, shoot); err != nil {
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("decoding the Shoot: %w", err))
	}
	if err := ctx.Err(); err != nil {
		return callerGone(err)
	}
	var old *gardencorev1beta1.Shoot
	if req.Operation == admissionv1.Update {
		old = &gardencorev1beta1.Shoot{}
		if err := v.decoder.DecodeRaw(req.OldObject, old); err != nil {
			return admission.Errored(http.StatusBadRequest, fmt.Errorf("decoding the old Shoot: %w", err))
		}
		if shoot.DeletionTimestamp != nil {
			return admission.Allowed("") // a Shoot being deleted: finalizer and annotation updates must pass
		}
	}
	errs, err := validate(ctx, shoot, old)
	if err != nil {
		return callerGone(err)
	}
	if len(errs) == 0 {
		return admission.Allowed("")
	}
	status := apierrors.NewInvalid(gardencorev1beta1.Kind("Shoot"), shoot.Name, errs).ErrStatus
	return admission.Response{AdmissionResponse: admissionv1.AdmissionResponse{Allowed: false, Result: &status}}
}

// callerGone is the answer to a review whose caller is gone: no one reads it, and it is no verdict.
func callerGone(err error) admission.Response {
	return admission.Errored(http.StatusRequestTimeout, fmt.Errorf("the review's caller is gone: %w", err))
}
