package model

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docs/semantics.md's "Not modelled" paragraphs name the Kafka changes the core leaves out;
// a change the core does model (its id in a comment of the code that holds the rule) must
// not be listed there too (KAFKA-20742 was, after it was modelled).
func TestNotModelledListIsNotModelled(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "semantics.md"))
	if err != nil {
		t.Fatal(err)
	}
	var claims []string
	for _, para := range strings.Split(string(doc), "\n\n") {
		if strings.HasPrefix(para, "Not modelled") || strings.Contains(para, "**Not modelled:**") {
			claims = append(claims, regexp.MustCompile(`KAFKA-\d+`).FindAllString(para, -1)...)
		}
	}
	if len(claims) == 0 {
		t.Fatal("no KAFKA id found in docs/semantics.md's not-modelled paragraphs")
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range claims {
			if regexp.MustCompile(regexp.QuoteMeta(id) + `\b`).Match(src) {
				t.Errorf("docs/semantics.md lists %s as not modelled, but model/%s holds it", id, f)
			}
		}
	}
}
