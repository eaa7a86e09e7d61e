// --ignore-preflight-errors: merging, case, `all`, and rejection of unknown names.
import assert from "node:assert/strict";
import { KNOWN_CHECK_NAMES } from "../../../core/preflight/catalog.ts";
import { IGNORE_NOTHING, resolveIgnoreSet } from "../../../core/preflight/ignore.ts";
import { ValidationError } from "../../../core/errors.ts";

Deno.test("names from the flag and the config are merged and matched case-insensitively", () => {
  const set = resolveIgnoreSet(["Swap"], ["NUMCPU", " port-6443 "], KNOWN_CHECK_NAMES);
  assert.deepEqual([...set.names].sort(), ["numcpu", "port-6443", "swap"]);
  assert.ok(set.has("Swap") && set.has("NumCPU") && set.has("Port-6443"));
  assert.ok(!set.has("Mem"));
  assert.ok(!set.all);
  assert.ok(!IGNORE_NOTHING.has("Swap"));
});

Deno.test("`all` ignores every check; empty entries are skipped", () => {
  const set = resolveIgnoreSet(["ALL", ""], [], KNOWN_CHECK_NAMES);
  assert.ok(set.all);
  assert.ok(set.has("anything-at-all"));
});

Deno.test("`all` together with other names is rejected in upstream's words", () => {
  assert.throws(() => resolveIgnoreSet(["all", "Swap"], [], KNOWN_CHECK_NAMES), (e: unknown) => {
    assert.ok(e instanceof ValidationError);
    assert.equal(
      e.message,
      `ignore-preflight-errors: Invalid value: "all,swap": don't specify individual checks if 'all' is used`,
    );
    assert.equal(e.exitCode, 3);
    return true;
  });
  // also when they come from different sources
  assert.throws(() => resolveIgnoreSet(["all"], ["mem"], KNOWN_CHECK_NAMES), ValidationError);
});

Deno.test("unknown names are rejected with the list of valid ones", () => {
  assert.throws(
    () => resolveIgnoreSet(["Swap", "NoSuchCheck", "port-9999"], [], KNOWN_CHECK_NAMES),
    (e: unknown) => {
      assert.ok(e instanceof ValidationError);
      assert.equal(e.field, "ignore-preflight-errors");
      assert.equal(e.value, "nosuchcheck,port-9999");
      assert.match(e.message, /unknown preflight check names; valid names are: all, /);
      for (
        const name of ["IsPrivilegedUser", "Swap", "Port-6443", "ImagePull", "SystemVerification"]
      ) {
        assert.ok(e.message.includes(name), name);
      }
      return true;
    },
  );
});

Deno.test("per-run names and patterns extend the known names", () => {
  assert.ok(
    resolveIgnoreSet(["Port-7443"], [], [...KNOWN_CHECK_NAMES, "Port-7443"]).has("port-7443"),
  );
  assert.ok(
    resolveIgnoreSet(["DirAvailable--data-etcd"], [], [/^diravailable-/]).has(
      "diravailable--data-etcd",
    ),
  );
  assert.throws(() => resolveIgnoreSet(["Port-7443"], [], KNOWN_CHECK_NAMES), /port-7443/);
});

Deno.test("every catalogue name is unique and matches upstream's naming", () => {
  const lower = KNOWN_CHECK_NAMES.map((n) => n.toLowerCase());
  assert.equal(new Set(lower).size, lower.length);
  assert.ok(KNOWN_CHECK_NAMES.includes("FileAvailable--etc-kubernetes-manifests-etcd.yaml"));
  assert.ok(KNOWN_CHECK_NAMES.includes("FileContent--proc-sys-net-ipv4-ip_forward"));
  assert.ok(KNOWN_CHECK_NAMES.includes("DirAvailable--var-lib-etcd"));
  assert.ok(KNOWN_CHECK_NAMES.includes("FileExisting-losetup"));
});
