package chattemplate

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/aiperf-go/aiperf/internal/tokenizer/testmodels"
)

// regenerate fetches the test models and reruns testdata/gen_golden.py,
// which writes testdata/golden from Python jinja2 (go test -update).
func regenerate() error {
	var root string
	for _, m := range testmodels.Names() {
		dir, err := testmodels.Fetch(m)
		if err != nil {
			return err
		}
		root = filepath.Dir(dir)
	}
	if err := os.RemoveAll(filepath.Join("testdata", "golden")); err != nil {
		return err
	}
	cmd := exec.Command("python3", filepath.Join("testdata", "gen_golden.py"), root)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("gen_golden.py: %w\n%s", err, out)
	}
	return nil
}
