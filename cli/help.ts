/**
 * Help screens laid out the way upstream kubeadm's (cobra and pflag) are: the long description,
 * `Usage:`, `Aliases:`, `Examples:`, `Available Commands:` (sorted), `Flags:` (the command's
 * own, sorted, `-h, --help` among them) and `Global Flags:` (its ancestors' persistent flags),
 * each flag as `--name type   usage (default …)`. Scripts and people reading `kubeadm … --help`
 * find what they know from upstream, and the CLI-parity test reads both with one parser.
 *
 * @module
 */
import type { Command } from "commander";
import { type FlagUsage, flagUsage } from "./flags.ts";

/** cobra's minimum width of a command name in `Available Commands:`. */
const MIN_NAME_PADDING = 11;

/** The command's path from the root (`kubeadm init phase certs`). */
export function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(" ");
}

/** A command's example text (upstream's `Example`), when it has one. */
const EXAMPLES = new WeakMap<Command, string>();

/** Sets the `Examples:` section of a command's help. */
export function setExample(cmd: Command, example: string): Command {
  EXAMPLES.set(cmd, example);
  return cmd;
}

/** Commands whose usage line leaves out `[flags]` (cobra's `DisableFlagsInUseLine`). */
const NO_FLAGS_IN_USE_LINE = new WeakSet<Command>();

/** Leaves `[flags]` out of the command's usage line, as upstream's command does. */
export function disableFlagsInUseLine(cmd: Command): Command {
  NO_FLAGS_IN_USE_LINE.add(cmd);
  return cmd;
}

/**
 * pflag's `FlagUsages`: one line per flag, usages aligned two spaces after the longest
 * `--name type`, continuation lines of multi-line usages indented to the same column.
 */
function formatFlagUsages(flags: readonly FlagUsage[]): string {
  const heads = flags.map((f) =>
    `${f.short ? `  -${f.short}, ` : "      "}--${f.name}${f.type ? ` ${f.type}` : ""}`
  );
  const width = Math.max(0, ...heads.map((h) => h.length));
  return flags.map((f, i) => {
    const usage = f.usage.replaceAll("\n", `\n${" ".repeat(width + 3)}`);
    return `${heads[i].padEnd(width)}   ${usage}`;
  }).join("\n");
}

function helpFlag(cmd: Command): FlagUsage {
  return { name: "help", short: "h", type: "", usage: `help for ${cmd.name()}`, inherited: false };
}

function byName(a: { name: string }, b: { name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** Whether the command does something itself (cobra's `Runnable`). */
function runnable(cmd: Command): boolean {
  return (cmd as unknown as { _actionHandler: unknown })._actionHandler != null;
}

/** The visible sub-commands. */
function visibleCommands(cmd: Command): Command[] {
  return cmd.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden);
}

/** Arguments shown in a usage line as upstream's `Use` writes them, where commander's differ. */
const USE_ARGUMENTS = new WeakMap<Command, string>();

/** Shows the command's arguments as `text` in its usage line (`SHELL`, `[token-value] ...`). */
export function useArguments(cmd: Command, text: string): Command {
  USE_ARGUMENTS.set(cmd, text);
  return cmd;
}

/** The usage line: `kubeadm token create [token] [flags]`. */
function useLine(cmd: Command): string {
  const shown = USE_ARGUMENTS.get(cmd);
  const args = shown !== undefined ? [shown] : cmd.registeredArguments.map((a) => {
    const name = `${a.name()}${a.variadic ? "..." : ""}`;
    return a.required ? `<${name}>` : `[${name}]`;
  });
  const flags = NO_FLAGS_IN_USE_LINE.has(cmd) ? [] : ["[flags]"];
  return [commandPath(cmd), ...args, ...flags].join(" ");
}

/** The command's help screen, cobra's layout. */
export function formatHelp(cmd: Command): string {
  const parts: string[] = [];
  const long = (cmd.description() || cmd.summary()).trimEnd();
  if (long) parts.push(`${long}\n\n`);
  const subs = visibleCommands(cmd);
  const usage = [];
  if (runnable(cmd)) usage.push(`  ${useLine(cmd)}`);
  if (subs.length > 0) usage.push(`  ${commandPath(cmd)} [command]`);
  const sections = [`Usage:\n${usage.join("\n")}`];
  if (cmd.aliases().length > 0) {
    sections.push(`Aliases:\n  ${[cmd.name(), ...cmd.aliases()].join(", ")}`);
  }
  const example = EXAMPLES.get(cmd);
  if (example) sections.push(`Examples:\n${example}`);
  if (subs.length > 0) {
    const rows = subs.map((c): [string, string] => [c.name(), c.summary() || c.description()]);
    // cobra's root lists its `help` command among the others.
    if (!cmd.parent) rows.push(["help", "Help about any command"]);
    rows.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const width = Math.max(MIN_NAME_PADDING, ...rows.map(([n]) => n.length));
    sections.push(
      `Available Commands:\n${rows.map(([n, s]) => `  ${n.padEnd(width)} ${s}`).join("\n")}`,
    );
  }
  const flags = cmd.options.map(flagUsage).filter((f): f is FlagUsage => f !== undefined);
  const local = [...flags.filter((f) => !f.inherited), helpFlag(cmd)].sort(byName);
  const global = flags.filter((f) => f.inherited).sort(byName);
  sections.push(`Flags:\n${formatFlagUsages(local)}`);
  if (global.length > 0) sections.push(`Global Flags:\n${formatFlagUsages(global)}`);
  if (subs.length > 0) {
    sections.push(
      `Use "${commandPath(cmd)} [command] --help" for more information about a command.`,
    );
  }
  return `${parts.join("")}${sections.join("\n\n")}\n`;
}
