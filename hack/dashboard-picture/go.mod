module github.com/runtime-gvisor/gardener-extension-runtime-gvisor/hack/dashboard-picture

go 1.26.0

require golang.org/x/image v0.48.0
