// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package healthcheck

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/shootclient"
)

// Every 30 s the health-check library runs each ContainerRuntime's checks, each on its own goroutine. Two of
// them (EveryNodeReady and BinDirClean) need the same reads of the pool in the shoot; a shoot client of their own
// each would read the shoot access secret from the seed's API server twice (gardener-internal, then gardener) and
// open a new TLS connection to the shoot's API server, per pool and period (BENCHMARKS.md, "Seed scale"). shootReads shares the
// pool's reads between the checks of a round, and takes each shoot's client from the process's shootclient.Cache
// (kept with its connections while the access secret is unchanged): one read of that secret per round.

// shareWindow is how long one read of a pool answers the checks of that pool: long enough for the checks of one
// round (started together), far shorter than the period, so every round reads the shoot afresh.
const shareWindow = 5 * time.Second

// shootReads reads pools for the health checks, sharing each read between the checks of a round. Its map holds one entry per pool at most; entries past their time are swept on the way.
type shootReads struct {
	seed   client.Client
	shoots *shootclient.Cache

	mu    sync.Mutex
	pools map[types.NamespacedName]*poolRead
}

// poolRead is one read of a pool, shared by the checks that ask while it runs or within shareWindow after it.
// Its slices are shared too: the checks only read them.
type poolRead struct {
	done  chan struct{}
	at    time.Time // when the read finished
	pool  string
	nodes []corev1.Node
	pods  []corev1.Pod
	err   error
}

func newShootReads(seed client.Client, shoots *shootclient.Cache) *shootReads {
	return &shootReads{seed: seed, shoots: shoots, pools: map[types.NamespacedName]*poolRead{}}
}

// readPool reads the nodes of the ContainerRuntime key's pool and, when there are any, the pool's install-mode
// pods; a read of the same ContainerRuntime running or finished within shareWindow is answered from that read.
func (s *shootReads) readPool(ctx context.Context, key types.NamespacedName) (string, []corev1.Node, []corev1.Pod, error) {
	now := time.Now()
	s.mu.Lock()
	for k, r := range s.pools {
		if isDone(r) && now.Sub(r.at) > shareWindow {
			delete(s.pools, k)
		}
	}
	r, shared := s.pools[key]
	if !shared {
		r = &poolRead{done: make(chan struct{})}
		s.pools[key] = r
	}
	s.mu.Unlock()

	if !shared {
		r.pool, r.nodes, r.pods, r.err = s.read(ctx, key)
		s.mu.Lock()
		r.at = time.Now()
		if r.err != nil {
			delete(s.pools, key) // an error answers the checks waiting now, not the next round's
		}
		s.mu.Unlock()
		close(r.done)
		return r.pool, r.nodes, r.pods, r.err
	}
	select {
	case <-r.done:
		return r.pool, r.nodes, r.pods, r.err
	case <-ctx.Done():
		return "", nil, nil, ctx.Err()
	}
}

func (s *shootReads) read(ctx context.Context, key types.NamespacedName) (string, []corev1.Node, []corev1.Pod, error) {
	cr, err := readRuntime(ctx, s.seed, key)
	if err != nil {
		return "", nil, nil, err
	}
	pool := cr.Spec.WorkerPool.Name
	var nodes []corev1.Node
	var pods []corev1.Pod
	err = s.withShoot(ctx, key.Namespace, func(shoot client.Reader) error {
		list := &corev1.NodeList{}
		if err := shoot.List(ctx, list, client.MatchingLabels{v1beta1constants.LabelWorkerPool: pool}); err != nil {
			return fmt.Errorf("listing the nodes of worker pool %q in the shoot: %w", pool, err)
		}
		nodes, pods = list.Items, nil
		if len(nodes) == 0 {
			return nil
		}
		var err error
		pods, err = installationPods(ctx, shoot, pool)
		return err
	})
	return pool, nodes, pods, err
}

// withShoot runs f with the client of the shoot in namespace, the one kept while the shoot access secret is the
// same (shootclient.Cache). A secret gone makes it an error: a shoot without access gets its conditions Unknown.
func (s *shootReads) withShoot(ctx context.Context, namespace string, f func(client.Reader) error) error {
	shoot, err := s.shoots.Client(ctx, namespace)
	if err != nil {
		return err
	}
	return f(shoot)
}

func isDone(r *poolRead) bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}
