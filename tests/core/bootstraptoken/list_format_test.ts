import assert from "node:assert/strict";
import type { BootstrapToken } from "../../../core/config/types.ts";
import {
  formatTokenListStructured,
  formatTokenListText,
  outputToken,
} from "../../../core/bootstraptoken/list_format.ts";

// testdata/token-list.txt was printed by upstream's tokenTextPrinter logic (fresh tabwriter per
// row, %-9s/%-22s/%-56s padding) compiled with Go, for these tokens at NOW.
const NOW = new Date("2025-01-01T00:00:30Z");
const TOKENS: BootstrapToken[] = [
  {
    token: "abcdef.0123456789abcdef",
    expires: "2025-01-02T00:00:00Z",
    usages: ["authentication", "signing"],
    groups: ["system:bootstrappers:kubeadm:default-node-token"],
  },
  {
    token: "123456.abcdefghijklmnop",
    description: "Proxy for managing TTL for the kubeadm-certs secret",
    expires: "2025-01-01T00:00:00Z",
  },
  {
    token: "zzzzzz.yyyyyyyyyyyyyyyy",
    description: "a description that is definitely longer than fifty-six characters in total",
    usages: ["signing"],
  },
  {
    token: "qqqqqq.wwwwwwwwwwwwwwww",
    expires: "2025-01-08T12:00:00Z",
    usages: ["authentication"],
    groups: ["system:bootstrappers:a", "system:bootstrappers:b"],
  },
];

Deno.test("token list text output is byte-identical to upstream's (header once, per-row tabwriter)", async () => {
  const golden = await Deno.readTextFile(new URL("./testdata/token-list.txt", import.meta.url));
  assert.equal(formatTokenListText(TOKENS, NOW), golden);
});

Deno.test("token list prints nothing at all without tokens", () => {
  assert.equal(formatTokenListText([], NOW), "");
  assert.equal(formatTokenListStructured([], "json"), "");
  assert.equal(formatTokenListStructured([], "yaml"), "");
});

Deno.test("token list -o json: output.kubeadm.k8s.io/v1alpha3 objects, Go field order, 4-space indent", () => {
  assert.equal(
    formatTokenListStructured(TOKENS.slice(0, 2), "json"),
    `{
    "kind": "BootstrapToken",
    "apiVersion": "output.kubeadm.k8s.io/v1alpha3",
    "token": "abcdef.0123456789abcdef",
    "expires": "2025-01-02T00:00:00Z",
    "usages": [
        "authentication",
        "signing"
    ],
    "groups": [
        "system:bootstrappers:kubeadm:default-node-token"
    ]
}
{
    "kind": "BootstrapToken",
    "apiVersion": "output.kubeadm.k8s.io/v1alpha3",
    "token": "123456.abcdefghijklmnop",
    "description": "Proxy for managing TTL for the kubeadm-certs secret",
    "expires": "2025-01-01T00:00:00Z"
}
`,
  );
  // Go's encoder escapes HTML-sensitive characters.
  assert.match(
    formatTokenListStructured([{ token: TOKENS[0].token, description: "a<b>&c" }], "json"),
    /"description": "a\\u003cb\\u003e\\u0026c"/,
  );
});

Deno.test("token list -o yaml: sorted keys, documents separated by ---", () => {
  assert.equal(
    formatTokenListStructured([TOKENS[0], TOKENS[2]], "yaml"),
    `apiVersion: output.kubeadm.k8s.io/v1alpha3
expires: "2025-01-02T00:00:00Z"
groups:
- system:bootstrappers:kubeadm:default-node-token
kind: BootstrapToken
token: abcdef.0123456789abcdef
usages:
- authentication
- signing
---
apiVersion: output.kubeadm.k8s.io/v1alpha3
description: a description that is definitely longer than fifty-six characters in total
kind: BootstrapToken
token: zzzzzz.yyyyyyyyyyyyyyyy
usages:
- signing
`,
  );
  assert.deepEqual(Object.keys(outputToken({ token: "abcdef.0123456789abcdef" })), [
    "kind",
    "apiVersion",
    "token",
  ]);
});

Deno.test("token list -o kyaml: one KYAML document per token, in the objects' JSON order", () => {
  assert.equal(formatTokenListStructured([], "kyaml"), "");
  assert.equal(
    formatTokenListStructured([TOKENS[0], TOKENS[2]], "kyaml"),
    `---
{
  kind: "BootstrapToken",
  apiVersion: "output.kubeadm.k8s.io/v1alpha3",
  token: "abcdef.0123456789abcdef",
  expires: "2025-01-02T00:00:00Z",
  usages: [
    "authentication",
    "signing",
  ],
  groups: [
    "system:bootstrappers:kubeadm:default-node-token",
  ],
}
---
{
  kind: "BootstrapToken",
  apiVersion: "output.kubeadm.k8s.io/v1alpha3",
  token: "zzzzzz.yyyyyyyyyyyyyyyy",
  description: "a description that is definitely longer than fifty-six characters in total",
  usages: [
    "signing",
  ],
}
`,
  );
});
