package audit

import "encoding/json"

// SARIFSchema is the $schema a SARIF log names: the OASIS SARIF 2.1.0
// schema (errata 01), which testdata/sarif-schema-2.1.0.json holds.
const SARIFSchema = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

// The SARIF 2.1.0 objects SARIF writes, with only the properties it sets.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool    sarifTool     `json:"tool"`
		Results []sarifResult `json:"results"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		Version        string      `json:"version,omitempty"`
		InformationURI string      `json:"informationUri"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string         `json:"id"`
		ShortDescription     sarifText      `json:"shortDescription"`
		HelpURI              string         `json:"helpUri,omitempty"`
		DefaultConfiguration sarifConfig    `json:"defaultConfiguration"`
		Properties           map[string]any `json:"properties,omitempty"`
	}
	sarifConfig struct {
		Level string `json:"level"`
	}
	sarifText struct {
		Text string `json:"text"`
	}
	sarifResult struct {
		RuleID    string          `json:"ruleId"`
		RuleIndex int             `json:"ruleIndex"`
		Kind      string          `json:"kind"` // fail; review for what axe could not decide
		Level     string          `json:"level"`
		Message   sarifText       `json:"message"`
		Locations []sarifLocation `json:"locations"`
	}
	sarifLocation struct {
		PhysicalLocation sarifPhysical  `json:"physicalLocation"`
		LogicalLocations []sarifLogical `json:"logicalLocations,omitempty"`
		// Properties holds the element's markup: a region would need a
		// line or offset in a source the page's DOM does not have.
		Properties map[string]string `json:"properties,omitempty"`
	}
	sarifPhysical struct {
		ArtifactLocation sarifArtifact `json:"artifactLocation"`
	}
	sarifArtifact struct {
		URI string `json:"uri"`
	}
	sarifLogical struct {
		Name               string `json:"name,omitempty"`
		FullyQualifiedName string `json:"fullyQualifiedName,omitempty"`
		Kind               string `json:"kind"`
	}
)

// level maps an axe impact to a SARIF level.
func level(impact string) string {
	switch impact {
	case "critical", "serious":
		return "error"
	case "moderate":
		return "warning"
	}
	return "note"
}

// SARIF returns r as a SARIF 2.1.0 log: one run of the tool axe-core, a
// rule per violated or undecided axe rule (with its tags and element count
// as properties), and a result per element the report holds (kind "fail",
// or "review" at level "none" for what axe could not decide), located at the
// page's URL, with the element's markup as a property, and its CSS target and
// outline ref as logical location.
func SARIF(r Report) ([]byte, error) {
	drv := sarifDriver{Name: "axe-core", Version: r.Engine, InformationURI: "https://github.com/dequelabs/axe-core", Rules: []sarifRule{}}
	results := []sarifResult{}
	violations := sorted(r.Rules)
	for i, rule := range append(violations, sorted(r.Review)...) {
		review := i >= len(violations)
		props := map[string]any{"count": rule.Count, "impact": rule.Impact}
		if len(rule.Tags) > 0 {
			props["tags"] = rule.Tags
		}
		drv.Rules = append(drv.Rules, sarifRule{ID: rule.ID, ShortDescription: sarifText{rule.Help}, HelpURI: rule.HelpURL,
			DefaultConfiguration: sarifConfig{level(rule.Impact)}, Properties: props})
		for _, n := range rule.Nodes {
			msg := rule.Help
			if n.Summary != "" {
				msg += ". " + n.Summary
			}
			loc := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: r.URL}}}
			if n.HTML != "" {
				loc.Properties = map[string]string{"html": n.HTML}
			}
			if n.Target != "" || n.Ref != "" {
				loc.LogicalLocations = []sarifLogical{{Name: n.Ref, FullyQualifiedName: n.Target, Kind: "element"}}
			}
			res := sarifResult{RuleID: rule.ID, RuleIndex: i, Kind: "fail", Level: level(rule.Impact), Message: sarifText{msg}, Locations: []sarifLocation{loc}}
			if review {
				res.Kind, res.Level = "review", "none"
			}
			results = append(results, res)
		}
	}
	return json.Marshal(sarifLog{Schema: SARIFSchema, Version: "2.1.0", Runs: []sarifRun{{Tool: sarifTool{drv}, Results: results}}})
}
