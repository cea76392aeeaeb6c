// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Command kubectl is the upstream kubectl (k8s.io/kubernetes/cmd/kubectl) of the control plane's release. The
// admission test runs it against a real gardener-apiserver, so that the operator guide shows what kubectl prints
// for the webhook's refusal, not what a client library's error says.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/component-base/logs"
	"k8s.io/kubectl/pkg/cmd"
	"k8s.io/kubectl/pkg/cmd/util"

	// Import to initialize client auth plugins, as upstream does.
	_ "k8s.io/client-go/plugin/pkg/client/auth"
)

func main() {
	logs.GlogSetter(cmd.GetLogVerbosity(os.Args)) //nolint:errcheck // as upstream: verbosity before the command is built
	command := cmd.NewDefaultKubectlCommand()
	if err := cli.RunNoErrOutput(command); err != nil {
		// Pretty-print the error and exit with an error, as upstream's cmd/kubectl does.
		util.CheckErr(err)
	}
}
