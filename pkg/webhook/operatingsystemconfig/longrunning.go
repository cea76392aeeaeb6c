// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package operatingsystemconfig

import (
	"strings"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	"k8s.io/utils/ptr"
)

// longRunning is a unit of ours that runs for the node's life: enabled and started by node-agent, restarted by
// systemd when it ends (Restart=always: a crash must not end its work for good) and by node-agent when its binary
// changes (FilePaths), removed with our other units when the pool no longer needs it.
type longRunning struct {
	name, description string
	// after is the unit it starts after ("" for none).
	after string
	// requires is a unit it needs running, stopped with it ("" for none).
	requires  string
	execStart string
	memoryMax string
	// service are the [Service] lines after MemoryMax: its confinement and what it may reach.
	service []string
	// binary is the node path of the program it runs.
	binary string
}

func (u longRunning) unit() extensionsv1alpha1.Unit {
	lines := []string{"[Unit]", "Description=" + u.description}
	if u.requires != "" {
		lines = append(lines, "Requires="+u.requires)
	}
	if u.after != "" {
		lines = append(lines, "After="+u.after)
	}
	lines = append(lines, "", "[Service]", "ExecStart="+u.execStart, "Restart=always", "RestartSec=5", "MemoryMax="+u.memoryMax)
	lines = append(lines, u.service...)
	lines = append(lines, "", "[Install]", "WantedBy=multi-user.target", "")
	content := strings.Join(lines, "\n")
	return extensionsv1alpha1.Unit{
		Name:      u.name,
		Command:   ptr.To(extensionsv1alpha1.CommandStart),
		Enable:    ptr.To(true),
		Content:   &content,
		FilePaths: []string{u.binary},
	}
}
