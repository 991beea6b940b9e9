// Package sarifcheck validates SARIF logs against the OASIS SARIF 2.1.0
// JSON schema (errata 01, testdata/sarif-schema-2.1.0.json, from the
// oasis-tcs/sarif-spec repository). It is for tests: the daemon never
// imports it, so the validator stays out of the binaries.
package sarifcheck

import (
	"bytes"
	_ "embed"
	"fmt"
	"sync"

	"github.com/gasoline-mcp/gasoline/internal/audit"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed testdata/sarif-schema-2.1.0.json
var schemaJSON []byte

var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(audit.SARIFSchema, doc); err != nil {
		return nil, err
	}
	return c.Compile(audit.SARIFSchema)
})

// Validate returns nil when log is a SARIF 2.1.0 log the schema accepts,
// else an error listing where it does not. It is safe for concurrent use.
func Validate(log []byte) error {
	s, err := compiled()
	if err != nil {
		return fmt.Errorf("compiling the SARIF 2.1.0 schema: %w", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(log))
	if err != nil {
		return fmt.Errorf("decoding the SARIF log: %w", err)
	}
	return s.Validate(inst)
}
