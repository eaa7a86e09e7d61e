package main

/*
#include "host.h"
*/
import "C"

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"unicode/utf8"
	"unsafe"
)

// Component values as JSON, directed by their WIT types (the form tests/wasm/wit_json.mjs
// calls canonical):
//
//	bool, integers, floats      JSON booleans and numbers
//	string, char, enum          JSON strings
//	list<u8>                    a base64 string
//	list<T>, tuple<...>         arrays
//	record                      an object keyed by the WIT field names; a field whose option
//	                            is none is left out
//	variant                     {"tag": case, "val": payload} ("val" left out without payload)
//	option<T>                   null (or a left-out field) for none, else T
//	result<T, E>                {"ok": T} or {"err": E}

func name(p *C.char, n C.size_t) string { return C.GoStringN(p, C.int(n)) }

func cstr(s string, set func(*C.char, C.size_t)) {
	p := C.CString(s)
	defer C.free(unsafe.Pointer(p))
	set(p, C.size_t(len(s)))
}

func number(x any, at string) (json.Number, error) {
	n, ok := x.(json.Number)
	if !ok {
		return "", fmt.Errorf("%s: expected a number, got %T", at, x)
	}
	return n, nil
}

func integer(x any, lo, hi int64, at string) (int64, error) {
	n, err := number(x, at)
	if err != nil {
		return 0, err
	}
	i, err := n.Int64()
	if err != nil || i < lo || i > hi {
		return 0, fmt.Errorf("%s: %s is not an integer in [%d, %d]", at, n, lo, hi)
	}
	return i, nil
}

// toVal fills *v with the JSON value x as type t.
func toVal(x any, t *C.valtype_t, v *C.val_t, at string) error {
	switch C.type_kind(t) {
	case C.WASMTIME_COMPONENT_VALTYPE_BOOL:
		b, ok := x.(bool)
		if !ok {
			return fmt.Errorf("%s: expected a boolean, got %T", at, x)
		}
		C.set_bool(v, C.bool(b))
	case C.WASMTIME_COMPONENT_VALTYPE_S8:
		i, err := integer(x, math.MinInt8, math.MaxInt8, at)
		if err != nil {
			return err
		}
		C.set_s8(v, C.int8_t(i))
	case C.WASMTIME_COMPONENT_VALTYPE_U8:
		i, err := integer(x, 0, math.MaxUint8, at)
		if err != nil {
			return err
		}
		C.set_u8(v, C.uint8_t(i))
	case C.WASMTIME_COMPONENT_VALTYPE_S16:
		i, err := integer(x, math.MinInt16, math.MaxInt16, at)
		if err != nil {
			return err
		}
		C.set_s16(v, C.int16_t(i))
	case C.WASMTIME_COMPONENT_VALTYPE_U16:
		i, err := integer(x, 0, math.MaxUint16, at)
		if err != nil {
			return err
		}
		C.set_u16(v, C.uint16_t(i))
	case C.WASMTIME_COMPONENT_VALTYPE_S32:
		i, err := integer(x, math.MinInt32, math.MaxInt32, at)
		if err != nil {
			return err
		}
		C.set_s32(v, C.int32_t(i))
	case C.WASMTIME_COMPONENT_VALTYPE_U32:
		i, err := integer(x, 0, math.MaxUint32, at)
		if err != nil {
			return err
		}
		C.set_u32(v, C.uint32_t(i))
	case C.WASMTIME_COMPONENT_VALTYPE_S64:
		i, err := integer(x, math.MinInt64, math.MaxInt64, at)
		if err != nil {
			return err
		}
		C.set_s64(v, C.int64_t(i))
	case C.WASMTIME_COMPONENT_VALTYPE_U64:
		i, err := integer(x, 0, math.MaxInt64, at)
		if err != nil {
			return err
		}
		C.set_u64(v, C.uint64_t(i))
	case C.WASMTIME_COMPONENT_VALTYPE_F32, C.WASMTIME_COMPONENT_VALTYPE_F64:
		n, err := number(x, at)
		if err != nil {
			return err
		}
		f, err := n.Float64()
		if err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
		if C.type_kind(t) == C.WASMTIME_COMPONENT_VALTYPE_F32 {
			C.set_f32(v, C.float(f))
		} else {
			C.set_f64(v, C.double(f))
		}
	case C.WASMTIME_COMPONENT_VALTYPE_CHAR:
		s, ok := x.(string)
		if !ok || utf8.RuneCountInString(s) != 1 {
			return fmt.Errorf("%s: expected one character", at)
		}
		r, _ := utf8.DecodeRuneInString(s)
		C.set_char(v, C.uint32_t(r))
	case C.WASMTIME_COMPONENT_VALTYPE_STRING:
		s, ok := x.(string)
		if !ok {
			return fmt.Errorf("%s: expected a string, got %T", at, x)
		}
		cstr(s, func(p *C.char, n C.size_t) { C.set_string(v, p, n) })
	case C.WASMTIME_COMPONENT_VALTYPE_ENUM:
		s, ok := x.(string)
		if !ok {
			return fmt.Errorf("%s: expected an enum case name, got %T", at, x)
		}
		found := false
		for i := range int(C.enumtype_len(t)) {
			var n C.size_t
			if name(C.enumtype_name(t, C.size_t(i), &n), n) == s {
				found = true
			}
		}
		if !found {
			return fmt.Errorf("%s: %q is not a case of the enum", at, s)
		}
		cstr(s, func(p *C.char, n C.size_t) { C.set_enum(v, p, n) })
	case C.WASMTIME_COMPONENT_VALTYPE_LIST:
		return listToVal(x, t, v, at)
	case C.WASMTIME_COMPONENT_VALTYPE_TUPLE:
		items, ok := x.([]any)
		n := int(C.tuple_len(t))
		if !ok || len(items) != n {
			return fmt.Errorf("%s: expected an array of %d", at, n)
		}
		return seqToVal(items, func(i int, et *C.valtype_t) { C.tuple_elem(t, C.size_t(i), et) },
			func(arr *C.val_t) { C.set_tuple(v, arr, C.size_t(n)) }, at)
	case C.WASMTIME_COMPONENT_VALTYPE_RECORD:
		return recordToVal(x, t, v, at)
	case C.WASMTIME_COMPONENT_VALTYPE_VARIANT:
		return variantToVal(x, t, v, at)
	case C.WASMTIME_COMPONENT_VALTYPE_OPTION:
		if x == nil {
			C.set_option(v, nil)
			return nil
		}
		var it C.valtype_t
		C.option_inner(t, &it)
		defer C.wasmtime_component_valtype_delete(&it)
		inner := C.vals_new(1)
		defer C.free(unsafe.Pointer(inner))
		if err := toVal(x, &it, inner, at); err != nil {
			return err
		}
		C.set_option(v, inner)
	case C.WASMTIME_COMPONENT_VALTYPE_RESULT:
		m, ok := x.(map[string]any)
		if !ok || len(m) != 1 {
			return fmt.Errorf(`%s: expected {"ok": ...} or {"err": ...}`, at)
		}
		okv, isOk := m["ok"]
		payload := okv
		if !isOk {
			payload = m["err"]
		}
		var pt C.valtype_t
		var has C.bool
		if isOk {
			has = C.result_ok_type(t, &pt)
		} else {
			has = C.result_err_type(t, &pt)
		}
		if !has {
			C.set_result(v, C.bool(isOk), nil)
			return nil
		}
		defer C.wasmtime_component_valtype_delete(&pt)
		inner := C.vals_new(1)
		defer C.free(unsafe.Pointer(inner))
		if err := toVal(payload, &pt, inner, at); err != nil {
			return err
		}
		C.set_result(v, C.bool(isOk), inner)
	default:
		return fmt.Errorf("%s: unsupported WIT type kind %d", at, C.type_kind(t))
	}
	return nil
}

func listToVal(x any, t *C.valtype_t, v *C.val_t, at string) error {
	var et C.valtype_t
	C.list_elem(t, &et)
	defer C.wasmtime_component_valtype_delete(&et)
	if C.type_kind(&et) == C.WASMTIME_COMPONENT_VALTYPE_U8 {
		s, ok := x.(string)
		if !ok {
			return fmt.Errorf("%s: expected base64 bytes, got %T", at, x)
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
		p := C.CBytes(b)
		defer C.free(p)
		C.set_bytes(v, (*C.uint8_t)(p), C.size_t(len(b)))
		return nil
	}
	items, ok := x.([]any)
	if !ok {
		return fmt.Errorf("%s: expected an array, got %T", at, x)
	}
	return seqToVal(items, func(_ int, out *C.valtype_t) { C.wasmtime_component_valtype_clone(&et, out) },
		func(arr *C.val_t) { C.set_list(v, arr, C.size_t(len(items))) }, at)
}

// seqToVal converts items into a C array (element i of type elem(i)) and hands it to done,
// which moves the elements into their container.
func seqToVal(items []any, elem func(int, *C.valtype_t), done func(*C.val_t), at string) error {
	arr := C.vals_new(C.size_t(len(items)))
	defer C.free(unsafe.Pointer(arr))
	for i, it := range items {
		var et C.valtype_t
		elem(i, &et)
		err := toVal(it, &et, C.val_at(arr, C.size_t(i)), fmt.Sprintf("%s[%d]", at, i))
		C.wasmtime_component_valtype_delete(&et)
		if err != nil {
			for j := range i {
				C.wasmtime_component_val_delete(C.val_at(arr, C.size_t(j)))
			}
			return err
		}
	}
	done(arr)
	return nil
}

func recordToVal(x any, t *C.valtype_t, v *C.val_t, at string) error {
	m, ok := x.(map[string]any)
	if !ok {
		return fmt.Errorf("%s: expected an object, got %T", at, x)
	}
	n := int(C.record_fields(t))
	entries := C.entries_new(C.size_t(n))
	defer C.free(unsafe.Pointer(entries))
	known := map[string]bool{}
	for i := range n {
		var ft C.valtype_t
		var nl C.size_t
		field := name(C.record_field(t, C.size_t(i), &nl, &ft), nl)
		known[field] = true
		val := cstrEntry(entries, i, field)
		fx, present := m[field]
		var err error
		if !present && C.type_kind(&ft) != C.WASMTIME_COMPONENT_VALTYPE_OPTION {
			err = fmt.Errorf("%s.%s: missing", at, field)
		} else {
			err = toVal(fx, &ft, val, at+"."+field)
		}
		C.wasmtime_component_valtype_delete(&ft)
		if err != nil {
			return err
		}
	}
	for k := range m {
		if !known[k] {
			return fmt.Errorf("%s: unknown field %q", at, k)
		}
	}
	C.set_record(v, entries, C.size_t(n))
	return nil
}

func cstrEntry(entries *C.wasmtime_component_valrecord_entry_t, i int, field string) *C.val_t {
	p := C.CString(field)
	defer C.free(unsafe.Pointer(p))
	return C.entry_init(entries, C.size_t(i), p, C.size_t(len(field)))
}

func variantToVal(x any, t *C.valtype_t, v *C.val_t, at string) error {
	m, ok := x.(map[string]any)
	tag, _ := m["tag"].(string)
	if !ok || tag == "" {
		return fmt.Errorf(`%s: expected {"tag": case, "val": payload}`, at)
	}
	for i := range int(C.variant_cases(t)) {
		var pt C.valtype_t
		var nl C.size_t
		var has C.bool
		if name(C.variant_case(t, C.size_t(i), &nl, &has, &pt), nl) != tag {
			if has {
				C.wasmtime_component_valtype_delete(&pt)
			}
			continue
		}
		if !has {
			cstr(tag, func(p *C.char, n C.size_t) { C.set_variant(v, p, n, nil) })
			return nil
		}
		defer C.wasmtime_component_valtype_delete(&pt)
		inner := C.vals_new(1)
		defer C.free(unsafe.Pointer(inner))
		if err := toVal(m["val"], &pt, inner, at+"."+tag); err != nil {
			return err
		}
		cstr(tag, func(p *C.char, n C.size_t) { C.set_variant(v, p, n, inner) })
		return nil
	}
	return fmt.Errorf("%s: %q is not a case of the variant", at, tag)
}

// fromVal converts a value of type t to JSON-shaped Go data.
func fromVal(v *C.val_t, t *C.valtype_t) (any, error) {
	switch C.type_kind(t) {
	case C.WASMTIME_COMPONENT_VALTYPE_BOOL:
		return bool(C.get_bool(v)), nil
	case C.WASMTIME_COMPONENT_VALTYPE_S8, C.WASMTIME_COMPONENT_VALTYPE_S16,
		C.WASMTIME_COMPONENT_VALTYPE_S32, C.WASMTIME_COMPONENT_VALTYPE_S64:
		return int64(C.get_signed(v)), nil
	case C.WASMTIME_COMPONENT_VALTYPE_U8, C.WASMTIME_COMPONENT_VALTYPE_U16,
		C.WASMTIME_COMPONENT_VALTYPE_U32, C.WASMTIME_COMPONENT_VALTYPE_U64:
		return uint64(C.get_unsigned(v)), nil
	case C.WASMTIME_COMPONENT_VALTYPE_F32, C.WASMTIME_COMPONENT_VALTYPE_F64:
		return float64(C.get_float(v)), nil
	case C.WASMTIME_COMPONENT_VALTYPE_CHAR:
		return string(rune(C.get_char(v))), nil
	case C.WASMTIME_COMPONENT_VALTYPE_STRING, C.WASMTIME_COMPONENT_VALTYPE_ENUM:
		var n C.size_t
		return name(C.get_name(v, &n), n), nil
	case C.WASMTIME_COMPONENT_VALTYPE_LIST:
		var et C.valtype_t
		C.list_elem(t, &et)
		defer C.wasmtime_component_valtype_delete(&et)
		n := int(C.seq_len(v))
		if C.type_kind(&et) == C.WASMTIME_COMPONENT_VALTYPE_U8 {
			b := make([]byte, n)
			if n > 0 {
				C.get_bytes(v, (*C.uint8_t)(unsafe.Pointer(&b[0])))
			}
			return base64.StdEncoding.EncodeToString(b), nil
		}
		out := make([]any, n)
		for i := range n {
			x, err := fromVal(C.seq_at(v, C.size_t(i)), &et)
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	case C.WASMTIME_COMPONENT_VALTYPE_TUPLE:
		n := int(C.seq_len(v))
		out := make([]any, n)
		for i := range n {
			var et C.valtype_t
			C.tuple_elem(t, C.size_t(i), &et)
			x, err := fromVal(C.seq_at(v, C.size_t(i)), &et)
			C.wasmtime_component_valtype_delete(&et)
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	case C.WASMTIME_COMPONENT_VALTYPE_RECORD:
		out := map[string]any{}
		for i := range int(C.record_len(v)) {
			var ft C.valtype_t
			var nl C.size_t
			field := name(C.record_field(t, C.size_t(i), &nl, &ft), nl)
			x, err := fromVal(C.record_val(v, C.size_t(i)), &ft)
			C.wasmtime_component_valtype_delete(&ft)
			if err != nil {
				return nil, err
			}
			if x != nil {
				out[field] = x
			}
		}
		return out, nil
	case C.WASMTIME_COMPONENT_VALTYPE_VARIANT:
		var n C.size_t
		tag := name(C.get_name(v, &n), n)
		out := map[string]any{"tag": tag}
		if p := C.variant_val(v); p != nil {
			for i := range int(C.variant_cases(t)) {
				var pt C.valtype_t
				var nl C.size_t
				var has C.bool
				if name(C.variant_case(t, C.size_t(i), &nl, &has, &pt), nl) == tag && has {
					x, err := fromVal(p, &pt)
					C.wasmtime_component_valtype_delete(&pt)
					if err != nil {
						return nil, err
					}
					out["val"] = x
				} else if has {
					C.wasmtime_component_valtype_delete(&pt)
				}
			}
		}
		return out, nil
	case C.WASMTIME_COMPONENT_VALTYPE_OPTION:
		p := C.option_val(v)
		if p == nil {
			return nil, nil
		}
		var it C.valtype_t
		C.option_inner(t, &it)
		defer C.wasmtime_component_valtype_delete(&it)
		return fromVal(p, &it)
	case C.WASMTIME_COMPONENT_VALTYPE_RESULT:
		ok := bool(C.result_ok(v))
		key := map[bool]string{true: "ok", false: "err"}[ok]
		var pt C.valtype_t
		var has C.bool
		if ok {
			has = C.result_ok_type(t, &pt)
		} else {
			has = C.result_err_type(t, &pt)
		}
		if !has {
			return map[string]any{key: nil}, nil
		}
		defer C.wasmtime_component_valtype_delete(&pt)
		x, err := fromVal(C.result_val(v), &pt)
		if err != nil {
			return nil, err
		}
		return map[string]any{key: x}, nil
	}
	return nil, fmt.Errorf("unsupported WIT type kind %d", C.type_kind(t))
}
