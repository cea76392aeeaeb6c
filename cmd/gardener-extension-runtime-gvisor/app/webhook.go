// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package app

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/pflag"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	extensionscmdcontroller "github.com/gardener/gardener/extensions/pkg/controller/cmd"
	extensionswebhook "github.com/gardener/gardener/extensions/pkg/webhook"
	extensionscmdwebhook "github.com/gardener/gardener/extensions/pkg/webhook/cmd"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/delivery"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/version"
	oscwebhook "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig"
)

// The extension serves one seed webhook (pkg/webhook/operatingsystemconfig) with Gardener's extension webhook
// library: the manager's webhook server, the MutatingWebhookConfiguration gardener-extension-runtime-gvisor
// registered once this replica leads, and its certificates. With --webhook-config-namespace (the chart sets the
// release namespace) the library's secrets manager keeps a CA and a server certificate as Secrets there, rotates
// them and injects the CA bundle; without it (development, tests) it generates an unmanaged certificate into
// --webhook-config-cert-dir.
//
// It runs in BOTH delivery modes. In the OperatingSystemConfig mode it delivers gVisor. In the DaemonSet mode it
// adds nothing and only takes back what an earlier OperatingSystemConfig mode added (the remove entry for runsc,
// see the package doc): without it, switching a landscape back to the DaemonSet would make node-agent delete
// runsc and its shim (they left the OSC) while runsc stays registered in containerd's config.toml, which
// node-agent never unregisters by itself (docs/delivery-modes.md, "OperatingSystemConfig → DaemonSet"). For OSCs
// that never had gVisor it returns them unchanged after one Cluster read.
//
// The chart always configures the registration (--webhook-config-namespace), so on a seed the webhook runs in both
// modes. A controller started without registration flags in the DaemonSet mode (development, the test harnesses)
// serves none: it has no earlier OperatingSystemConfig mode to take back.

// exposedWebhookFlags are the library's webhook flags this extension accepts: the server's address and
// certificate directory, and how the webhook is registered (service or url, the Service's port, the namespace of
// the certificates). Hidden: --webhook-config-owner-namespace (the namespace above is the owner) and the
// library's --disable-webhooks (the delivery mode decides).
var exposedWebhookFlags = map[string]bool{
	extensionscmdcontroller.WebhookServerHostFlag: true,
	extensionscmdcontroller.WebhookServerPortFlag: true,
	extensionscmdcontroller.WebhookCertDirFlag:    true,
	extensionscmdwebhook.ModeFlag:                 true,
	extensionscmdwebhook.URLFlag:                  true,
	extensionscmdwebhook.ServicePortFlag:          true,
	extensionscmdwebhook.NamespaceFlag:            true,
}

// addWebhookFlags registers the library's webhook flags this extension accepts (--delivery-mode is in options.go).
func (o *Options) addWebhookFlags(fs *pflag.FlagSet) {
	all := pflag.NewFlagSet("webhook", pflag.ContinueOnError)
	o.WebhookServer.AddFlags(all)
	all.VisitAll(func(f *pflag.Flag) {
		if exposedWebhookFlags[f.Name] {
			fs.AddFlag(f)
		}
	})
}

// validateWebhook checks the webhook registration flags.
func (o *Options) validateWebhook() error {
	switch o.WebhookServer.Mode {
	case "", extensionswebhook.ModeService:
		return nil
	case extensionswebhook.ModeURL:
		if o.WebhookServer.URL == "" {
			return fmt.Errorf("--%s=url needs --%s (host:port the API server reaches the webhook server at)", extensionscmdwebhook.ModeFlag, extensionscmdwebhook.URLFlag)
		}
		return nil
	default:
		return fmt.Errorf("--%s=%q: use service (in the seed) or url (outside it)", extensionscmdwebhook.ModeFlag, o.WebhookServer.Mode)
	}
}

// servesOSCWebhook: always in the OperatingSystemConfig mode; in the DaemonSet mode when the registration is
// configured (namespace for the certificates, or a URL), as the chart does.
func (o *Options) servesOSCWebhook() bool {
	return o.DeliveryMode == delivery.OperatingSystemConfig || o.WebhookServer.Namespace != "" || o.WebhookServer.URL != ""
}

// addOSCWebhook serves the OperatingSystemConfig webhook and registers it in the seed.
func addOSCWebhook(ctx context.Context, mgr manager.Manager, o *Options) error {
	// The controller's renderer (images, image vector overwrite, release sums), so that both modes deliver the same.
	renderer, err := render.Load(version.Version, os.Getenv(imagevector.OverrideEnv))
	if err != nil {
		return err
	}
	ensurer := oscwebhook.NewEnsurer(renderer, oscwebhook.Options{SkipSandboxProof: !o.ProveSandbox, ReproveInterval: o.ReproveInterval, DeliveryMode: o.DeliveryMode,
		SandboxMetrics: o.SandboxMetrics})
	switches := extensionscmdwebhook.NewSwitchOptions(extensionscmdwebhook.Switch(oscwebhook.Name, func(mgr manager.Manager) (*extensionswebhook.Webhook, error) {
		return oscwebhook.New(mgr, ensurer, mgr.GetLogger())
	}))
	// No shoot webhooks: the ManagedResource name and shoot namespace selector of the library stay empty. (Complete
	// completes the switches too: completing them twice registers the webhook twice.)
	opts := extensionscmdwebhook.NewAddToManagerOptions(Name, "", nil, nil, &o.WebhookServer, switches)
	if err := opts.Complete(); err != nil {
		return fmt.Errorf("completing the webhook options: %w", err)
	}
	if _, err := opts.Completed().AddToManager(ctx, mgr, nil); err != nil {
		return fmt.Errorf("adding the %s webhook: %w", oscwebhook.Name, err)
	}
	return nil
}
