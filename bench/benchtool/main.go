// Command benchtool is the measuring half of the bench/ scripts: it checks
// the client's timing against the mock server's ground truth, runs a
// command while sampling its CPU, memory and the mock's in-flight count,
// and reads numbers out of JSON artifacts, so the scripts need nothing but
// a shell and Go.
//
//	benchtool groundtruth -server requests.jsonl -client profile_export.jsonl [-json]
//	benchtool run [-health URL] [-o stats.json] -- command args...
//	benchtool json FILE key.path...
//	benchtool wakefloor [-n 500] [-gap 20ms]
//	benchtool openloop -url URL [-rate 1000] [-duration 5s] [-conns 64] [-quantum 0] [-arrival constant|poisson]
//
// It is not part of aiperf; it reads aiperf's files the way any user's
// tool would.
package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches a subcommand and returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: benchtool groundtruth|run|json|wakefloor|openloop ...")
		return 2
	}
	var err error
	code := 0
	switch args[0] {
	case "groundtruth":
		err = groundTruthMain(args[1:], stdout)
	case "run":
		code, err = runMain(args[1:], stdout)
	case "json":
		err = jsonMain(args[1:], stdout)
	case "wakefloor":
		err = wakeFloorMain(args[1:], stdout)
	case "openloop":
		err = openLoopMain(args[1:], stdout)
	default:
		err = fmt.Errorf("unknown subcommand %q (groundtruth, run, json, wakefloor, openloop)", args[0])
	}
	if err != nil {
		fmt.Fprintln(stderr, "benchtool:", err)
		return 1
	}
	return code
}
