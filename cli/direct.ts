/**
 * Runs a command without the command-line library when the command line is unambiguous, so
 * that `kubeadm version` or `kubeadm init phase certs all --config c.yaml` do not pay for
 * loading commander (CommonJS, so it also starts Deno's Node compatibility layer) and building
 * their command tree. A command line runs directly only when it is a command that declares a
 * direct run (`cli/command_list.ts`: `version`, the `init`/`join`/`reset` workflows and their
 * runnable phase commands), its sub-command names, then only the registry's single-valued,
 * non-boolean flags it accepts (its own and the global ones) as `--name=value`, `--name value`,
 * `-x value` or `-x=value`, the value not starting with `-`. It gets what commander would give:
 * the names set, and the values with the registered defaults, parsed by type. Anything else
 * (help, an unknown flag or argument, a boolean or list flag, a missing value) is left to
 * commander, with its parse errors and help.
 *
 * @module
 */
import { COMMANDS } from "./command_list.ts";
import {
  type CommandName,
  type FlagName,
  FLAGS,
  type FlagValues,
  type GivenFlags,
  isFlagName,
  parseFlagValue,
  PERSISTENT_FLAGS,
} from "./flags.ts";

/** Flag kinds a direct run parses (one value each, the last one given wins, as commander's). */
const SINGLE_VALUED = new Set(["string", "int32", "duration", "level", "moduleSpec"]);

/**
 * The flags `args` (the flags after the command's names) give a command accepting `accepts`,
 * or `undefined` when commander should parse them.
 */
export function directFlags(
  command: CommandName,
  accepts: readonly FlagName[],
  args: readonly string[],
): GivenFlags | undefined {
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
  return {
    set: commanderOrder(accepts).filter((n) => given.has(n) && !("notConfig" in FLAGS[n])),
    values: () => parsedValues(command, accepts, given),
  };
}

/** The flags a command accepts in commander's order: its own, then the global ones, sorted. */
function commanderOrder(accepts: readonly FlagName[]): FlagName[] {
  const own = [...new Set(accepts)].sort();
  return [...own, ...[...PERSISTENT_FLAGS].sort().filter((n) => !own.includes(n))];
}

/** The values commander would give: the ones given, else the registered defaults, parsed. */
function parsedValues(
  command: CommandName,
  accepts: readonly FlagName[],
  given: ReadonlyMap<FlagName, string>,
): FlagValues {
  const out: Record<string, unknown> = {};
  const own = new Set(accepts);
  for (const name of commanderOrder(accepts)) {
    // The global flags are registered with the root's defaults.
    const defaultBy = (FLAGS[name] as { defaultBy?: Partial<Record<CommandName, string>> })
      .defaultBy;
    const raw = given.get(name) ?? defaultBy?.[own.has(name) ? command : "kubeadm"];
    if (raw !== undefined) out[name] = parseFlagValue(name, raw);
  }
  return out as FlagValues;
}

/** Runs `argv` directly when its command allows it; `false` when commander should run it. */
export async function directRun(argv: readonly string[]): Promise<boolean> {
  const entry = COMMANDS.find((c) => c.name === argv[0]);
  if (!entry?.direct) return false;
  let names = 1;
  while (names < argv.length && !argv[names].startsWith("-")) names++;
  const command = await entry.direct(argv.slice(1, names));
  if (!command) return false;
  const given = directFlags(entry.name, command.flags, argv.slice(names));
  if (!given) return false;
  await command.run(given);
  return true;
}
