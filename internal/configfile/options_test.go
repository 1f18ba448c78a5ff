package configfile

import "testing"

// TestFlagKeysComeFromTheOptionTable keeps the config-file keys that a
// flag overrides in the option table: a row written here by hand with a
// flag would be a second declaration of that option.
func TestFlagKeysComeFromTheOptionTable(t *testing.T) {
	rows := fields()
	derived := len(optionFields())
	for _, r := range rows[:derived] {
		if r.flag == "" {
			t.Errorf("option row %s has no flag", r.path)
		}
	}
	for _, r := range rows[derived:] {
		if r.flag != "" {
			t.Errorf("%s names --%s: declare the key on the option (internal/option), not as a row here", r.path, r.flag)
		}
	}
}
