// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package render decides and renders what the extension puts into a shoot: the RuntimeClass chart and the per-pool
// installation chart (embedded by package charts), with Helm's own engine, from typed values; and, per pool, what
// its nodes get in either delivery mode, typed (NodeConfig: the installation image, runsc.toml's flags table,
// sandbox metrics, the nvproxy decision, the release sums), which the installation chart carries in the DaemonSet
// mode and the OperatingSystemConfig webhook stages in the other. It imports no node code (pkg/nodecontract's
// boundary test).
//
// Renderer.Shoot (shoot.go) is the one composition root: from a shoot's ContainerRuntimes, its Kubernetes version,
// its pools' architectures and the operator's Settings (readiness gate, sandbox proof, delivery mode) it decides the
// whole policy (image vector targetVersion, the readiness gate's version floor, the installation values, install or
// uninstall, DaemonSet or OperatingSystemConfig delivery) and returns ShootObjects, typed per ManagedResource. The
// controller (pkg/controller/containerruntime) deploys that result, gvisor-render prints it whole, and a test there
// holds the two byte-identical. Renderer.RuntimeClass and Renderer.Installation render one chart from typed values
// given directly (tests, tools), without the policy.
//
// A Renderer parses the embedded charts and compiles their values schemas once in New and is then safe for
// concurrent use. Each render validates the values against the chart's values.schema.json, renders, and decodes
// every rendered object strictly into its k8s.io/api type (an unknown or duplicate field is an error), so a
// template typo fails a test instead of a cluster. Output is deterministic: the same values give the same bytes.
//
// Readiness gate: see docs/readiness-gate.md and package nodelabel; readinessGate (readinessgate.go) decides where
// it is rendered. Sandbox proof: on unless Settings.SkipSandboxProof. Uninstall (InstallationValues.Mode
// ModeUninstall) renders the same DaemonSet running `gvisor-installer uninstall`; the controller's Delete rolls it
// out (pkg/controller/containerruntime, delete_uninstall.go).
//
// # From ContainerRuntime to runsc.toml
//
// A providerConfig is read once and its flags are checked by one rule set (v1alpha1.Parse, whose allowlist is
// v1alpha1.ValidateFlags; the garden's admission, pkg/admission, runs the same Parse). Then:
//
//  1. v1alpha1.Parse: one strict decode and the allowlist, every error at once as a field.ErrorList; the decoded
//     configuration travels with the pool's objects (PoolObjects.Config: testImageTag for the controller's warning)
//  2. the flags are copied into InstallationValues (readContainerRuntime)
//  3. nodeConfig makes the pool's NodeConfig: the flags with their defaults and the extension's own, as
//     runsc.toml's flags table (package runscconfig, the one owner of runsc's node configuration)
//  4. the DaemonSet mode passes that table to the installation chart (value runscToml, whose schema checks only its
//     shape; the chart's values are installationChartValues, typed and held to values.yaml by a test), which puts
//     it into the pool's ConfigMap; the OperatingSystemConfig webhook takes PoolObjects.Node
//  5. the installer on the node validates it again (runscconfig.Validate: it trusts no input) and installs it with
//     the release's binary_name (runscconfig.ForRelease)
//
// Errors caused by user input (the ContainerRuntime's worker pool, binaryPath, selector or providerConfig)
// are *ConfigurationError values. They implement Gardener's error coder interface
// (github.com/gardener/gardener/pkg/api/core/v1beta1/helper.Coder) with the code ERR_CONFIGURATION_PROBLEM,
// so a controller built on Gardener's extension library reports them in the ContainerRuntime's
// status.lastError.codes without further mapping, as long as it wraps them with %w; IsConfigurationError tells
// them apart from internal failures (which are retried).
package render
