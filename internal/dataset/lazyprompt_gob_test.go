package dataset

import (
	"bytes"
	"encoding/gob"
	"errors"
	"testing"
)

// TestTurnGob: a dataset travels to load workers with gob. A turn whose
// prompt is built (Prompt nil) round-trips; a lazy prompt refuses to
// travel, as its corpus stays in this process.
func TestTurnGob(t *testing.T) {
	in := Dataset{Conversations: []Conversation{{ID: "c0", Turns: []Turn{{Texts: []string{"hello"}, InputTokens: 1}}}}}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(&in); err != nil {
		t.Fatalf("encoding a built dataset: %v", err)
	}
	var out Dataset
	if err := gob.NewDecoder(&b).Decode(&out); err != nil {
		t.Fatalf("decoding it: %v", err)
	}
	if got := out.Conversations[0].Turns[0]; got.Texts[0] != "hello" || got.Prompt != nil {
		t.Errorf("round trip: %+v", got)
	}
	in.Conversations[0].Turns[0].Prompt = &Prompt{}
	if err := gob.NewEncoder(&bytes.Buffer{}).Encode(&in); !errors.Is(err, errLazyGob) {
		t.Errorf("encoding a lazy prompt: %v; want errLazyGob", err)
	}
}
