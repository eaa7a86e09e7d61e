/**
 * Runs a command without the command-line library when the command line is unambiguous, so
 * that a plain `kubeadm version` does not pay for loading commander (and with it Deno's Node
 * compatibility layer, as commander is CommonJS). The values are the ones commander and
 * {@link flagValues} would give: the command's name, then only the registry's single-valued,
 * non-boolean flags it accepts (its own and the global ones) as `--name=value`, `--name value`,
 * `-x value` or `-x=value`, the value not starting with `-`; defaults as registered; each value
 * parsed by its type. Anything else (help, an unknown flag or argument, a boolean or list flag,
 * a missing value) is left to commander, with its parse errors and help.
 *
 * @module
 */
import { COMMANDS } from "./command_list.ts";
import {
  type CommandName,
  type FlagName,
  FLAGS,
  type FlagValues,
  isFlagName,
  parseFlagValue,
  PERSISTENT_FLAGS,
} from "./flags.ts";

/** Flag kinds a direct run parses (one value each, the last one given wins, as commander's). */
const SINGLE_VALUED = new Set(["string", "int32", "duration", "level", "moduleSpec"]);

/**
 * The flag values of `args` (what follows the command's name) for a command accepting
 * `accepts`, or `undefined` when commander should parse them.
 */
export function directValues(
  command: CommandName,
  accepts: readonly FlagName[],
  args: readonly string[],
): FlagValues | undefined {
  const accepted = new Set<FlagName>([...accepts, ...PERSISTENT_FLAGS]);
  const byShort = new Map<string, FlagName>();
  for (const name of accepted) {
    const short = (FLAGS[name] as { short?: string }).short;
    if (short) byShort.set(short, name);
  }
  const given = new Map<FlagName, string>();
  for (let i = 0; i < args.length; i++) {
    const m = args[i].match(/^--([a-z0-9-]+)(?:=(.*))?$/s) ??
      args[i].match(/^-([a-zA-Z])(?:=(.*))?$/s);
    if (!m) return undefined;
    const name = m[0].startsWith("--") ? m[1] : byShort.get(m[1]);
    if (!name || !isFlagName(name) || !accepted.has(name)) return undefined;
    if (!SINGLE_VALUED.has(FLAGS[name].type)) return undefined;
    let value = m[2];
    if (value === undefined) {
      value = args[++i];
      if (value === undefined || value.startsWith("-")) return undefined;
    }
    given.set(name, value);
  }
  // In commander's order: the command's own flags, then the global ones, each sorted.
  const out: Record<string, unknown> = {};
  const own = [...new Set(accepts)].sort();
  const global = [...PERSISTENT_FLAGS].sort().filter((n) => !own.includes(n));
  for (const [names, defaults] of [[own, command], [global, "kubeadm"]] as const) {
    for (const name of names) {
      const defaultBy = (FLAGS[name] as { defaultBy?: Partial<Record<CommandName, string>> })
        .defaultBy;
      const raw = given.get(name) ?? defaultBy?.[defaults];
      if (raw !== undefined) out[name] = parseFlagValue(name, raw);
    }
  }
  return out as FlagValues;
}

/** Runs `argv` directly when its command allows it; `false` when commander should run it. */
export async function directRun(argv: readonly string[]): Promise<boolean> {
  const entry = COMMANDS.find((c) => c.name === argv[0]);
  if (!entry?.direct) return false;
  const command = await entry.direct();
  const values = directValues(entry.name, command.flags, argv.slice(1));
  if (!values) return false;
  await command.run(values);
  return true;
}
