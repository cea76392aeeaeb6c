// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package releases_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/releases"
)

func TestBackoffDoublesUpToTheMaximum(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for attempts, want := range map[int]time.Duration{1: 5 * time.Minute, 2: 10 * time.Minute, 3: 20 * time.Minute, 4: 40 * time.Minute, 5: time.Hour, 9: time.Hour} {
		f := releases.Failure{At: at, Attempts: attempts}
		if got := f.RetryAt().Sub(at); got != want {
			t.Errorf("attempt %d: back-off %s, want %s", attempts, got, want)
		}
	}
}

// TestStateRemembers walks a node's record through a proof, a failure of the next release, its repetition and its
// eventual success, saved and loaded in between as the installer does.
func TestStateRemembers(t *testing.T) {
	file := filepath.Join(t.TempDir(), "state.json")
	load := func() releases.State {
		t.Helper()
		s, err := releases.LoadState(file)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	save := func(s releases.State) {
		t.Helper()
		if err := s.Save(file); err != nil {
			t.Fatal(err)
		}
	}
	a := releases.Attempt{Release: "A", Config: "c1", Containerd: "containerd 2.2.9", Kernel: "6.1.0"}
	b := a
	b.Release = "B"
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

	s := load()
	s.Proven(a)
	save(s)
	s = load()
	if s.FailedNow(b, "EOF", now).Attempts != 1 || s.LastGood("B") != "A" {
		t.Fatalf("after B's first failure: %+v", s)
	}
	save(s)
	s = load()
	if f := s.FailedNow(b, "EOF again", now.Add(time.Minute)); f.Attempts != 2 || f.Reason != "EOF again" {
		t.Errorf("B's second failure: %+v", f)
	}
	other := b
	other.Kernel = "6.12.0"
	if _, ok := s.Failure(other); ok {
		t.Errorf("a new kernel is a new attempt, but B's failure matched it")
	}
	s.Proven(b)
	save(s)
	s = load()
	if !reflect.DeepEqual(s.Good, []string{"B", "A"}) || len(s.Failed) != 0 || !reflect.DeepEqual(s.Kept(), []string{"B", "A"}) {
		t.Errorf("after B's success: %+v", s)
	}
}

func TestDamagedStateIsForgotten(t *testing.T) {
	file := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(file, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := releases.LoadState(file)
	if err != nil || len(s.Good) != 0 {
		t.Errorf("a damaged state file: %+v, %v; want an empty state (the proof decides again)", s, err)
	}
}
