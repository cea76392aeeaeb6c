// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodetest

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// AdjustForTestMachine makes an operator's (or the field's extension's) config.toml start pods on this machine with
// the test machine's adjustments (package doc), editing the text so that everything else stays byte for byte as
// the field left it: the sandbox image becomes PauseImage and restrict_oom_score_adj becomes true (set where the
// key is, added to its table otherwise). The CNI settings are left alone: such nodes run host-network pods. It
// fails when the result does not parse.
func AdjustForTestMachine(config []byte) ([]byte, error) {
	var probe struct {
		Version int64 `toml:"version"`
	}
	if err := toml.Unmarshal(config, &probe); err != nil {
		return nil, fmt.Errorf("config does not parse: %w", err)
	}
	s := string(config)
	switch probe.Version {
	case 0, 1, 2:
		table := `[plugins."io.containerd.grpc.v1.cri"]`
		if probe.Version < 2 {
			table = `[plugins.cri]`
		}
		s = setKey(s, table, "sandbox_image", `"`+PauseImage+`"`)
		s = setKey(s, table, "restrict_oom_score_adj", "true")
	default:
		s = setKey(s, `[plugins."io.containerd.cri.v1.images".pinned_images]`, "sandbox", `"`+PauseImage+`"`)
		s = setKey(s, `[plugins."io.containerd.cri.v1.runtime"]`, "restrict_oom_score_adj", "true")
	}
	if err := toml.Unmarshal([]byte(s), &probe); err != nil {
		return nil, fmt.Errorf("adjusted config does not parse: %w\n%s", err, s)
	}
	return []byte(s), nil
}

// setKey sets key = value in the table with header: it replaces the key's line when the table has it, adds the
// line right after the header when the table has a header without the key, and otherwise adds the header (just
// before its first subtable, or at the end).
func setKey(s, header, key, value string) string {
	lines := strings.SplitAfter(s, "\n")
	keyRE := regexp.MustCompile(`^(\s*)` + regexp.QuoteMeta(key) + `\s*=`)
	in, headerAt, firstSub := false, -1, -1
	sub := strings.TrimSuffix(header, "]") + "."
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") {
			in = t == header
			if in {
				headerAt = i
			}
			if firstSub < 0 && strings.HasPrefix(t, sub) {
				firstSub = i
			}
			continue
		}
		if m := keyRE.FindStringSubmatch(l); in && m != nil {
			lines[i] = m[1] + key + " = " + value + "\n"
			return strings.Join(lines, "")
		}
	}
	line := "  " + key + " = " + value + "\n"
	switch {
	case headerAt >= 0:
		lines = append(lines[:headerAt+1], append([]string{line}, lines[headerAt+1:]...)...)
	case firstSub >= 0:
		lines = append(lines[:firstSub], append([]string{header + "\n", line, "\n"}, lines[firstSub:]...)...)
	default:
		if !strings.HasSuffix(s, "\n") {
			lines = append(lines, "\n")
		}
		lines = append(lines, "\n"+header+"\n", line)
	}
	return strings.Join(lines, "")
}
