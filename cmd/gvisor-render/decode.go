// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

var containerRuntimeGVK = extensionsv1alpha1.SchemeGroupVersion.WithKind("ContainerRuntime")

// decoder reads ContainerRuntimes strictly: a misspelt field is an error naming it, not silently dropped.
var decoder = func() runtime.Decoder {
	scheme := runtime.NewScheme()
	if err := extensionsv1alpha1.AddToScheme(scheme); err != nil {
		panic(err)
	}
	return serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDeserializer()
}()

// decodeContainerRuntimes reads every YAML document of data as a ContainerRuntime.
func decodeContainerRuntimes(data []byte) ([]*extensionsv1alpha1.ContainerRuntime, error) {
	reader := utilyaml.NewYAMLReader(bufioReader(data))
	var crs []*extensionsv1alpha1.ContainerRuntime
	for i := 1; ; i++ {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		if len(bytes.TrimSpace(stripComments(doc))) == 0 {
			continue
		}
		if err := checkTypeMeta(doc); err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		obj, _, err := decoder.Decode(doc, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		cr, ok := obj.(*extensionsv1alpha1.ContainerRuntime)
		if !ok {
			return nil, fmt.Errorf("document %d: decoded %T, want a ContainerRuntime", i, obj)
		}
		crs = append(crs, cr)
	}
	if len(crs) == 0 {
		return nil, fmt.Errorf("no ContainerRuntime found: the file must hold at least one document of apiVersion %s, kind ContainerRuntime",
			containerRuntimeGVK.GroupVersion())
	}
	return crs, nil
}

// checkTypeMeta names apiVersion and kind when they are missing or not a ContainerRuntime's, with the fix,
// before the decoder's terser messages (which quote the whole document) can.
func checkTypeMeta(doc []byte) error {
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		return fmt.Errorf("not a YAML object: %w", err)
	}
	want := containerRuntimeGVK.GroupVersion().String()
	var errs []string
	if tm.APIVersion != want {
		errs = append(errs, fmt.Sprintf("apiVersion is %q, want %q", tm.APIVersion, want))
	}
	if tm.Kind != containerRuntimeGVK.Kind {
		errs = append(errs, fmt.Sprintf("kind is %q, want %q", tm.Kind, containerRuntimeGVK.Kind))
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s: gvisor-render renders ContainerRuntimes of type gvisor only", strings.Join(errs, ", "))
	}
	return nil
}

func stripComments(doc []byte) []byte {
	var out bytes.Buffer
	for _, line := range bytes.Split(doc, []byte("\n")) {
		if t := bytes.TrimSpace(line); len(t) > 0 && t[0] != '#' {
			out.Write(line)
			out.WriteByte('\n')
		}
	}
	return out.Bytes()
}

func bufioReader(data []byte) *bufio.Reader { return bufio.NewReader(bytes.NewReader(data)) }
