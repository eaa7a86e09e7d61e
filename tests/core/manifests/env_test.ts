import assert from "node:assert/strict";
import { mergeEnvVars, proxyEnvVars } from "../../../core/manifests/env.ts";

Deno.test("proxyEnvVars() keeps non-empty *_proxy variables in any case", () => {
  assert.deepStrictEqual(
    proxyEnvVars({
      HTTPS_PROXY: "http://p:3128",
      no_proxy: "10.0.0.0/8",
      FTP_PROXY: "",
      PATH: "/bin",
    }),
    [{ name: "HTTPS_PROXY", value: "http://p:3128" }, { name: "no_proxy", value: "10.0.0.0/8" }],
  );
});

Deno.test("mergeEnvVars() lets later lists win and sorts by name", () => {
  assert.deepStrictEqual(
    mergeEnvVars(
      [{ name: "NO_PROXY", value: "a" }, { name: "HTTP_PROXY", value: "h" }],
      [{ name: "NO_PROXY", value: "b" }, { name: "GOGC", value: "50" }],
    ),
    [
      { name: "GOGC", value: "50" },
      { name: "HTTP_PROXY", value: "h" },
      { name: "NO_PROXY", value: "b" },
    ],
  );
  assert.deepStrictEqual(mergeEnvVars(undefined, []), []);
});
