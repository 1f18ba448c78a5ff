package agenticcode

import (
	"os"
	"strconv"
	"testing"
	"time"
)

func TestScratchRun(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("SYN_N"))
	seed, _ := strconv.Atoi(os.Getenv("SYN_SEED"))
	r, err := Synthesize(Options{Sessions: n, Output: os.Getenv("SYN_OUT"), Config: os.Getenv("SYN_CFG"), Seed: uint64(seed), Now: time.Unix(0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(r.Dir, r.Turns, r.Ignored)
}
