/**
 * The set of checks whose errors are shown as warnings, from `--ignore-preflight-errors` and
 * `nodeRegistration.ignorePreflightErrors`.
 *
 * Matching is case-insensitive and `all` ignores every check, as upstream. Two rules are
 * enforced: `all` cannot be combined with individual names (upstream's rule), and every name
 * must be a known check name (a kubeadm-ts addition: upstream silently accepts typos).
 *
 * @module
 */
import { ValidationError } from "../errors.ts";

/** A validated ignore set. */
export interface IgnoreSet {
  /** `all` was given. */
  readonly all: boolean;
  /** The lowercased names. */
  readonly names: ReadonlySet<string>;
  /** Whether errors of the named check are downgraded to warnings. */
  has(checkName: string): boolean;
}

/** The field name upstream reports ignore-list problems under. */
const IGNORE_FIELD = "ignore-preflight-errors";

/** An ignore set that ignores nothing. */
export const IGNORE_NOTHING: IgnoreSet = makeSet(new Set());

function makeSet(names: Set<string>): IgnoreSet {
  const all = names.has("all");
  return {
    all,
    names,
    has: (checkName: string) => all || names.has(checkName.toLowerCase()),
  };
}

/**
 * Merges and validates the flag and config lists. `known` is every check name that may be
 * ignored (the static catalogue plus this run's dynamic names such as `Port-7443`); a pattern
 * accepts a family of names not known in advance (matched against the lowercased name).
 */
export function resolveIgnoreSet(
  fromFlag: readonly string[],
  fromConfig: readonly string[],
  known: Iterable<string | RegExp>,
): IgnoreSet {
  const names = new Set<string>();
  for (const item of [...fromConfig, ...fromFlag]) {
    const name = item.trim().toLowerCase();
    if (name !== "") names.add(name);
  }
  if (names.has("all") && names.size > 1) {
    throw new ValidationError([{
      field: IGNORE_FIELD,
      value: [...names].sort().join(","),
      detail: "don't specify individual checks if 'all' is used",
    }]);
  }
  const valid = new Map<string, string>();
  const patterns: RegExp[] = [];
  for (const k of known) {
    if (typeof k === "string") valid.set(k.toLowerCase(), k);
    else patterns.push(k);
  }
  const unknown = [...names].filter((n) =>
    n !== "all" && !valid.has(n) && !patterns.some((p) => p.test(n))
  ).sort();
  if (unknown.length > 0) {
    const list = ["all", ...[...new Set(valid.values())].sort()].join(", ");
    throw new ValidationError([{
      field: IGNORE_FIELD,
      value: unknown.join(","),
      detail: `unknown preflight check ${unknown.length === 1 ? "name" : "names"}; valid ` +
        `names are: ${list}`,
    }], { hint: "check names are case-insensitive; use 'all' to ignore every check" });
  }
  return makeSet(names);
}
