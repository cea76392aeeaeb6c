// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

//go:build linux && (amd64 || arm64)

package main

// parseSeconds parses a whole-second Go duration such as "5m", "90s" or "1h30m0s" (what time.Duration.String
// prints for whole seconds, and what the chart's schema allows) into seconds. Package time would parse it, but this
// program imports nothing but syscall (see the package doc); fractions and units below a second are refused, since
// nothing here needs them. ok is false for anything else, zero included.
func parseSeconds(s string) (seconds int64, ok bool) {
	if s == "" {
		return 0, false
	}
	for s != "" {
		var n int64
		i := 0
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			if n > (1<<40)/10 { // far beyond any interval, and far from overflowing
				return 0, false
			}
			n = n*10 + int64(s[i]-'0')
		}
		if i == 0 || i == len(s) {
			return 0, false // a unit without a number, or a number without a unit
		}
		switch s[i] {
		case 'h':
			n *= 3600
		case 'm':
			if i+1 < len(s) && s[i+1] == 's' {
				return 0, false // milliseconds
			}
			n *= 60
		case 's':
		default:
			return 0, false
		}
		seconds += n
		s = s[i+1:]
	}
	return seconds, seconds > 0
}

// itoa formats n in decimal (package strconv is small, but this is smaller still and keeps the imports at syscall).
func itoa(n int64) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}
