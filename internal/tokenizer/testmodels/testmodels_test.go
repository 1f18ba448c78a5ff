package testmodels

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestFetchEveryModel(t *testing.T) {
	for _, m := range Names() {
		t.Run(m, func(t *testing.T) {
			dir := Dir(t, m)
			for _, f := range files() {
				data, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				if !json.Valid(data) {
					t.Errorf("%s/%s is not valid JSON", m, f)
				}
			}
		})
	}
}

func TestUnknownModel(t *testing.T) {
	if _, err := Fetch("no-such-model"); err == nil {
		t.Fatal("Fetch of an unknown model succeeded")
	}
}
