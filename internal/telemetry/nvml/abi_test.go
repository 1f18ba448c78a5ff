package nvml

import (
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"unsafe"
)

// TestSymbolTable: symbols binds every function field of library exactly
// once, under distinct C names, so no call can reach a nil function
// except an optional one the collector checks.
func TestSymbolTable(t *testing.T) {
	l := &library{}
	lv := reflect.ValueOf(l).Elem()
	bound := map[uintptr]string{}
	names := map[string]bool{}
	for _, s := range l.symbols() {
		if names[s.name] {
			t.Errorf("%s is listed twice", s.name)
		}
		names[s.name] = true
		p := reflect.ValueOf(s.fn)
		if p.Kind() != reflect.Pointer || p.Elem().Kind() != reflect.Func {
			t.Errorf("%s binds %T; want a pointer to a function field", s.name, s.fn)
			continue
		}
		bound[p.Pointer()] = s.name
		if !strings.HasPrefix(s.name, "nvml") {
			t.Errorf("%s is not an NVML function name", s.name)
		}
	}
	for i := range lv.NumField() {
		f := lv.Type().Field(i)
		if f.Type.Kind() != reflect.Func {
			t.Errorf("library.%s is not a function", f.Name)
			continue
		}
		if _, ok := bound[lv.Field(i).Addr().Pointer()]; !ok {
			t.Errorf("library.%s has no symbol: it would stay nil", f.Name)
		}
	}
	if len(bound) != lv.NumField() {
		t.Errorf("%d symbols for %d functions", len(bound), lv.NumField())
	}
}

// TestABILayout: the Go structs passed to NVML have nvml.h's sizes and
// field offsets on 64-bit Linux (a wrong one would read the neighbouring
// field or write past the struct).
func TestABILayout(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("layouts are checked for 64-bit targets")
	}
	for _, c := range []struct {
		what      string
		got, want uintptr
	}{
		{"sizeof(nvmlPciInfo_t)", unsafe.Sizeof(pciInfo{}), 68},
		{"offsetof(nvmlPciInfo_t, domain)", unsafe.Offsetof(pciInfo{}.Domain), 16},
		{"offsetof(nvmlPciInfo_t, busId)", unsafe.Offsetof(pciInfo{}.BusID), 36},
		{"sizeof(nvmlUtilization_t)", unsafe.Sizeof(utilization{}), 8},
		{"sizeof(nvmlMemory_t)", unsafe.Sizeof(memory{}), 24},
		{"offsetof(nvmlMemory_t, used)", unsafe.Offsetof(memory{}.Used), 16},
		{"sizeof(nvmlProcessUtilizationSample_t)", unsafe.Sizeof(processSample{}), 32},
		{"offsetof(nvmlProcessUtilizationSample_t, timeStamp)", unsafe.Offsetof(processSample{}.TimeStamp), 8},
		{"offsetof(nvmlProcessUtilizationSample_t, smUtil)", unsafe.Offsetof(processSample{}.SMUtil), 16},
		{"sizeof(nvmlViolationTime_t)", unsafe.Sizeof(violationTime{}), 16},
		{"offsetof(nvmlViolationTime_t, violationTime)", unsafe.Offsetof(violationTime{}.ViolationTime), 8},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d; nvml.h has %d", c.what, c.got, c.want)
		}
	}
}

// TestNVMLBuild runs this package's tests in the nvml build (the one that
// loads the library), so `go test ./...` covers the loader too.
func TestNVMLBuild(t *testing.T) {
	if Supported {
		t.Skip("this is the nvml build")
	}
	if testing.Short() {
		t.Skip("builds the package with -tags nvml")
	}
	cmd := exec.Command("go", "test", "-count=1", "-tags", "nvml", ".")
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test -tags nvml: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}
