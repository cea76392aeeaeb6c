// Package render renders the charts the extension puts into a shoot (the RuntimeClass chart and the per-pool
// installation chart, embedded by package charts) with Helm's own engine, from typed values.
//
// A Renderer parses the embedded charts and compiles their values schemas once in New and is then safe for
// concurrent use. Each render validates the values against the chart's values.schema.json, renders, and decodes
// every rendered object strictly into its k8s.io/api type (an unknown or duplicate field is an error), so a
// template typo fails a test instead of a cluster. Output is deterministic: the same values give the same bytes.
//
// The scheduling readiness gate (docs/readiness-gate.md) is an operator setting, off by default: switch it on
// for both charts together, with RuntimeClassValues.ReadinessGate and InstallationValues.ReadinessGate or with
// ShootOptions.ReadinessGate; off, the output is exactly what it was before the gate existed.
//
// The installer's sandbox proof (the installation chart's proveSandbox, --prove-sandbox) is on by default; the
// operator setting InstallationValues.SkipSandboxProof or ShootOptions.SkipSandboxProof switches it off.
//
// The installation chart has two modes (InstallationValues.Mode): install (the default) and uninstall, which
// renders the same DaemonSet running `gvisor-installer uninstall`, for removing gVisor from a pool: the controller
// replaces the content of the pool's ManagedResource with ForUninstall's rendering, the pods roll node by node from
// install to uninstall, and a Ready uninstall pod (label ModeLabel=uninstall) means its node is clean.
//
// Errors caused by user input (the ContainerRuntime's worker pool, binaryPath, selector or providerConfig)
// are *ConfigurationError values. They implement Gardener's error coder interface
// (github.com/gardener/gardener/pkg/api/core/v1beta1/helper.Coder) with the code ERR_CONFIGURATION_PROBLEM,
// so a controller built on Gardener's extension library reports them in the ContainerRuntime's
// status.lastError.codes without further mapping, as long as it wraps them with %w; IsConfigurationError tells
// them apart from internal failures (which are retried).
package render
