// C helpers of the Go test host (tests/wasm/gohost): cgo cannot reach into the Wasmtime C
// API's unions, so values, types and calls go through these small functions.
#ifndef KUBEADM_GOHOST_H
#define KUBEADM_GOHOST_H
#include <stdlib.h>
#include <string.h>
#include <wasmtime.h>

typedef wasmtime_component_val_t val_t;
typedef wasmtime_component_valtype_t valtype_t;

static val_t *vals_new(size_t n) { return calloc(n ? n : 1, sizeof(val_t)); }
static val_t *val_at(val_t *v, size_t i) { return &v[i]; }

// Setters: each fills one value; the nested values given are moved into it.
static void set_bool(val_t *v, bool x) { v->kind = WASMTIME_COMPONENT_BOOL; v->of.boolean = x; }
static void set_s8(val_t *v, int8_t x) { v->kind = WASMTIME_COMPONENT_S8; v->of.s8 = x; }
static void set_u8(val_t *v, uint8_t x) { v->kind = WASMTIME_COMPONENT_U8; v->of.u8 = x; }
static void set_s16(val_t *v, int16_t x) { v->kind = WASMTIME_COMPONENT_S16; v->of.s16 = x; }
static void set_u16(val_t *v, uint16_t x) { v->kind = WASMTIME_COMPONENT_U16; v->of.u16 = x; }
static void set_s32(val_t *v, int32_t x) { v->kind = WASMTIME_COMPONENT_S32; v->of.s32 = x; }
static void set_u32(val_t *v, uint32_t x) { v->kind = WASMTIME_COMPONENT_U32; v->of.u32 = x; }
static void set_s64(val_t *v, int64_t x) { v->kind = WASMTIME_COMPONENT_S64; v->of.s64 = x; }
static void set_u64(val_t *v, uint64_t x) { v->kind = WASMTIME_COMPONENT_U64; v->of.u64 = x; }
static void set_f32(val_t *v, float x) { v->kind = WASMTIME_COMPONENT_F32; v->of.f32 = x; }
static void set_f64(val_t *v, double x) { v->kind = WASMTIME_COMPONENT_F64; v->of.f64 = x; }
static void set_char(val_t *v, uint32_t x) { v->kind = WASMTIME_COMPONENT_CHAR; v->of.character = x; }
static void set_string(val_t *v, const char *p, size_t n) {
  v->kind = WASMTIME_COMPONENT_STRING; wasm_name_new(&v->of.string, n, p);
}
static void set_enum(val_t *v, const char *p, size_t n) {
  v->kind = WASMTIME_COMPONENT_ENUM; wasm_name_new(&v->of.enumeration, n, p);
}
static void set_list(val_t *v, val_t *items, size_t n) {
  v->kind = WASMTIME_COMPONENT_LIST; wasmtime_component_vallist_new(&v->of.list, n, items);
}
static void set_tuple(val_t *v, val_t *items, size_t n) {
  v->kind = WASMTIME_COMPONENT_TUPLE; wasmtime_component_valtuple_new(&v->of.tuple, n, items);
}
static void set_bytes(val_t *v, const uint8_t *p, size_t n) {
  val_t *items = vals_new(n);
  for (size_t i = 0; i < n; i++) set_u8(&items[i], p[i]);
  set_list(v, items, n);
  free(items);
}
static wasmtime_component_valrecord_entry_t *entries_new(size_t n) {
  return calloc(n ? n : 1, sizeof(wasmtime_component_valrecord_entry_t));
}
static val_t *entry_init(wasmtime_component_valrecord_entry_t *e, size_t i, const char *p, size_t n) {
  wasm_name_new(&e[i].name, n, p); return &e[i].val;
}
static void set_record(val_t *v, wasmtime_component_valrecord_entry_t *e, size_t n) {
  v->kind = WASMTIME_COMPONENT_RECORD; wasmtime_component_valrecord_new(&v->of.record, n, e);
}
static void set_variant(val_t *v, const char *p, size_t n, val_t *payload) {
  v->kind = WASMTIME_COMPONENT_VARIANT;
  wasm_name_new(&v->of.variant.discriminant, n, p);
  v->of.variant.val = payload ? wasmtime_component_val_new(payload) : NULL;
}
static void set_option(val_t *v, val_t *inner) {
  v->kind = WASMTIME_COMPONENT_OPTION; v->of.option = inner ? wasmtime_component_val_new(inner) : NULL;
}
static void set_result(val_t *v, bool ok, val_t *inner) {
  v->kind = WASMTIME_COMPONENT_RESULT; v->of.result.is_ok = ok;
  v->of.result.val = inner ? wasmtime_component_val_new(inner) : NULL;
}

// Getters.
static uint8_t kind_of(const val_t *v) { return v->kind; }
static bool get_bool(const val_t *v) { return v->of.boolean; }
static int64_t get_signed(const val_t *v) {
  switch (v->kind) {
  case WASMTIME_COMPONENT_S8: return v->of.s8;
  case WASMTIME_COMPONENT_S16: return v->of.s16;
  case WASMTIME_COMPONENT_S32: return v->of.s32;
  default: return v->of.s64;
  }
}
static uint64_t get_unsigned(const val_t *v) {
  switch (v->kind) {
  case WASMTIME_COMPONENT_U8: return v->of.u8;
  case WASMTIME_COMPONENT_U16: return v->of.u16;
  case WASMTIME_COMPONENT_U32: return v->of.u32;
  default: return v->of.u64;
  }
}
static double get_float(const val_t *v) { return v->kind == WASMTIME_COMPONENT_F32 ? v->of.f32 : v->of.f64; }
static uint32_t get_char(const val_t *v) { return v->of.character; }
static const char *get_name(const val_t *v, size_t *n) {
  const wasm_name_t *s = v->kind == WASMTIME_COMPONENT_ENUM ? &v->of.enumeration
    : v->kind == WASMTIME_COMPONENT_VARIANT ? &v->of.variant.discriminant : &v->of.string;
  *n = s->size; return s->data;
}
static size_t seq_len(const val_t *v) { return v->kind == WASMTIME_COMPONENT_TUPLE ? v->of.tuple.size : v->of.list.size; }
static const val_t *seq_at(const val_t *v, size_t i) {
  return v->kind == WASMTIME_COMPONENT_TUPLE ? &v->of.tuple.data[i] : &v->of.list.data[i];
}
static void get_bytes(const val_t *v, uint8_t *out) {
  for (size_t i = 0; i < v->of.list.size; i++) out[i] = v->of.list.data[i].of.u8;
}
static size_t record_len(const val_t *v) { return v->of.record.size; }
static const char *record_name(const val_t *v, size_t i, size_t *n) {
  *n = v->of.record.data[i].name.size; return v->of.record.data[i].name.data;
}
static const val_t *record_val(const val_t *v, size_t i) { return &v->of.record.data[i].val; }
static const val_t *variant_val(const val_t *v) { return v->of.variant.val; }
static const val_t *option_val(const val_t *v) { return v->of.option; }
static bool result_ok(const val_t *v) { return v->of.result.is_ok; }
static const val_t *result_val(const val_t *v) { return v->of.result.val; }

// Types.
static uint8_t type_kind(const valtype_t *t) { return t->kind; }
static valtype_t *types_new(size_t n) { return calloc(n ? n : 1, sizeof(valtype_t)); }
static valtype_t *type_at(valtype_t *t, size_t i) { return &t[i]; }
static void list_elem(const valtype_t *t, valtype_t *out) { wasmtime_component_list_type_element(t->of.list, out); }
static size_t record_fields(const valtype_t *t) { return wasmtime_component_record_type_field_count(t->of.record); }
static const char *record_field(const valtype_t *t, size_t i, size_t *n, valtype_t *out) {
  const char *p; wasmtime_component_record_type_field_nth(t->of.record, i, &p, n, out); return p;
}
static size_t tuple_len(const valtype_t *t) { return wasmtime_component_tuple_type_types_count(t->of.tuple); }
static void tuple_elem(const valtype_t *t, size_t i, valtype_t *out) { wasmtime_component_tuple_type_types_nth(t->of.tuple, i, out); }
static size_t variant_cases(const valtype_t *t) { return wasmtime_component_variant_type_case_count(t->of.variant); }
static const char *variant_case(const valtype_t *t, size_t i, size_t *n, bool *has, valtype_t *out) {
  const char *p; wasmtime_component_variant_type_case_nth(t->of.variant, i, &p, n, has, out); return p;
}
static size_t enumtype_len(const valtype_t *t) { return wasmtime_component_enum_type_names_count(t->of.enum_); }
static const char *enumtype_name(const valtype_t *t, size_t i, size_t *n) {
  const char *p; wasmtime_component_enum_type_names_nth(t->of.enum_, i, &p, n); return p;
}
static void option_inner(const valtype_t *t, valtype_t *out) { wasmtime_component_option_type_ty(t->of.option, out); }
static bool result_ok_type(const valtype_t *t, valtype_t *out) { return wasmtime_component_result_type_ok(t->of.result, out); }
static bool result_err_type(const valtype_t *t, valtype_t *out) { return wasmtime_component_result_type_err(t->of.result, out); }

static char *err_take(wasmtime_error_t *e) {
  if (!e) return NULL;
  wasm_name_t m; wasmtime_error_message(e, &m);
  char *s = malloc(m.size + 1); memcpy(s, m.data, m.size); s[m.size] = 0;
  wasm_byte_vec_delete(&m); wasmtime_error_delete(e); return s;
}

typedef struct {
  wasm_engine_t *engine;
  wasmtime_component_t *component;
  wasmtime_component_linker_t *linker;
  wasmtime_store_t *store;
  wasmtime_component_instance_t instance;
} host_t;

static void host_engine(host_t *h) { h->engine = wasm_engine_new(); }
static char *host_compile(host_t *h, const uint8_t *buf, size_t n) {
  return err_take(wasmtime_component_new(h->engine, buf, n, &h->component));
}
static char *host_deserialize(host_t *h, const uint8_t *buf, size_t n) {
  return err_take(wasmtime_component_deserialize(h->engine, buf, n, &h->component));
}
static char *host_serialize(host_t *h, uint8_t **out, size_t *n) {
  wasm_byte_vec_t v; char *e = err_take(wasmtime_component_serialize(h->component, &v));
  if (e) return e;
  *out = malloc(v.size); memcpy(*out, v.data, v.size); *n = v.size; wasm_byte_vec_delete(&v);
  return NULL;
}
// The component imports nothing, so the linker stays empty: no WASI at all.
static char *host_instantiate(host_t *h) {
  if (!h->linker) h->linker = wasmtime_component_linker_new(h->engine);
  if (h->store) wasmtime_store_delete(h->store);
  h->store = wasmtime_store_new(h->engine, NULL, NULL);
  return err_take(wasmtime_component_linker_instantiate(
    h->linker, wasmtime_store_context(h->store), h->component, &h->instance));
}
static bool host_func(host_t *h, const char *iface, size_t ni, const char *name, size_t nn, wasmtime_component_func_t *f) {
  wasmtime_context_t *cx = wasmtime_store_context(h->store);
  wasmtime_component_export_index_t *ii = wasmtime_component_instance_get_export_index(&h->instance, cx, NULL, iface, ni);
  if (!ii) return false;
  wasmtime_component_export_index_t *fi = wasmtime_component_instance_get_export_index(&h->instance, cx, ii, name, nn);
  wasmtime_component_export_index_delete(ii);
  if (!fi) return false;
  bool ok = wasmtime_component_instance_get_func(&h->instance, cx, fi, f);
  wasmtime_component_export_index_delete(fi);
  return ok;
}
static wasmtime_component_func_type_t *host_func_type(host_t *h, wasmtime_component_func_t *f) {
  return wasmtime_component_func_type(f, wasmtime_store_context(h->store));
}
static char *host_call(host_t *h, wasmtime_component_func_t *f, val_t *args, size_t n, val_t *res, size_t nres) {
  wasmtime_context_t *cx = wasmtime_store_context(h->store);
  char *e = err_take(wasmtime_component_func_call(f, cx, args, n, res, nres));
  if (e) return e;
  return err_take(wasmtime_component_func_post_return(f, cx));
}
#endif
