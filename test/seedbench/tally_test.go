// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package seedbench

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/envtest"
)

// Every request a controller sends is accounted for from kube-apiserver's audit log: the benchmark starts each
// controller with its own user, and the shoot access secret it hands ours (the health checks' shoot client) with
// another, both in auditGroup, whose requests the API server records at Metadata level whatever the verb
// (envtest.Options.AuditReadsOfGroup). Requests are assigned to a phase by the time the API server received them.

// auditGroup is the group of the controllers' users: kube-apiserver records all their requests.
const auditGroup = "seedbench:controllers"

// phase is a named span of a run: [From, To).
type phase struct {
	Name     string
	From, To time.Time
}

// phases are a run's phases in order: start (process start until the ContainerRuntimes are created), create
// (until all are reconciled), steady (health checks at their period, nothing created), delete (DeleteAllOf until
// all are gone, and the stop after it).
var phaseNames = []string{"start", "create", "steady", "delete"}

// requestKey is what a request is counted under: which client (seed: the controller's own; shoot: our health
// checks' shoot client, which on a real seed talks to the shoot's API server), the verb and the resource.
type requestKey struct {
	Client, Verb, Resource string
}

func (k requestKey) String() string { return k.Client + " " + k.Verb + " " + k.Resource }

// requestCounts are the requests of one run per phase.
type requestCounts map[string]map[requestKey]int

// countRequests tallies events by phase for the users in clients (user name → "seed" or "shoot"). Requests the API
// server received before the first phase count to it, after the last one to the last (the stop).
func countRequests(events []envtest.AuditEvent, clients map[string]string, phases []phase) requestCounts {
	counts := requestCounts{}
	for _, e := range events {
		side, ok := clients[e.User.Username]
		if !ok || len(phases) == 0 {
			continue
		}
		name := phases[len(phases)-1].Name
		for _, p := range phases {
			if e.RequestReceivedTimestamp.Before(p.To) {
				name = p.Name
				break
			}
		}
		resource := e.ObjectRef.Resource
		if resource == "" {
			resource = "(non-resource: discovery, version)"
		}
		if e.ObjectRef.Subresource != "" {
			resource += "/" + e.ObjectRef.Subresource
		}
		if counts[name] == nil {
			counts[name] = map[requestKey]int{}
		}
		counts[name][requestKey{Client: side, Verb: e.Verb, Resource: resource}]++
	}
	return counts
}

// isRead: the verbs that change nothing.
func isRead(verb string) bool { return verb == "get" || verb == "list" || verb == "watch" }

// requestTable is the Markdown table of the runs' requests per pool and phase, one column per run (labels in order):
// a total row per phase (reads and writes) and one row per client, verb and resource.
func requestTable(pools int, labels []string, runs map[string]requestCounts) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| phase | requests per pool (%d pools) | %s |\n|---|---|%s\n", pools, strings.Join(labels, " | "), strings.Repeat("---|", len(labels)))
	perPool := func(n int) string { return fmt.Sprintf("%.2f", float64(n)/float64(pools)) }
	for _, ph := range phaseNames {
		keys := map[requestKey]bool{}
		for _, l := range labels {
			for k := range runs[l][ph] {
				keys[k] = true
			}
		}
		sorted := make([]requestKey, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		slices.SortFunc(sorted, func(x, y requestKey) int { return strings.Compare(x.String(), y.String()) })
		total := make([]string, len(labels))
		for i, l := range labels {
			reads, writes := 0, 0
			for k, n := range runs[l][ph] {
				if isRead(k.Verb) {
					reads += n
				} else {
					writes += n
				}
			}
			total[i] = fmt.Sprintf("**%s** (%s reads, %s writes)", perPool(reads+writes), perPool(reads), perPool(writes))
		}
		fmt.Fprintf(&b, "| **%s** | all | %s |\n", ph, strings.Join(total, " | "))
		for _, k := range sorted {
			cells := make([]string, len(labels))
			for i, l := range labels {
				cells[i] = perPool(runs[l][ph][k])
			}
			fmt.Fprintf(&b, "| %s | %s | %s |\n", ph, k, strings.Join(cells, " | "))
		}
	}
	return b.String()
}
