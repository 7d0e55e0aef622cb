// Command check reads Kubernetes objects as YAML documents (what `helm template` prints) and
// refuses each one the API server would refuse for its shape: an apiVersion and kind that are not
// a built-in type, a field the type does not have (misspelt, or in the wrong place), a field of the
// wrong type, a field given twice, a name or label the server would refuse, or a workload whose
// selector does not select its own pods. It decodes into k8s.io/api's own types, case-sensitively
// and strictly, as `kubectl apply --validate=strict` would, but offline: kubeconform fetches its
// schemas from GitHub, which our machines cannot reach.
//
//	helm template orrery deploy/helm/orrery | check
//
// Prints the objects it checked; exits 1 when any is refused, each problem on its own line.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kubeyaml "k8s.io/apimachinery/pkg/util/yaml"
	strictjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// The API groups a chart of ours may render; anything else is refused as unknown, so a removed
// version (autoscaling/v2beta2) fails here rather than on a cluster.
var scheme = newScheme(
	corev1.AddToScheme, appsv1.AddToScheme, batchv1.AddToScheme, autoscalingv2.AddToScheme,
	policyv1.AddToScheme, networkingv1.AddToScheme, rbacv1.AddToScheme,
)

func newScheme(groups ...func(*runtime.Scheme) error) *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range groups {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}

// A document's origin, as helm template marks it: `# Source: orrery/templates/api.yaml`.
var sourceComment = regexp.MustCompile(`(?m)^# Source: (\S+)`)

func main() {
	checked, problems, err := checkStream(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	for _, object := range checked {
		fmt.Println("checked", object)
	}
	for _, problem := range problems {
		fmt.Fprintln(os.Stderr, problem)
	}
	if len(problems) > 0 {
		fmt.Fprintf(os.Stderr, "problems: %d, objects checked: %d\n", len(problems), len(checked))
		os.Exit(1)
	}
}

// checkStream answers the objects it read and every problem found, each naming its object.
func checkStream(input io.Reader) (checked []string, problems []string, err error) {
	reader := kubeyaml.NewYAMLReader(bufio.NewReader(input))
	for index := 1; ; index++ {
		document, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return checked, problems, nil
		}
		if err != nil {
			return nil, nil, fmt.Errorf("document %d: %w", index, err)
		}
		where := fmt.Sprintf("document %d", index)
		if source := sourceComment.FindSubmatch(document); source != nil {
			where = string(source[1])
		}
		name, found, empty := checkDocument(document)
		if empty {
			continue
		}
		checked = append(checked, fmt.Sprintf("%s %s", where, name))
		for _, problem := range found {
			problems = append(problems, fmt.Sprintf("%s %s: %s", where, name, problem))
		}
	}
}

// checkDocument answers the object's kind/name and its problems; empty for a document of comments.
func checkDocument(document []byte) (name string, problems []string, empty bool) {
	data, err := yaml.YAMLToJSONStrict(document)
	if err != nil {
		return "?", []string{err.Error()}, false
	}
	if strings.TrimSpace(string(data)) == "null" {
		return "", nil, true
	}
	var meta struct {
		metav1.TypeMeta
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(data, &meta); err != nil {
		return "?", []string{"not an object: " + err.Error()}, false
	}
	name = meta.Kind + "/" + meta.Metadata.Name
	object, err := scheme.New(schema.FromAPIVersionAndKind(meta.APIVersion, meta.Kind))
	if err != nil {
		return name, []string{fmt.Sprintf("apiVersion %q kind %q is not a Kubernetes type: %v", meta.APIVersion, meta.Kind, err)}, false
	}
	// Unknown and repeated fields come back as strictErrors, a wrong type as err.
	strictErrors, err := strictjson.UnmarshalStrict(data, object)
	if err != nil {
		return name, []string{err.Error()}, false
	}
	for _, strictError := range strictErrors {
		problems = append(problems, strictError.Error())
	}
	for _, invalid := range checkObject(object) {
		problems = append(problems, invalid.Error())
	}
	return name, problems, false
}

// checkObject holds what the API server refuses beyond the shape: names, labels, and a workload
// whose selector does not select its own pods.
func checkObject(object runtime.Object) field.ErrorList {
	accessor, ok := object.(metav1.Object)
	if !ok {
		return nil
	}
	metadata := field.NewPath("metadata")
	problems := checkName(object, accessor.GetName(), metadata.Child("name"))
	problems = append(problems, metavalidation.ValidateLabels(accessor.GetLabels(), metadata.Child("labels"))...)
	template := field.NewPath("spec", "template")
	switch workload := object.(type) {
	case *appsv1.Deployment:
		problems = append(problems, checkPods(workload.Spec.Selector, &workload.Spec.Template, template)...)
	case *appsv1.DaemonSet:
		problems = append(problems, checkPods(workload.Spec.Selector, &workload.Spec.Template, template)...)
	case *appsv1.StatefulSet:
		problems = append(problems, checkPods(workload.Spec.Selector, &workload.Spec.Template, template)...)
	case *batchv1.Job:
		// A Job's selector is made by the server unless manualSelector is set.
		problems = append(problems, checkPods(workload.Spec.Selector, &workload.Spec.Template, template)...)
	}
	return problems
}

func checkName(object runtime.Object, name string, path *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(path, "")}
	}
	check := validation.IsDNS1123Subdomain
	if _, isService := object.(*corev1.Service); isService {
		// A Service's name is a DNS label: 63 characters at most, starting with a letter.
		check = validation.IsDNS1035Label
	}
	var problems field.ErrorList
	for _, message := range check(name) {
		problems = append(problems, field.Invalid(path, name, message))
	}
	return problems
}

// checkPods: the pod template's labels are valid and, when a selector is given, it selects them.
func checkPods(selector *metav1.LabelSelector, pods *corev1.PodTemplateSpec, path *field.Path) field.ErrorList {
	labelsPath := path.Child("metadata", "labels")
	problems := metavalidation.ValidateLabels(pods.Labels, labelsPath)
	if selector == nil {
		return problems
	}
	selects, err := metav1.LabelSelectorAsSelector(selector)
	if err != nil {
		return append(problems, field.Invalid(field.NewPath("spec", "selector"), selector, err.Error()))
	}
	if selects.Empty() || !selects.Matches(labels.Set(pods.Labels)) {
		problems = append(problems, field.Invalid(labelsPath, pods.Labels, "`selector` does not match template `labels`"))
	}
	return problems
}
