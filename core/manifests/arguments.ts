/**
 * Component command-line arguments as `{name, value}` lists (v1beta4 `extraArgs`).
 *
 * kubeadm first edits its defaults with set-by-name semantics, then merges the user's
 * overrides: every name present in the overrides drops all default entries of that name, all
 * override entries are kept (duplicates included), and the result is sorted by name, then
 * value, and rendered as `--name=value`. The kubelet's `kubeadm-flags.env` uses the same merge.
 *
 * @module
 */
import type { Arg } from "../config/types.ts";

function byteCompare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The value of the last entry named `name`, or `undefined` when there is none
 * (upstream's `GetArgValue(args, name, -1)`).
 */
export function getArgValue(args: readonly Arg[] | undefined, name: string): string | undefined {
  if (!args) return undefined;
  for (let i = args.length - 1; i >= 0; i--) {
    if (args[i].name === name) return args[i].value;
  }
  return undefined;
}

/**
 * Sets the last entry named `name` to `value`, or appends `{name, value}` when absent
 * (upstream's `SetArgValues(args, name, value, 1)`). Returns a new list.
 */
export function setArgValue(args: readonly Arg[], name: string, value: string): Arg[] {
  const out = args.map((a) => ({ ...a }));
  for (let i = out.length - 1; i >= 0; i--) {
    if (out[i].name === name) {
      out[i].value = value;
      return out;
    }
  }
  out.push({ name, value });
  return out;
}

/**
 * Merges defaults and overrides and renders them as `--name=value` flags, as upstream 1.34's
 * `ArgumentsToCommand` does: the defaults sorted by name (then value) minus every name the
 * overrides set, followed by the overrides in the order the user gave them.
 */
export function argumentsToCommand(
  base: readonly Arg[],
  overrides: readonly Arg[] | undefined = [],
): string[] {
  const overridden = new Set(overrides.map((a) => a.name));
  const sortedBase = [...base].sort((a, b) =>
    byteCompare(a.name, b.name) || byteCompare(a.value, b.value)
  );
  const args = [
    ...sortedBase.filter((a) => !overridden.has(a.name)),
    ...overrides.map((a) => ({ name: a.name, value: a.value ?? "" })),
  ];
  return args.map((a) => `--${a.name}=${a.value}`);
}
