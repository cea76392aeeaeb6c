// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package envtest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
	StageTimestamp time.Time `json:"stageTimestamp"`
}

func (e AuditEvent) String() string {
	return fmt.Sprintf("%s %s %s/%s/%s (%s) -> %d", e.User.Username, e.Verb, e.ObjectRef.Resource, e.ObjectRef.Namespace, e.ObjectRef.Name, e.ObjectRef.Subresource, e.ResponseStatus.Code)
}

func configureAudit(env *crenvtest.Environment, dir string) (string, error) {
	policy := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(auditPolicy), 0o600); err != nil {
		return "", fmt.Errorf("envtest: writing audit policy: %w", err)
	}
	logPath := filepath.Join(dir, "audit.log")
	env.ControlPlane.GetAPIServer().Configure().
		Set("audit-policy-file", policy).
		Set("audit-log-path", logPath).
		Set("audit-log-format", "json").
		// blocking: an event is in the file before the response is sent, so a test can read it right away.
		Set("audit-log-mode", "blocking")
	return logPath, nil
}

// AuditEvents returns the completed write requests recorded so far (Options.Audit must be set).
func (cp *ControlPlane) AuditEvents() ([]AuditEvent, error) {
	if cp.auditLog == "" {
		return nil, fmt.Errorf("envtest: audit log not enabled (set Options.Audit)")
	}
	f, err := os.Open(cp.auditLog)
	if err != nil {
		return nil, fmt.Errorf("envtest: reading audit log: %w", err)
	}
	defer f.Close()
	var events []AuditEvent
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
	user, err := cp.env.AddUser(crenvtest.User{Name: name, Groups: []string{"system:masters"}}, nil)
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
