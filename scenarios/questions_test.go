package scenarios

import (
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/questions.md")

// docs/questions.md is QuestionsMarkdown, and the table is numbered 1..maxQuestion.
func TestQuestionsDoc(t *testing.T) {
	for i, q := range Questions {
		if q.N != i+1 || q.Text == "" {
			t.Fatalf("question %d is numbered %d", i+1, q.N)
		}
	}
	if len(Questions) != maxQuestion {
		t.Fatalf("%d questions, maxQuestion %d", len(Questions), maxQuestion)
	}
	want := QuestionsMarkdown()
	const path = "../docs/questions.md"
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("%s is out of date: go test ./scenarios -run TestQuestionsDoc -update", path)
	}
}
