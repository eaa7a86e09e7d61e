/**
 * The bootstrap token `kubeadm token create` makes from its argument and flags (upstream
 * `BootstrapTokenOptions` + the validation of `LoadOrDefaultInitConfiguration`): the given or
 * a random token, `--ttl` (24h, `0` = never), `--usages` (signing,authentication), `--groups`
 * (the default node-token group) and `--description`, validated as a `bootstrapTokens` entry.
 *
 * @module
 */
import { normalizeDuration } from "../text/duration.ts";
import type { BootstrapToken } from "./types.ts";
import { validateBootstrapTokens } from "./validate.ts";
import { Identity } from "../constants.ts";
import { KubeadmError, ValidationError } from "../errors.ts";
import type { RandomSource } from "../ports/random.ts";
import {
  DEFAULT_TOKEN_TTL,
  DEFAULT_TOKEN_USAGES,
  generateToken,
  parseToken,
} from "../bootstraptoken/token.ts";

/** `token create`'s argument and flags (unset ones take upstream's defaults). */
export interface TokenCreateOptions {
  /** The positional `[token]`. */
  token?: string;
  /** `--ttl`, a Go duration. */
  ttl?: string;
  /** `--usages`. */
  usages?: readonly string[];
  /** `--groups`. */
  groups?: readonly string[];
  /** `--description`. */
  description?: string;
}

/**
 * The validated token to create. Throws a {@link KubeadmError} (exit status 1, as upstream) for
 * a malformed token or `--ttl` and a {@link ValidationError} (exit status 3) for bad usages or
 * groups; token secrets never appear in them.
 */
export function tokenForCreate(o: TokenCreateOptions, random: RandomSource): BootstrapToken {
  let token: string;
  if (o.token !== undefined && o.token !== "") {
    try {
      parseToken(o.token);
    } catch (e) {
      throw new KubeadmError((e as Error).message, { field: "[token]" });
    }
    token = o.token;
  } else {
    token = generateToken(random);
  }
  let ttl = DEFAULT_TOKEN_TTL;
  if (o.ttl !== undefined) {
    try {
      ttl = normalizeDuration(o.ttl);
    } catch (e) {
      throw new KubeadmError(
        `invalid argument ${JSON.stringify(o.ttl)} for "--ttl" flag: ${(e as Error).message}`,
        { field: "--ttl", value: o.ttl },
      );
    }
  }
  const out: BootstrapToken = {
    token,
    ttl,
    usages: [...(o.usages ?? DEFAULT_TOKEN_USAGES)],
    groups: [...(o.groups ?? [Identity.bootstrapDefaultGroup])],
  };
  if (o.description) out.description = o.description;
  const errors = validateBootstrapTokens([out]);
  if (errors.length > 0) {
    throw new ValidationError(errors, { hint: "check --usages and --groups" });
  }
  return out;
}
