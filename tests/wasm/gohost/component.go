// Package main is a test host for the kubeadm-core WebAssembly component, written in Go: it
// runs the component on Wasmtime through the Wasmtime C API's component-model functions,
// which wasmtime-go's prebuilt static library contains (wasmtime-go's Go API wraps core
// modules only). Linking comes from the blank import of wasmtime-go.
//
// This file is the cgo layer: an engine, a compiled component (or a cached precompiled one),
// a store and an instance, exported functions with their types, and C helpers to build and
// read component values (cgo cannot reach into C unions).
package main

/*
#include "host.h"
*/
import "C"

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"unsafe"

	_ "github.com/bytecodealliance/wasmtime-go/v39" // links libwasmtime.a
)

// WasmtimeVersion is the version of the linked Wasmtime (a precompiled component is only
// valid for the same version).
const WasmtimeVersion = C.WASMTIME_VERSION

// Host is one engine, one compiled component and one live instance.
type Host struct{ h C.host_t }

func cerr(s *C.char) error {
	if s == nil {
		return nil
	}
	defer C.free(unsafe.Pointer(s))
	return errors.New(C.GoString(s))
}

// Load compiles a component, or deserializes it from cacheDir when it was compiled before by
// the same Wasmtime (the cache key is the component's SHA-256 and the Wasmtime version). It
// reports whether the cache was used.
func Load(wasm []byte, cacheDir string) (*Host, bool, error) {
	h := &Host{}
	C.host_engine(&h.h)
	sum := sha256.Sum256(append(wasm, []byte("wasmtime "+WasmtimeVersion)...))
	cached := ""
	if cacheDir != "" {
		cached = filepath.Join(cacheDir, hex.EncodeToString(sum[:16])+".cwasm")
		if pre, err := os.ReadFile(cached); err == nil {
			if err := h.withBytes(pre, func(p *C.uint8_t, n C.size_t) *C.char {
				return C.host_deserialize(&h.h, p, n)
			}); err == nil {
				return h, true, nil
			}
		}
	}
	if err := h.withBytes(wasm, func(p *C.uint8_t, n C.size_t) *C.char {
		return C.host_compile(&h.h, p, n)
	}); err != nil {
		return nil, false, fmt.Errorf("compile: %w", err)
	}
	if cached != "" {
		if err := h.saveCompiled(cached); err != nil {
			return nil, false, err
		}
	}
	return h, false, nil
}

func (h *Host) withBytes(b []byte, f func(*C.uint8_t, C.size_t) *C.char) error {
	p := (*C.uint8_t)(C.CBytes(b))
	defer C.free(unsafe.Pointer(p))
	return cerr(f(p, C.size_t(len(b))))
}

// saveCompiled writes the compiled component atomically and keeps the two newest entries.
func (h *Host) saveCompiled(path string) error {
	var out *C.uint8_t
	var n C.size_t
	if err := cerr(C.host_serialize(&h.h, &out, &n)); err != nil {
		return err
	}
	defer C.free(unsafe.Pointer(out))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".cwasm-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(C.GoBytes(unsafe.Pointer(out), C.int(n))); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	old, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*.cwasm"))
	sort.Slice(old, func(i, j int) bool { return modTime(old[i]) > modTime(old[j]) })
	for _, o := range old[min(2, len(old)):] {
		os.Remove(o)
	}
	return nil
}

func modTime(p string) int64 {
	st, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return st.ModTime().UnixNano()
}

// Instantiate makes a fresh store and instance (a trap poisons an instance).
func (h *Host) Instantiate() error { return cerr(C.host_instantiate(&h.h)) }

// Func is an exported function with its type.
type Func struct {
	h      *Host
	f      C.wasmtime_component_func_t
	params []C.valtype_t
	result *C.valtype_t
}

// Func looks up function `name` of the exported interface `iface`.
func (h *Host) Func(iface, name string) (*Func, error) {
	ci, cn := C.CString(iface), C.CString(name)
	defer C.free(unsafe.Pointer(ci))
	defer C.free(unsafe.Pointer(cn))
	fn := &Func{h: h}
	if !C.host_func(&h.h, ci, C.size_t(len(iface)), cn, C.size_t(len(name)), &fn.f) {
		return nil, fmt.Errorf("the component exports no function %s#%s", iface, name)
	}
	ty := C.host_func_type(&h.h, &fn.f)
	defer C.wasmtime_component_func_type_delete(ty)
	n := int(C.wasmtime_component_func_type_param_count(ty))
	fn.params = make([]C.valtype_t, n)
	for i := range n {
		var pn *C.char
		var pl C.size_t
		C.wasmtime_component_func_type_param_nth(ty, C.size_t(i), &pn, &pl, &fn.params[i])
	}
	var res C.valtype_t
	if C.wasmtime_component_func_type_result(ty, &res) {
		fn.result = &res
	}
	return fn, nil
}

// Call converts JSON-shaped arguments to the parameters' types, calls, and converts the result
// back (see values.go for the JSON form).
func (fn *Func) Call(args []any) (any, error) {
	if len(args) != len(fn.params) {
		return nil, fmt.Errorf("%d arguments for %d parameters", len(args), len(fn.params))
	}
	cargs := C.vals_new(C.size_t(len(args)))
	defer C.free(unsafe.Pointer(cargs))
	built := 0
	defer func() {
		for i := range built {
			C.wasmtime_component_val_delete(C.val_at(cargs, C.size_t(i)))
		}
	}()
	for i, a := range args {
		if err := toVal(a, &fn.params[i], C.val_at(cargs, C.size_t(i)), fmt.Sprintf("arg %d", i)); err != nil {
			return nil, err
		}
		built++
	}
	res := C.vals_new(1)
	defer C.free(unsafe.Pointer(res))
	nres := 0
	if fn.result != nil {
		nres = 1
	}
	if err := cerr(C.host_call(&fn.h.h, &fn.f, cargs, C.size_t(len(args)), res, C.size_t(nres))); err != nil {
		return nil, &Trap{err.Error()}
	}
	if fn.result == nil {
		return nil, nil
	}
	defer C.wasmtime_component_val_delete(res)
	return fromVal(res, fn.result)
}

// Trap is a failed call: the guest trapped (its instance is unusable from then on).
type Trap struct{ Message string }

func (t *Trap) Error() string { return "trap: " + t.Message }
