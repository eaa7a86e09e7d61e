/**
 * Bootstrap tokens: the `<id>.<secret>` string format, its validation and random generation.
 *
 * Format, patterns and error wording follow upstream's cluster-bootstrap helpers: a token is
 * six characters of `[a-z0-9]`, a dot, and sixteen more. The id is public; the secret half is
 * sensitive and never appears in an error message (see {@link redactToken}).
 *
 * @module
 */
import { KubeadmError } from "../errors.ts";
import type { RandomSource } from "../ports/random.ts";

/** Upstream's full-token pattern, exactly as it prints it in error messages (Go syntax). */
export const TOKEN_PATTERN_TEXT = "\\A([a-z0-9]{6})\\.([a-z0-9]{16})\\z";
/** The full-token pattern as a JavaScript RegExp (group 1 = id, group 2 = secret). */
const TOKEN_REGEXP = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
/** The token-id pattern. */
const TOKEN_ID_REGEXP = /^([a-z0-9]{6})$/;
/** Upstream's extra-group pattern, as printed in error messages. */
const GROUP_PATTERN_TEXT = "\\Asystem:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]\\z";
/** The extra-group pattern as a JavaScript RegExp. */
const GROUP_REGEXP = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;
/** The 36 characters tokens are made of. */
const TOKEN_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";
/** Known token usages, in upstream's order. */
const KNOWN_TOKEN_USAGES: readonly string[] = ["signing", "authentication"];
/** Default usages of a kubeadm bootstrap token. */
export const DEFAULT_TOKEN_USAGES: readonly string[] = ["signing", "authentication"];
/** Default TTL of a kubeadm bootstrap token, as a Go duration. */
export const DEFAULT_TOKEN_TTL = "24h0m0s";
/** Placeholder token printed by `kubeadm config print init-defaults`. */
export const PLACEHOLDER_TOKEN = "abcdef.0123456789abcdef";

/**
 * A bootstrap token as the configuration API carries it (upstream's `bootstraptoken/v1`
 * type): the `<id>.<secret>` string, its lifetime (`ttl` or `expires`), usages and groups.
 */
export interface BootstrapToken {
  /** `<id>.<secret>` (secret). */
  token?: string;
  /** What the token is for. */
  description?: string;
  /** Lifetime as a Go duration (`24h0m0s`; `0` never expires). */
  ttl?: string;
  /** Expiry time (RFC 3339); wins over `ttl`. */
  expires?: string;
  /** `signing` (cluster-info signatures) and/or `authentication` (TLS bootstrap). */
  usages?: string[];
  /** Extra groups it authenticates as (`system:bootstrappers:…`). */
  groups?: string[];
}

/** A parsed token: the public id and the secret. */
export interface TokenParts {
  /** The public token id (6 characters). */
  id: string;
  /** The secret (16 characters). */
  secret: string;
}

/** Whether `token` is a well-formed bootstrap token. */
export function isValidToken(token: string): boolean {
  return TOKEN_REGEXP.test(token);
}

/** Whether `id` is a well-formed token id. */
export function isValidTokenId(id: string): boolean {
  return TOKEN_ID_REGEXP.test(id);
}

/**
 * Splits a token into id and secret. Throws with upstream's message when malformed; the
 * message carries the redacted token only.
 */
export function parseToken(token: string): TokenParts {
  const m = TOKEN_REGEXP.exec(token);
  if (!m) {
    throw new KubeadmError(
      `the bootstrap token ${JSON.stringify(redactToken(token))} was not of the form ${
        JSON.stringify(TOKEN_PATTERN_TEXT)
      }`,
    );
  }
  return { id: m[1], secret: m[2] };
}

/**
 * A token made safe for messages: `abcdef.<redacted>` when it has an id-like prefix and a
 * dot, `<redacted>` otherwise (never echoes what could be a secret).
 */
export function redactToken(token: string): string {
  const dot = token.indexOf(".");
  if (dot < 0) return token.length <= 6 ? token : "<redacted>";
  const id = token.slice(0, dot);
  return id.length <= 6 ? `${id}.<redacted>` : "<redacted>";
}

/**
 * Random string of `length` characters from {@link TOKEN_ALPHABET}. Bytes ≥ 252 are rejected
 * (256 mod 36 = 4) so every character is equally likely, exactly as upstream does.
 */
export function randomTokenString(random: RandomSource, length: number): string {
  let out = "";
  while (out.length < length) {
    const buf = random.bytes(2 * length);
    for (const b of buf) {
      if (out.length === length) break;
      if (b >= 252) continue;
      out += TOKEN_ALPHABET[b % 36];
    }
  }
  return out;
}

/** A fresh random bootstrap token (id generated first, then secret). */
export function generateToken(random: RandomSource): string {
  const id = randomTokenString(random, 6);
  const secret = randomTokenString(random, 16);
  return `${id}.${secret}`;
}

/** The name of the Secret that stores token `id`: `bootstrap-token-<id>`. */
export function tokenSecretName(id: string): string {
  return `bootstrap-token-${id}`;
}

/** The token id from a Secret name, or `undefined` when it is not `bootstrap-token-<id>`. */
export function tokenIdFromSecretName(name: string): string | undefined {
  const m = /^bootstrap-token-([a-z0-9]{6})$/.exec(name);
  return m ? m[1] : undefined;
}

/**
 * Checks token usages; returns upstream's error message, or `undefined` when all are known.
 */
export function usagesError(usages: readonly string[]): string | undefined {
  const invalid = [...new Set(usages.filter((u) => !KNOWN_TOKEN_USAGES.includes(u)))].sort();
  if (invalid.length === 0) return undefined;
  return `invalid bootstrap token usage string: ${invalid.join(",")}, valid usage options: ${
    KNOWN_TOKEN_USAGES.join(",")
  }`;
}

/** Checks one extra group name; returns upstream's error message, or `undefined`. */
export function groupNameError(group: string): string | undefined {
  if (GROUP_REGEXP.test(group)) return undefined;
  return `bootstrap group ${JSON.stringify(group)} is invalid (must match ${GROUP_PATTERN_TEXT})`;
}
