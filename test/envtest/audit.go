// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package envtest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	crenvtest "sigs.k8s.io/controller-runtime/pkg/envtest"
)

// auditPolicy records every write (at Metadata level: who, what, which object) and nothing else. Tests use it to
// prove from the API server's side which component wrote what, for example that a no-op reconcile wrote nothing.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
  verbs: [create, update, patch, delete, deletecollection]
- level: None
`

// AuditEvent is the part of a kube-apiserver audit event (audit.k8s.io/v1 Event) the tests look at.
type AuditEvent struct {
	Stage string `json:"stage"`
	Verb  string `json:"verb"`
	User  struct {
		Username string `json:"username"`
	} `json:"user"`
	ObjectRef struct {
		Resource    string `json:"resource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
		Subresource string `json:"subresource"`
	} `json:"objectRef"`
	ResponseStatus struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	RequestReceivedTimestamp time.Time `json:"requestReceivedTimestamp"`
	StageTimestamp           time.Time `json:"stageTimestamp"`
}

func (e AuditEvent) String() string {
	return fmt.Sprintf("%s %s %s/%s/%s (%s) -> %d", e.User.Username, e.Verb, e.ObjectRef.Resource, e.ObjectRef.Namespace, e.ObjectRef.Name, e.ObjectRef.Subresource, e.ResponseStatus.Code)
}

// auditReadsOfGroupPolicy is auditPolicy plus every request (reads and watches too) of the users in one group, so
// that a benchmark can account for every request of the components it starts in that group (AddUserInGroup).
const auditReadsOfGroupPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
  userGroups: [%q]
- level: Metadata
  verbs: [create, update, patch, delete, deletecollection]
- level: None
`

func configureAudit(env *crenvtest.Environment, dir, readsOfGroup string) (string, error) {
	policy := filepath.Join(dir, "audit-policy.yaml")
	content := auditPolicy
	if readsOfGroup != "" {
		content = fmt.Sprintf(auditReadsOfGroupPolicy, readsOfGroup)
	}
	if err := os.WriteFile(policy, []byte(content), 0o600); err != nil {
		return "", fmt.Errorf("envtest: writing audit policy: %w", err)
	}
	logPath := filepath.Join(dir, "audit.log")
	env.ControlPlane.GetAPIServer().Configure().
		Set("audit-policy-file", policy).
		Set("audit-log-path", logPath).
		Set("audit-log-format", "json").
		// blocking: an event is in the file before the response is sent, so a test can read it right away.
		Set("audit-log-mode", "blocking").
		// kube-apiserver rotates the file at 100 MB unless told otherwise (a benchmark writes more); AuditEvents
		// reads rotated files too, in case.
		Set("audit-log-maxsize", "100000")
	return logPath, nil
}

// AuditEvents returns the completed write requests recorded so far, and every completed request of the users in
// Options.AuditReadsOfGroup (Options.Audit must be set).
func (cp *ControlPlane) AuditEvents() ([]AuditEvent, error) {
	if cp.auditLog == "" {
		return nil, fmt.Errorf("envtest: audit log not enabled (set Options.Audit)")
	}
	// Rotated files are named audit-<timestamp>.log: in name order, then the current one.
	rotated, err := filepath.Glob(strings.TrimSuffix(cp.auditLog, ".log") + "-*.log")
	if err != nil {
		return nil, fmt.Errorf("envtest: listing rotated audit logs: %w", err)
	}
	sort.Strings(rotated)
	var events []AuditEvent
	for _, path := range append(rotated, cp.auditLog) {
		if events, err = appendAuditEvents(events, path); err != nil {
			return nil, err
		}
	}
	return events, nil
}

// appendAuditEvents appends the completed requests recorded in the audit log file path.
func appendAuditEvents(events []AuditEvent, path string) ([]AuditEvent, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("envtest: reading audit log: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e AuditEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("envtest: decoding audit event %q: %w", sc.Text(), err)
		}
		if e.Stage == "ResponseComplete" {
			events = append(events, e)
		}
	}
	return events, sc.Err()
}

// AddUser writes a kubeconfig for a new system:masters user called name and returns its path. Components
// connecting with their own user are told apart in the audit log.
func (cp *ControlPlane) AddUser(name string) (string, error) {
	return cp.AddUserInGroup(name, "")
}

// AddUserInGroup is AddUser with the user also in group (none if empty), e.g. Options.AuditReadsOfGroup's.
func (cp *ControlPlane) AddUserInGroup(name, group string) (string, error) {
	groups := []string{"system:masters"}
	if group != "" {
		groups = append(groups, group)
	}
	user, err := cp.env.AddUser(crenvtest.User{Name: name, Groups: groups}, nil)
	if err != nil {
		return "", fmt.Errorf("envtest: adding user %s: %w", name, err)
	}
	kubeconfig, err := user.KubeConfig()
	if err != nil {
		return "", fmt.Errorf("envtest: rendering kubeconfig of %s: %w", name, err)
	}
	path := filepath.Join(cp.Dir, "kubeconfig-"+name)
	if err := os.WriteFile(path, kubeconfig, 0o600); err != nil {
		return "", fmt.Errorf("envtest: writing %s: %w", path, err)
	}
	return path, nil
}
