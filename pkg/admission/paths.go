package admission

import (
	"errors"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/apis/gvisor/v1alpha1"
)

// rebase turns the errors of v1alpha1.Decode, whose field paths start at v1alpha1.ProviderConfigPath
// ("providerConfig..."), into errors at the Shoot's providerConfig path (to), keeping type, value and detail.
// An error that is not a *field.Error (not expected from Decode) is kept as an Invalid error at to.
func rebase(err error, to *field.Path) field.ErrorList {
	if err == nil {
		return nil
	}
	var list []error
	type aggregate interface{ Errors() []error }
	var agg aggregate
	if errors.As(err, &agg) {
		list = agg.Errors()
	} else {
		list = []error{err}
	}
	root := v1alpha1.ProviderConfigPath.String()
	out := make(field.ErrorList, 0, len(list))
	for _, e := range list {
		var fe *field.Error
		if !errors.As(e, &fe) {
			out = append(out, field.Invalid(to, "", e.Error()))
			continue
		}
		c := *fe
		if rest, ok := strings.CutPrefix(c.Field, root); ok {
			c.Field = to.String() + rest
		} else {
			c.Field = to.String() + "." + c.Field
		}
		out = append(out, &c)
	}
	return out
}
