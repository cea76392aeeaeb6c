// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package releases

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/hostfs"
)

// Back-off of a release that failed its proof on this node: it is not tried again before FirstBackoff passed, and
// the wait doubles with each further failure up to MaxBackoff. A change of the release, its runsc flags,
// containerd or the kernel (Attempt) is a new attempt and is tried at once.
const (
	FirstBackoff = 5 * time.Minute
	MaxBackoff   = time.Hour
	// keepGood is how many proven releases the node keeps (current and the one before it), besides those in use.
	keepGood = 2
	// keepFailures bounds the failures remembered.
	keepFailures = 8
)

// Attempt is what a proof judged: the release, its runsc.toml and the node's containerd and kernel.
type Attempt struct {
	Release    string `json:"release"`
	Config     string `json:"config"`
	Containerd string `json:"containerd"`
	Kernel     string `json:"kernel"`
}

// Failure is an attempt whose proof failed.
type Failure struct {
	Attempt

	// At is the last failure, Attempts how often it failed.
	At       time.Time `json:"at"`
	Attempts int       `json:"attempts"`
	// Reason is the proof's error.
	Reason string `json:"reason"`
}

// RetryAt is when the attempt may be tried again.
func (f Failure) RetryAt() time.Time {
	wait := FirstBackoff
	for i := 1; i < f.Attempts && wait < MaxBackoff; i++ {
		wait *= 2
	}
	return f.At.Add(min(wait, MaxBackoff))
}

// State is what the node remembers (StateFile).
type State struct {
	// Good are the releases proven on this node, newest first.
	Good []string `json:"good"`
	// Failed are recent failed attempts, newest first.
	Failed []Failure `json:"failed,omitempty"`
}

// LoadState reads the state file (host path); a missing file is an empty state, an unreadable one an error naming
// the file.
func LoadState(file string) (State, error) {
	var s State
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("reading %s: %w", file, err)
	}
	if err := json.Unmarshal(data, &s); err != nil {
		// A damaged record must not keep a node from installing: forget it (the proof decides again).
		return State{}, nil //nolint:nilerr // see above
	}
	return s, nil
}

// Save writes the state atomically.
func (s State) Save(file string) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", file, err)
	}
	return hostfs.WriteFileAtomic(file, append(data, '\n'), 0o644)
}

// LastGood is the newest proven release other than except, "" if none.
func (s State) LastGood(except string) string {
	for _, id := range s.Good {
		if id != except {
			return id
		}
	}
	return ""
}

// Proven records a successful proof of a: it is the newest good release and its failures are forgotten.
func (s *State) Proven(a Attempt) {
	s.Good = slices.DeleteFunc(s.Good, func(id string) bool { return id == a.Release })
	s.Good = append([]string{a.Release}, s.Good...)
	s.Failed = slices.DeleteFunc(s.Failed, func(f Failure) bool { return f.Release == a.Release })
}

// Kept are the proven releases the node keeps.
func (s State) Kept() []string { return s.Good[:min(len(s.Good), keepGood)] }

// FailedNow records a failed proof of a at now and returns the record.
func (s *State) FailedNow(a Attempt, reason string, now time.Time) Failure {
	f := Failure{Attempt: a, At: now.UTC(), Attempts: 1, Reason: reason}
	if old, ok := s.Failure(a); ok {
		f.Attempts = old.Attempts + 1
	}
	s.Failed = slices.DeleteFunc(s.Failed, func(o Failure) bool { return o.Attempt == a })
	s.Failed = append([]Failure{f}, s.Failed...)
	s.Failed = s.Failed[:min(len(s.Failed), keepFailures)]
	return f
}

// Failure is the remembered failure of exactly a.
func (s State) Failure(a Attempt) (Failure, bool) {
	for _, f := range s.Failed {
		if f.Attempt == a {
			return f, true
		}
	}
	return Failure{}, false
}
