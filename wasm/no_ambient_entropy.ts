/**
 * Imported first by the component's entry: the component has no ambient randomness.
 *
 * With componentize-js's `random` feature disabled (the component imports nothing), the
 * engine's `crypto.getRandomValues` still answers, with a fixed sequence. Nothing in the core
 * may draw from it: every random byte comes from the caller's `seed`. So it throws instead,
 * from before any other module runs: `@noble/curves` probes it when its curves are created, finds
 * no generator and uses its unblinded constant-time paths (same results, no side channel
 * blinding), and a code path that would use it by mistake fails loudly instead of silently
 * producing predictable bytes.
 *
 * @module
 */

const refuse = (): never => {
  throw new Error(
    "the kubeadm-core component has no ambient randomness: entropy comes in as the seed argument",
  );
};
Object.defineProperty(globalThis.crypto, "getRandomValues", { value: refuse });
Object.defineProperty(globalThis.crypto, "randomUUID", { value: refuse });
