/**
 * Entry point of `dist/kubeadm-core.js`, the whole library as one ES module for browsers,
 * edge functions (Cloudflare Workers, Deno Deploy, Vercel Edge), Node and Bun: the high-level
 * API of `mod.ts` (plans, cloud-init, tokens, cluster-info, pins, the crypto port) plus the
 * discovery helpers of the verifier (`web/verify_entry.ts`). See `web/README.md`.
 *
 * @module
 */
export * from "../mod.ts";
export * from "./verify_entry.ts";
