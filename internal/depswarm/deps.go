//go:build depswarm

// Package depswarm pins the dependencies while the packages that use them are written.
package depswarm

import (
	_ "github.com/coreos/go-systemd/v22/dbus"
	_ "github.com/gardener/gardener/extensions/pkg/controller/cmd"
	_ "github.com/gardener/gardener/extensions/pkg/controller/containerruntime"
	_ "github.com/gardener/gardener/extensions/pkg/controller/heartbeat"
	_ "github.com/gardener/gardener/extensions/pkg/util"
	_ "github.com/gardener/gardener/pkg/chartrenderer"
	_ "github.com/gardener/gardener/pkg/resourcemanager/controller/health"
	_ "github.com/gardener/gardener/pkg/resourcemanager/controller/managedresource"
	_ "github.com/gardener/gardener/pkg/utils/imagevector"
	_ "github.com/gardener/gardener/pkg/utils/managedresources"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/pelletier/go-toml/v2"
	_ "google.golang.org/grpc"
	_ "helm.sh/helm/v3/pkg/chart/loader"
	_ "helm.sh/helm/v3/pkg/chartutil"
	_ "helm.sh/helm/v3/pkg/engine"
	_ "k8s.io/api/node/v1"
	_ "k8s.io/cri-api/pkg/apis/runtime/v1"
	_ "sigs.k8s.io/controller-runtime/pkg/envtest"
	_ "sigs.k8s.io/yaml"
)
