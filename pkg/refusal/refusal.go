// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package refusal is the error type of every check that refuses its input before acting on it: the node
// installer's checks of the host, of containerd's configuration and of the release, and pkg/runscconfig's check of
// a runsc flags table, which both delivery modes' seed side and the installer run.
//
// A refusal happens before anything on the host changes, and its message names the file, the reason and the fix,
// so an operator reading one log line knows what to do. The command maps it to its own exit code (2), distinct
// from failures while acting (1).
package refusal

import (
	"errors"
	"fmt"
)

// Error is a refusal: the installer will not touch the host because Path is in a state it must not guess about.
type Error struct {
	// Path is the file or directory the refusal is about (as the operator knows it, e.g. a node path).
	Path string
	// Reason says what is wrong with it.
	Reason string
	// Fix says what the operator can do about it.
	Fix string
	// Err is an underlying error, if any.
	Err error
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("refusing %s: %s", e.Path, e.Reason)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	if e.Fix != "" {
		msg += "; fix: " + e.Fix
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// New returns a refusal about path.
func New(path, reason, fix string) *Error { return &Error{Path: path, Reason: reason, Fix: fix} }

// Wrap returns a refusal about path caused by err.
func Wrap(path, reason, fix string, err error) *Error {
	return &Error{Path: path, Reason: reason, Fix: fix, Err: err}
}

// Is reports whether err is (or wraps) a refusal.
func Is(err error) bool {
	var r *Error
	return errors.As(err, &r)
}
