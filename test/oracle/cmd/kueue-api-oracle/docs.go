package main

// Input documents: a multi-document YAML (or JSON) stream, each document
// decoded as the API server decodes a request body (integers as int64, so
// that schema and CEL rules see the types they check).

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsyaml "sigs.k8s.io/yaml"
)

// doc is one input document; err is set when it is not a JSON object.
type doc struct {
	raw map[string]any
	err error
}

func readDocs(file string) ([]doc, error) {
	var r io.Reader = os.Stdin
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	yr := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var out []doc
	for {
		b, err := yr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if len(bytes.TrimSpace(b)) == 0 || isComment(b) {
			continue
		}
		j, err := sigsyaml.YAMLToJSON(b)
		if err != nil {
			out = append(out, doc{err: err})
			continue
		}
		var m map[string]any
		if err := utiljson.Unmarshal(j, &m); err != nil {
			out = append(out, doc{err: err})
			continue
		}
		if m == nil {
			continue
		}
		out = append(out, doc{raw: m})
	}
	return out, nil
}

// isComment: a document of comments and separators only.
func isComment(b []byte) bool {
	for _, l := range bytes.Split(b, []byte("\n")) {
		t := bytes.TrimSpace(l)
		if len(t) > 0 && t[0] != '#' && !bytes.Equal(t, []byte("---")) {
			return false
		}
	}
	return true
}
