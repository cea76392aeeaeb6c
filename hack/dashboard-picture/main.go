// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Command dashboard-picture draws the shoot Plutono dashboard's panels from the range query results that
// test/e2e's TestSandboxMetricsOnRealNode got from a real Prometheus scraping a real gVisor node under a load
// (GVISOR_DASHBOARD_DATA): our own rendering of the panels' data for the docs, not a screenshot of Plutono. Its own module, so that the image library stays out of the controller's dependencies.
//
//	go run . -in ../../docs/images/gvisor-dashboard.json -out ../../docs/images/gvisor-dashboard.png
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
)

func main() {
	in := flag.String("in", "", "the query results (JSON) that TestSandboxMetricsOnRealNode wrote to $GVISOR_DASHBOARD_DATA")
	out := flag.String("out", "", "the PNG to write")
	flag.Parse()
	if *in == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: dashboard-picture -in RESULTS.json -out PICTURE.png (make dashboard-picture runs both steps)")
		os.Exit(2)
	}
	if err := run(*in, *out); err != nil {
		fmt.Fprintln(os.Stderr, "dashboard-picture:", err)
		os.Exit(1)
	}
}

func run(in, out string) error {
	raw, err := os.ReadFile(in)
	if err != nil {
		return fmt.Errorf("reading the query results: %w (run make dashboard-picture, which writes them from a real test run)", err)
	}
	var dashboards []dashboard
	if err := json.Unmarshal(raw, &dashboards); err != nil {
		return fmt.Errorf("%s is not the JSON TestSandboxMetricsOnRealNode writes: %w", in, err)
	}
	if len(dashboards) != 1 {
		return fmt.Errorf("%s holds %d dashboards, want 1 (one picture per dashboard)", in, len(dashboards))
	}
	png, err := render(dashboards[0])
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, png, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", out, err)
	}
	return nil
}

// dashboard is the JSON of test/monitoring (pictureDashboard).
type dashboard struct {
	Title string `json:"title"`
	// Source says where the data comes from (the picture's subtitle).
	Source string  `json:"source"`
	Panels []panel `json:"panels"`
}

type panel struct {
	Title   string   `json:"title"`
	Expr    string   `json:"expr"`
	Unit    string   `json:"unit"`
	Seconds []int    `json:"seconds"`
	Series  []series `json:"series"`
	// Note is drawn instead of the series where the run had none to show.
	Note string `json:"note"`
}

type series struct {
	Legend string    `json:"legend"`
	Values []float64 `json:"values"` // per step of Seconds; negative: no value
}
