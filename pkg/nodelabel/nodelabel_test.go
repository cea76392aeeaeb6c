package nodelabel_test

import (
	"context"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodelabel"
)

// TestNodeNameFromEnv: the error for a missing NODE_NAME says how to set it.
func TestNodeNameFromEnv(t *testing.T) {
	t.Setenv(nodelabel.NodeNameEnv, "")
	if _, err := nodelabel.NodeNameFromEnv(); err == nil || !strings.Contains(err.Error(), "fieldPath: spec.nodeName") {
		t.Errorf("unset: error = %v, want one naming the downward API field", err)
	}
	t.Setenv(nodelabel.NodeNameEnv, "node-a")
	if got, err := nodelabel.NodeNameFromEnv(); err != nil || got != "node-a" {
		t.Errorf("NodeNameFromEnv() = %q, %v, want node-a", got, err)
	}
}

// TestEmptyNodeName: no request is sent without a node name (the nil client would panic if one were).
func TestEmptyNodeName(t *testing.T) {
	for name, f := range map[string]func() error{
		"Set":    func() error { return nodelabel.Set(context.Background(), nil, "") },
		"Remove": func() error { return nodelabel.Remove(context.Background(), nil, "") },
	} {
		if err := f(); err == nil || !strings.Contains(err.Error(), nodelabel.NodeNameEnv) {
			t.Errorf("%s(\"\") error = %v, want one naming %s", name, err, nodelabel.NodeNameEnv)
		}
	}
}
