package main

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/groundwire/groundwire/lambda/dynamostore"
)

// The CloudFormation template (lambda/template.yaml) is checked offline:
// its shape, that every reference resolves, and that its permissions are
// scoped to this stack's resources.

// cfnTags are CloudFormation's short-form intrinsic functions.
var cfnTags = map[string]string{
	"!Ref": "Ref", "!GetAtt": "Fn::GetAtt", "!Sub": "Fn::Sub", "!Join": "Fn::Join",
	"!Select": "Fn::Select", "!Split": "Fn::Split", "!If": "Fn::If", "!Equals": "Fn::Equals",
	"!Not": "Fn::Not", "!And": "Fn::And", "!Or": "Fn::Or", "!FindInMap": "Fn::FindInMap",
	"!Base64": "Fn::Base64", "!Cidr": "Fn::Cidr", "!ImportValue": "Fn::ImportValue",
	"!GetAZs": "Fn::GetAZs", "!Condition": "Condition", "!Transform": "Fn::Transform",
}

// decode turns a YAML node into plain values (map[string]any, []any,
// string, bool, int...), the short-form tags into their long forms
// ({"Ref": x}, {"Fn::GetAtt": [res, attr]}, ...).
func decode(n *yaml.Node) (any, error) {
	if n.Kind == yaml.DocumentNode {
		return decode(n.Content[0])
	}
	if long, ok := cfnTags[n.Tag]; ok {
		c := *n
		c.Tag = ""
		if n.Kind == yaml.ScalarNode {
			c.Tag = "!!str"
		}
		v, err := decode(&c)
		if err != nil {
			return nil, err
		}
		if long == "Fn::GetAtt" {
			if s, ok := v.(string); ok { // !GetAtt Res.Attr
				res, attr, _ := strings.Cut(s, ".")
				v = []any{res, attr}
			}
		}
		return map[string]any{long: v}, nil
	}
	if strings.HasPrefix(n.Tag, "!") && !strings.HasPrefix(n.Tag, "!!") {
		return nil, fmt.Errorf("line %d: unknown tag %s", n.Line, n.Tag)
	}
	switch n.Kind {
	case yaml.MappingNode:
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			v, err := decode(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			m[n.Content[i].Value] = v
		}
		return m, nil
	case yaml.SequenceNode:
		var l []any
		for _, c := range n.Content {
			v, err := decode(c)
			if err != nil {
				return nil, err
			}
			l = append(l, v)
		}
		return l, nil
	case yaml.AliasNode:
		return decode(n.Alias)
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

type template struct {
	Parameters map[string]any
	Conditions map[string]any
	Resources  map[string]map[string]any
	Outputs    map[string]any
	raw        map[string]any
}

func loadTemplate(t *testing.T) template {
	t.Helper()
	data, err := os.ReadFile("../template.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		t.Fatal(err)
	}
	v, err := decode(&root)
	if err != nil {
		t.Fatal(err)
	}
	raw := v.(map[string]any)
	tpl := template{raw: raw, Resources: map[string]map[string]any{}}
	tpl.Parameters, _ = raw["Parameters"].(map[string]any)
	tpl.Outputs, _ = raw["Outputs"].(map[string]any)
	tpl.Conditions, _ = raw["Conditions"].(map[string]any)
	for name, r := range raw["Resources"].(map[string]any) {
		tpl.Resources[name] = r.(map[string]any)
	}
	return tpl
}

func (tpl template) props(name string) map[string]any {
	p, _ := tpl.Resources[name]["Properties"].(map[string]any)
	return p
}

func (tpl template) ofType(typ string) []string {
	var out []string
	for name, r := range tpl.Resources {
		if r["Type"] == typ {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

var pseudo = map[string]bool{
	"AWS::AccountId": true, "AWS::NotificationARNs": true, "AWS::NoValue": true, "AWS::Partition": true,
	"AWS::Region": true, "AWS::StackId": true, "AWS::StackName": true, "AWS::URLSuffix": true,
}

var subVar = regexp.MustCompile(`\$\{([^}]*)\}`)

// refs calls f for every reference in v: Ref, GetAtt, ${...} in Sub, with
// the path to it; DependsOn lists are references too.
func refs(v any, path string, f func(path, kind, name string)) {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			switch k {
			case "Ref":
				f(path, "Ref", c.(string))
				continue
			case "Fn::GetAtt":
				f(path, "GetAtt", c.([]any)[0].(string))
				continue
			case "Fn::Sub":
				var s string
				local := map[string]bool{}
				switch y := c.(type) {
				case string:
					s = y
				case []any:
					s = y[0].(string)
					for name, val := range y[1].(map[string]any) {
						local[name] = true
						refs(val, path+".Fn::Sub", f)
					}
				}
				for _, m := range subVar.FindAllStringSubmatch(s, -1) {
					name := m[1]
					if strings.HasPrefix(name, "!") || local[name] {
						continue
					}
					if res, _, ok := strings.Cut(name, "."); ok && !strings.HasPrefix(name, "AWS::") {
						f(path, "GetAtt", res)
					} else {
						f(path, "Ref", name)
					}
				}
				continue
			case "DependsOn":
				switch d := c.(type) {
				case string:
					f(path, "DependsOn", d)
				case []any:
					for _, e := range d {
						f(path, "DependsOn", e.(string))
					}
				}
				continue
			}
			refs(c, path+"."+k, f)
		}
	case []any:
		for i, c := range x {
			refs(c, fmt.Sprintf("%s[%d]", path, i), f)
		}
	}
}

// refersTo reports whether v holds a reference (of any kind) to name.
func refersTo(v any, name string) bool {
	found := false
	refs(v, "", func(_, _, n string) {
		if n == name {
			found = true
		}
	})
	return found
}

func TestTemplateReferencesResolve(t *testing.T) {
	tpl := loadTemplate(t)
	n := 0
	refs(tpl.raw, "", func(path, kind, name string) {
		n++
		_, isRes := tpl.Resources[name]
		_, isParam := tpl.Parameters[name]
		switch kind {
		case "Ref":
			if !isRes && !isParam && !pseudo[name] {
				t.Errorf("%s: Ref %s resolves to nothing", path, name)
			}
		default:
			if !isRes {
				t.Errorf("%s: %s %s is not a resource", path, kind, name)
			}
		}
	})
	if n < 20 {
		t.Fatalf("only %d references found: is the parser seeing the tags?", n)
	}
	for name := range tpl.Parameters {
		if !refersTo(tpl.raw["Resources"], name) && !refersTo(tpl.raw["Outputs"], name) {
			t.Errorf("parameter %s is never used", name)
		}
	}
}

func TestTemplateWebSocketAPI(t *testing.T) {
	tpl := loadTemplate(t)
	apis := tpl.ofType("AWS::ApiGatewayV2::Api")
	if len(apis) != 1 {
		t.Fatalf("APIs %v", apis)
	}
	api := apis[0]
	p := tpl.props(api)
	if p["ProtocolType"] != "WEBSOCKET" {
		t.Errorf("ProtocolType %v", p["ProtocolType"])
	}
	if rse := p["RouteSelectionExpression"]; rse != "$request.body.action" && rse != "$request.body.type" {
		t.Errorf("RouteSelectionExpression %v", rse)
	}

	var keys []string
	for _, r := range tpl.ofType("AWS::ApiGatewayV2::Route") {
		rp := tpl.props(r)
		keys = append(keys, rp["RouteKey"].(string))
		if !refersTo(rp["ApiId"], api) {
			t.Errorf("route %s: ApiId is not the API", r)
		}
		// Target: integrations/<IntegrationId>, the id a Ref to an integration of this API
		target := rp["Target"]
		var integ string
		refs(target, r, func(_, kind, name string) {
			if kind == "Ref" {
				integ = name
			}
		})
		if sub, ok := target.(map[string]any)["Fn::Sub"].(string); ok && !strings.HasPrefix(sub, "integrations/${") {
			t.Errorf("route %s: Target %q", r, sub)
		}
		if j, ok := target.(map[string]any)["Fn::Join"].([]any); ok {
			parts := j[1].([]any)
			if j[0] != "/" || len(parts) != 2 || parts[0] != "integrations" {
				t.Errorf("route %s: Target %v", r, j)
			}
		}
		if tpl.Resources[integ]["Type"] != "AWS::ApiGatewayV2::Integration" {
			t.Errorf("route %s: target %q is not an integration", r, integ)
			continue
		}
		ip := tpl.props(integ)
		if ip["IntegrationType"] != "AWS_PROXY" || !refersTo(ip["ApiId"], api) {
			t.Errorf("integration %s: %v", integ, ip)
		}
		uri, _ := ip["IntegrationUri"].(map[string]any)["Fn::Sub"].(string)
		if !strings.Contains(uri, ":lambda:path/2015-03-31/functions/${Function.Arn}/invocations") {
			t.Errorf("integration %s: IntegrationUri %q", integ, uri)
		}
	}
	sort.Strings(keys)
	if !slices.Equal(keys, []string{"$connect", "$default", "$disconnect"}) {
		t.Errorf("route keys %v", keys)
	}

	stages := tpl.ofType("AWS::ApiGatewayV2::Stage")
	if len(stages) != 1 || tpl.props(stages[0])["AutoDeploy"] != true || !refersTo(tpl.props(stages[0])["ApiId"], api) {
		t.Errorf("stage %v", stages)
	}

	perms := tpl.ofType("AWS::Lambda::Permission")
	if len(perms) != 1 {
		t.Fatalf("permissions %v", perms)
	}
	pp := tpl.props(perms[0])
	src, _ := pp["SourceArn"].(map[string]any)["Fn::Sub"].(string)
	if pp["Action"] != "lambda:InvokeFunction" || pp["Principal"] != "apigateway.amazonaws.com" ||
		!refersTo(pp["FunctionName"], "Function") ||
		src != "arn:${AWS::Partition}:execute-api:${AWS::Region}:${AWS::AccountId}:${"+api+"}/*" {
		t.Errorf("permission %v", pp)
	}

	url, _ := tpl.Outputs["WebSocketURL"].(map[string]any)["Value"].(map[string]any)["Fn::Sub"].(string)
	if !strings.HasPrefix(url, "wss://${"+api+"}.execute-api.${AWS::Region}.") || !strings.HasSuffix(url, "/${StageName}") {
		t.Errorf("WebSocketURL output %q", url)
	}
}

func TestTemplateFunctionAndTable(t *testing.T) {
	tpl := loadTemplate(t)
	f := tpl.props("Function")
	if tpl.Resources["Function"]["Type"] != "AWS::Serverless::Function" {
		t.Fatalf("Function is %v", tpl.Resources["Function"]["Type"])
	}
	arch := f["Architectures"].([]any)
	archParam := tpl.Parameters["Architecture"].(map[string]any)
	if len(arch) != 1 || !refersTo(arch[0], "Architecture") || archParam["Default"] != "arm64" {
		t.Errorf("architectures %v (default %v)", arch, archParam["Default"])
	}
	// the code is the build of the default architecture (README: lambda/build/<arch>/bootstrap)
	if f["Handler"] != "bootstrap" || f["Runtime"] != "provided.al2023" || f["CodeUri"] != "build/"+fmt.Sprint(archParam["Default"])+"/" {
		t.Errorf("function %v %v %v", f["Handler"], f["Runtime"], f["CodeUri"])
	}

	// the environment is one the bootstrap accepts, with the parameters' defaults
	vars := f["Environment"].(map[string]any)["Variables"].(map[string]any)
	envMap := map[string]string{}
	for k, v := range vars {
		ref := v.(map[string]any)["Ref"].(string)
		if ref == "Table" {
			envMap[k] = "groundwire-Table-ABC"
			continue
		}
		envMap[k] = fmt.Sprint(tpl.Parameters[ref].(map[string]any)["Default"])
	}
	if envMap["GROUNDWIRE_TABLE"] == "" {
		t.Error("GROUNDWIRE_TABLE not set")
	}
	// secrets are SSM parameter names, never values: resolved from a
	// stand-in SSM holding the default parameters
	for _, v := range secretVars {
		if _, ok := envMap[v]; ok {
			t.Errorf("%s is a plain environment variable: give %s%s", v, v, paramSuffix)
		}
		if _, ok := envMap[v+paramSuffix]; !ok {
			t.Errorf("%s%s is not set", v, paramSuffix)
		}
	}
	fake := &fakeSSM{params: map[string]string{}}
	for _, v := range secretVars {
		if p := envMap[v+paramSuffix]; p != "" {
			fake.params[p] = "0123456789abcdef-" + v
		}
	}
	if len(fake.params) == 0 {
		t.Error("no secret parameter by default: the endpoint is public")
	}
	getenv, err := resolveSecrets(context.Background(), env(envMap), fake.client(t))
	if err != nil {
		t.Fatalf("the template's secrets: %v", err)
	}
	c, err := loadConfig(getenv)
	if err != nil {
		t.Errorf("the template's environment: %v", err)
	}
	if c.AuthToken == "" {
		t.Error("the default deployment admits clients without a token")
	}

	tp := tpl.props("Table")
	ttl := tp["TimeToLiveSpecification"].(map[string]any)
	if tp["BillingMode"] != "PAY_PER_REQUEST" || ttl["AttributeName"] != "ttl" || ttl["Enabled"] != true {
		t.Errorf("table %v", tp)
	}
	ks := fmt.Sprint(tp["KeySchema"])
	if ks != "[map[AttributeName:pk KeyType:HASH] map[AttributeName:sk KeyType:RANGE]]" {
		t.Errorf("key schema %s", ks)
	}

	// the table `bootstrap -create-table` makes is the template's
	def := dynamostore.TableDefinition("t")
	var keys, attrs []string
	for _, k := range def.KeySchema {
		keys = append(keys, fmt.Sprintf("map[AttributeName:%s KeyType:%s]", *k.AttributeName, k.KeyType))
	}
	for _, a := range def.AttributeDefinitions {
		attrs = append(attrs, fmt.Sprintf("map[AttributeName:%s AttributeType:%s]", *a.AttributeName, a.AttributeType))
	}
	assert.Equal(t, ks, "["+strings.Join(keys, " ")+"]", "key schema of dynamostore.TableDefinition")
	assert.Equal(t, fmt.Sprint(tp["AttributeDefinitions"]), "["+strings.Join(attrs, " ")+"]", "attributes of dynamostore.TableDefinition")
	assert.Equal(t, tp["BillingMode"], string(def.BillingMode))
	assert.Equal(t, ttl["AttributeName"], dynamostore.TTLAttribute)

	// reserved concurrency: a parameter, 0 for none
	rc := tpl.Parameters["ReservedConcurrency"].(map[string]any)
	assert.Positive(t, rc["Default"], "ReservedConcurrency default")
	assert.Equal(t, map[string]any{"Fn::If": []any{"HasReservedConcurrency", map[string]any{"Ref": "ReservedConcurrency"}, map[string]any{"Ref": "AWS::NoValue"}}},
		f["ReservedConcurrentExecutions"])
	assert.Equal(t, map[string]any{"Fn::Not": []any{map[string]any{"Fn::Equals": []any{map[string]any{"Ref": "ReservedConcurrency"}, "0"}}}},
		tpl.Conditions["HasReservedConcurrency"])

	// the state and the logs outlive the stack
	for _, name := range []string{"Table", "LogGroup"} {
		assert.Equal(t, "Retain", tpl.Resources[name]["DeletionPolicy"], name)
		assert.Equal(t, "Retain", tpl.Resources[name]["UpdateReplacePolicy"], name)
	}
}

// TestTemplateThrottle: the $default route (every client message) has its
// own throttle, from parameters.
func TestTemplateThrottle(t *testing.T) {
	tpl := loadTemplate(t)
	stage := tpl.props(tpl.ofType("AWS::ApiGatewayV2::Stage")[0])
	rs, _ := stage["RouteSettings"].(map[string]any)["$default"].(map[string]any)
	require.NotNil(t, rs, "no RouteSettings for $default")
	assert.Equal(t, map[string]any{"Ref": "MessageBurstLimit"}, rs["ThrottlingBurstLimit"])
	assert.Equal(t, map[string]any{"Ref": "MessageRateLimit"}, rs["ThrottlingRateLimit"])
	// a route's throttle above the stage's would never apply
	def := stage["DefaultRouteSettings"].(map[string]any)
	rate := tpl.Parameters["MessageRateLimit"].(map[string]any)["Default"].(int)
	burst := tpl.Parameters["MessageBurstLimit"].(map[string]any)["Default"].(int)
	assert.LessOrEqual(t, rate, def["ThrottlingRateLimit"].(int))
	assert.LessOrEqual(t, burst, def["ThrottlingBurstLimit"].(int))
	assert.GreaterOrEqual(t, burst, rate, "a burst below the rate")
}

// TestTemplateLeastPrivilege: the function may use this table and manage
// this API's connections, and nothing else; no "*" resource.
func TestTemplateLeastPrivilege(t *testing.T) {
	tpl := loadTemplate(t)
	role := tpl.props("FunctionRole")
	if !refersTo(tpl.props("Function")["Role"], "FunctionRole") {
		t.Fatal("the function does not use FunctionRole")
	}
	if _, ok := tpl.props("Function")["Policies"]; ok {
		t.Error("SAM Policies would add statements beside FunctionRole")
	}
	if _, ok := role["ManagedPolicyArns"]; ok {
		t.Error("managed policies grant more than needed")
	}
	actions := map[string]any{}     // action → resource
	ssmGuard := map[string]string{} // parameter → condition of its statement
	for _, pol := range role["Policies"].([]any) {
		for _, st := range pol.(map[string]any)["PolicyDocument"].(map[string]any)["Statement"].([]any) {
			s := st.(map[string]any)
			if cond, ok := s["Fn::If"].([]any); ok { // a statement only when its condition holds
				if len(cond) != 3 || fmt.Sprint(cond[2]) != "map[Ref:AWS::NoValue]" {
					t.Errorf("conditional statement %v: want [condition, statement, !Ref AWS::NoValue]", cond)
					continue
				}
				s = cond[1].(map[string]any)
				if sub, ok := s["Resource"].(map[string]any)["Fn::Sub"].(string); ok {
					if m := regexp.MustCompile(`parameter\$\{(\w+)\}$`).FindStringSubmatch(sub); m != nil {
						ssmGuard[m[1]] = cond[0].(string)
					}
				}
			}
			if s["Effect"] != "Allow" {
				continue
			}
			res := s["Resource"]
			if l, ok := res.([]any); ok {
				t.Errorf("statement %v: one resource per statement expected, got %v", s["Sid"], l)
			}
			if str, ok := res.(string); ok {
				t.Errorf("statement %v: literal resource %q", s["Sid"], str)
			}
			var as []string
			switch a := s["Action"].(type) {
			case string:
				as = []string{a}
			case []any:
				for _, x := range a {
					as = append(as, x.(string))
				}
			}
			for _, a := range as {
				if strings.Contains(a, "*") {
					t.Errorf("wildcard action %s", a)
				}
				if a == "ssm:GetParameters" {
					sub, _ := res.(map[string]any)["Fn::Sub"].(string)
					if !strings.HasPrefix(sub, "arn:${AWS::Partition}:ssm:${AWS::Region}:${AWS::AccountId}:parameter${") {
						t.Errorf("ssm:GetParameters on %v, want one parameter of this account and region", res)
					}
					continue // one statement per parameter, checked below
				}
				actions[a] = res
			}
		}
	}
	var dynamo []string
	for a, res := range actions {
		switch {
		case strings.HasPrefix(a, "dynamodb:"):
			dynamo = append(dynamo, a)
			if fmt.Sprint(res) != "map[Fn::GetAtt:[Table Arn]]" {
				t.Errorf("%s on %v, want the table only", a, res)
			}
		case a == "execute-api:ManageConnections":
			sub, _ := res.(map[string]any)["Fn::Sub"].(string)
			if sub != "arn:${AWS::Partition}:execute-api:${AWS::Region}:${AWS::AccountId}:${WebSocketApi}/*" {
				t.Errorf("ManageConnections on %v, want this API only", res)
			}
		case strings.HasPrefix(a, "logs:"):
			if fmt.Sprint(res) != "map[Fn::GetAtt:[LogGroup Arn]]" {
				t.Errorf("%s on %v, want the function's log group only", a, res)
			}
		default:
			t.Errorf("unexpected action %s", a)
		}
	}
	sort.Strings(dynamo)
	// exactly what dynamostore calls
	if want := []string{"dynamodb:DeleteItem", "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:Query", "dynamodb:UpdateItem"}; !slices.Equal(dynamo, want) {
		t.Errorf("dynamodb actions %v, want %v", dynamo, want)
	}
	if _, ok := actions["execute-api:ManageConnections"]; !ok {
		t.Error("no execute-api:ManageConnections")
	}

	// each secret's parameter, and only those, may be read; each only when
	// it is set (its condition: the parameter is not "")
	vars := tpl.props("Function")["Environment"].(map[string]any)["Variables"].(map[string]any)
	var params []string
	for _, v := range secretVars {
		ref, _ := vars[v+paramSuffix].(map[string]any)["Ref"].(string)
		params = append(params, ref)
		cond, ok := ssmGuard[ref]
		if !ok {
			t.Errorf("%s (%s): no ssm:GetParameters statement", ref, v+paramSuffix)
			continue
		}
		want := map[string]any{"Fn::Not": []any{map[string]any{"Fn::Equals": []any{map[string]any{"Ref": ref}, ""}}}}
		assert.Equal(t, want, tpl.Conditions[cond], "condition %s of %s's statement", cond, ref)
		p := tpl.Parameters[ref].(map[string]any)
		assert.Equal(t, "^$|^(/[A-Za-z0-9_.-]+)+$", p["AllowedPattern"], "%s: a name for the ARN arn:...:parameter/<name>", ref)
	}
	var guarded []string
	for p := range ssmGuard {
		guarded = append(guarded, p)
	}
	assert.ElementsMatch(t, params, guarded, "parameters the function may read")
}

// TestTemplateStructure checks what a CloudFormation linter would: known
// sections and resource attributes, conditions that exist and are used,
// parameter defaults that their own constraints accept.
func TestTemplateStructure(t *testing.T) {
	tpl := loadTemplate(t)
	sections := []string{"AWSTemplateFormatVersion", "Transform", "Description", "Metadata", "Parameters", "Mappings", "Conditions", "Resources", "Outputs", "Globals"}
	for k := range tpl.raw {
		assert.Contains(t, sections, k, "top-level section")
	}
	attrs := []string{"Type", "Properties", "DependsOn", "DeletionPolicy", "UpdateReplacePolicy", "Condition", "Metadata"}
	policies := []string{"Delete", "Retain", "RetainExceptOnCreate", "Snapshot"}
	for name, r := range tpl.Resources {
		for k, v := range r {
			assert.Contains(t, attrs, k, "resource %s", name)
			if k == "DeletionPolicy" || k == "UpdateReplacePolicy" {
				assert.Contains(t, policies, v, "resource %s %s", name, k)
			}
		}
	}

	// conditions: every one used is defined, every one defined is used
	used := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				if k == "Fn::If" {
					used[c.([]any)[0].(string)] = true
				}
				if k == "Condition" {
					if s, ok := c.(string); ok {
						used[s] = true
					}
				}
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(tpl.raw["Resources"])
	walk(tpl.raw["Outputs"])
	walk(tpl.raw["Conditions"])
	for c := range used {
		assert.Contains(t, tpl.Conditions, c, "condition used but not defined")
	}
	for c := range tpl.Conditions {
		assert.True(t, used[c], "condition %s is never used", c)
	}

	// parameter defaults satisfy the parameter's own constraints
	for name, pv := range tpl.Parameters {
		p := pv.(map[string]any)
		def, has := p["Default"]
		if !has {
			continue
		}
		str := fmt.Sprint(def)
		switch p["Type"] {
		case "String":
			if pat, ok := p["AllowedPattern"].(string); ok {
				assert.Regexp(t, "^(?:"+pat+")$", str, "parameter %s default vs AllowedPattern", name)
			}
		case "Number":
			n, err := strconv.ParseFloat(str, 64)
			if !assert.NoError(t, err, "parameter %s default", name) {
				continue
			}
			if lo, ok := p["MinValue"].(int); ok {
				assert.GreaterOrEqual(t, n, float64(lo), "parameter %s default vs MinValue", name)
			}
			if hi, ok := p["MaxValue"].(int); ok {
				assert.LessOrEqual(t, n, float64(hi), "parameter %s default vs MaxValue", name)
			}
		default:
			t.Errorf("parameter %s: type %v", name, p["Type"])
		}
		if av, ok := p["AllowedValues"].([]any); ok {
			var vals []string
			for _, v := range av {
				vals = append(vals, fmt.Sprint(v))
			}
			assert.Contains(t, vals, str, "parameter %s default vs AllowedValues", name)
		}
	}
}

func TestDecodeShortTags(t *testing.T) {
	src := "a: !Ref X\nb: !GetAtt R.Arn\nc: !Sub '${A}-${B.Arn}-${!Literal}-${AWS::Region}'\nd: !Join ['/', [x, !Ref Y]]\ne: !Sub ['${v}', {v: !Ref Z}]\n"
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(src), &root); err != nil {
		t.Fatal(err)
	}
	v, err := decode(&root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	refs(v, "", func(_, kind, name string) { got = append(got, kind+" "+name) })
	sort.Strings(got)
	want := []string{"GetAtt B", "GetAtt R", "Ref A", "Ref AWS::Region", "Ref X", "Ref Y", "Ref Z"}
	if !slices.Equal(got, want) {
		t.Fatalf("refs %v\nwant %v", got, want)
	}
	if err := yaml.Unmarshal([]byte("a: !Bogus x\n"), &root); err != nil {
		t.Fatal(err)
	}
	if _, err := decode(&root); err == nil {
		t.Fatal("unknown tag accepted")
	}
}
