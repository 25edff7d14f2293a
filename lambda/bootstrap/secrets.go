package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// secretVars are the variables that hold secrets. Each may instead be given
// as the name (or ARN) of an SSM Parameter Store parameter, a SecureString,
// in the variable of the same name with the suffix _PARAM — what the
// template does, so that the secret is in no environment variable.
var secretVars = []string{"GROUNDWIRE_AUTH_TOKEN", "GROUNDWIRE_AUTH_SECRET", "OPENAI_API_KEY"}

const paramSuffix = "_PARAM"

// parameterGetter reads SSM parameters, decrypted ([ssmClient]).
type parameterGetter interface {
	GetParameters(ctx context.Context, names []string) (*ssmParameters, error)
}

// resolveSecrets returns getenv with every secret whose _PARAM variable is
// set read from SSM Parameter Store (decrypted), in one GetParameters call.
// main calls it once, at cold start: the values are then kept for the life
// of the execution environment (rotating a secret takes new environments,
// e.g. a redeploy or an update of the function's configuration). newClient
// is called only when some _PARAM is set, so local runs with plain values
// need no SSM. Setting both a secret and its _PARAM, a parameter that does
// not exist and an empty value are errors.
func resolveSecrets(ctx context.Context, getenv func(string) string, newClient func() parameterGetter) (func(string) string, error) {
	byParam := map[string][]string{} // parameter → variables
	var names []string
	var errs []error
	for _, v := range secretVars {
		p := strings.TrimSpace(getenv(v + paramSuffix))
		if p == "" {
			continue
		}
		if getenv(v) != "" {
			errs = append(errs, fmt.Errorf("%s and %s are both set: give the secret one way", v, v+paramSuffix))
			continue
		}
		if byParam[p] == nil {
			names = append(names, p)
		}
		byParam[p] = append(byParam[p], v)
	}
	if len(names) == 0 || len(errs) > 0 {
		return getenv, errors.Join(errs...)
	}
	out, err := newClient().GetParameters(ctx, names)
	if err != nil {
		return nil, fmt.Errorf("reading %s from SSM Parameter Store: %w", strings.Join(names, ", "), err)
	}
	values := map[string]string{}
	for _, p := range out.Parameters {
		// GetParameters answers with the names asked for; an ARN asked for
		// comes back as the parameter's ARN in ARN, its name in Name.
		for _, key := range []string{p.Name, p.ARN} {
			if _, asked := byParam[key]; asked {
				values[key] = p.Value
			}
		}
	}
	for _, p := range names {
		val, ok := values[p]
		switch {
		case !ok && slices.Contains(out.InvalidParameters, p):
			errs = append(errs, fmt.Errorf("%s=%q: no such parameter (or no permission to read it)", byParam[p][0]+paramSuffix, p))
		case !ok:
			errs = append(errs, fmt.Errorf("%s=%q: not returned by SSM", byParam[p][0]+paramSuffix, p))
		case strings.TrimSpace(val) == "":
			errs = append(errs, fmt.Errorf("%s=%q: the parameter is empty", byParam[p][0]+paramSuffix, p))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	resolved := map[string]string{}
	for p, vars := range byParam {
		for _, v := range vars {
			resolved[v] = values[p]
		}
	}
	return func(k string) string {
		if v, ok := resolved[k]; ok {
			return v
		}
		return getenv(k)
	}, nil
}
