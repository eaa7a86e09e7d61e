// kubeadm-wasm-host runs calls of the kubeadm-core component (dist/kubeadm-core.wasm) on
// Wasmtime from Go, for the tests (tests/wasm/go_host_test.ts) and the benchmark
// (scripts/bench-wasm). It knows nothing of the API: arguments and results are converted
// through the functions' WIT types (values.go), so every function is called as a Go program
// embedding the component would.
//
// Usage:
//
//	kubeadm-wasm-host -component kubeadm-core.wasm -calls calls.json [-cache DIR]
//
// calls.json: {"interface": "kubeadm:core/api@0.1.0", "calls": [{"fn": "parse-token",
// "args": [...], "repeat": 0}, ...]}. Output on stdout, JSON: Wasmtime's version, the load
// (compile, or deserialize from -cache) and instantiation times, and per call its result
// ({"ok": ...} or {"err": ...}), or the trap, with the first call's time and, with "repeat",
// the mean time of that many more calls.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"
)

type call struct {
	Fn     string `json:"fn"`
	Args   []any  `json:"args"`
	Repeat int    `json:"repeat"`
}

type outcome struct {
	Result   any     `json:"result,omitempty"`
	Trap     string  `json:"trap,omitempty"`
	Ms       float64 `json:"ms"`
	RepeatMs float64 `json:"repeatMs,omitempty"`
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func run() error {
	component := flag.String("component", "", "the component (.wasm)")
	callsPath := flag.String("calls", "", "the calls (JSON)")
	cache := flag.String("cache", "", "directory for compiled components (optional)")
	flag.Parse()
	if *component == "" || *callsPath == "" {
		return errors.New("usage: kubeadm-wasm-host -component FILE -calls FILE [-cache DIR]")
	}
	raw, err := os.ReadFile(*callsPath)
	if err != nil {
		return err
	}
	var spec struct {
		Interface string `json:"interface"`
		Calls     []call `json:"calls"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&spec); err != nil {
		return fmt.Errorf("%s: %w", *callsPath, err)
	}
	wasm, err := os.ReadFile(*component)
	if err != nil {
		return err
	}
	t0 := time.Now()
	host, cached, err := Load(wasm, *cache)
	if err != nil {
		return err
	}
	loadMs := ms(time.Since(t0))
	t1 := time.Now()
	if err := host.Instantiate(); err != nil {
		return fmt.Errorf("instantiate: %w", err)
	}
	instantiateMs := ms(time.Since(t1))

	results := make([]outcome, 0, len(spec.Calls))
	for _, c := range spec.Calls {
		fn, err := host.Func(spec.Interface, c.Fn)
		if err != nil {
			return err
		}
		start := time.Now()
		res, err := fn.Call(c.Args)
		o := outcome{Ms: ms(time.Since(start))}
		var trap *Trap
		switch {
		case errors.As(err, &trap):
			o.Trap = trap.Message
			// A trap poisons the instance: the next call gets a fresh one.
			if err := host.Instantiate(); err != nil {
				return fmt.Errorf("instantiate after a trap: %w", err)
			}
		case err != nil:
			return fmt.Errorf("%s: %w", c.Fn, err)
		default:
			o.Result = res
		}
		if c.Repeat > 0 && o.Trap == "" {
			start := time.Now()
			for range c.Repeat {
				if _, err := fn.Call(c.Args); err != nil {
					return fmt.Errorf("%s (repeated): %w", c.Fn, err)
				}
			}
			o.RepeatMs = ms(time.Since(start)) / float64(c.Repeat)
		}
		results = append(results, o)
	}
	return json.NewEncoder(os.Stdout).Encode(map[string]any{
		"wasmtime":      WasmtimeVersion,
		"cached":        cached,
		"loadMs":        loadMs,
		"instantiateMs": instantiateMs,
		"results":       results,
	})
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "kubeadm-wasm-host:", err)
		os.Exit(1)
	}
}
