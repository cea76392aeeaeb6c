// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package containerdconfig registers the gVisor runtime (runsc) in a containerd configuration file, and removes it
// again, without breaking any containerd release in the field.
//
// It parses the file with a real TOML parser (never grep), detects the config version and with it the CRI plugin ID
// (version 1: "cri", 2: "io.containerd.grpc.v1.cri", 3 and 4: "io.containerd.cri.v1.runtime"), and refuses what
// it must not guess about: malformed TOML, an unknown version, a disabled CRI plugin, a CRI path that is not a table.
//
// Edits preserve the operator's bytes where TOML allows: the runsc tables are appended as one marked block at the
// end of the file. An existing runsc table is adopted, never duplicated: left as is when it already says what we
// need (the field's extension's latest script wrote exactly our table), completed by appending a missing table,
// or cut out section by section (header to last key) and appended again with its other keys when values must
// change. runsc tables under a plugin ID that does not match the version (the field's extension's `plugins.cri` in a
// version 2 file, which stops containerd 1.x) are cut out the same way. Removal cuts our block and every runsc
// section, so the operator's original file comes back byte for byte. The whole file is rewritten (comments lost,
// semantics kept; the caller keeps a backup) only when cutting and appending cannot express the change: an
// ancestor table defined inline or by dotted keys (a table header for it would be invalid TOML). Every result is
// re-parsed and compared with the expected document before it is returned.
//
// Traps handled here, each verified against real containerd releases:
//   - containerd 1.x decodes a file's `runtimes` table into a fresh map: a file that lists no runtime and gets
//     runsc loses the default runc, and CRI fails to load. Editing such a version 1/2 file adds runc explicitly,
//     with containerd 1.7's own default values.
//   - A table under the wrong plugin ID is silently ignored by 2.x and kills 1.x; the ID always follows the version.
//   - Imports: on 1.x an imported CRI table replaces the main file's whole CRI table; callers use DropIn only for
//     version 3 and later (containerd 2.x merges imports key by key).
package containerdconfig
