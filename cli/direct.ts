/**
 * Runs a command without the command-line library when the command line is unambiguous, so
 * that `kubeadm version` or `kubeadm init phase certs all --config c.yaml` do not pay for
 * loading commander (CommonJS, so it also starts Deno's Node compatibility layer) and building
 * their command tree. A command line runs directly only when it is a command that declares a
 * direct run (`cli/command_list.ts`: `version`, the `init`/`join`/`reset` workflows and their
 * runnable phase commands), its sub-command names and its optional positional argument (join's
 * `[api-server-endpoint]`, as `kubeadm token create --print-join-command` prints it), then only
 * the registry's flags it accepts (its own and the global ones): `--name=value`, `--name value`,
 * `-x value` or `-x=value`, the value not starting with `-`; lists repeated and/or
 * comma-separated; booleans as `--name`, `-x`, `--name=<bool>` or `--no-name`. It gets what
 * commander would give: the names set, and the values with the registered defaults, parsed by
 * type. Anything else (help, an unknown flag or another argument, joined shorthands, a missing
 * or bad boolean value) is left to commander, with its parse errors and help.
 *
 * @module
 */
import { COMMANDS } from "./command_list.ts";
import {
  BOOL_VALUE,
  type CommandName,
  type FlagName,
  FLAGS,
  type FlagValues,
  type GivenFlags,
  isFlagName,
  parseFlagValue,
  PERSISTENT_FLAGS,
  TRUE_VALUES,
} from "./flags.ts";

/** Single-valued flag kinds (the last one given wins, as commander's). */
const SINGLE_VALUED = new Set([
  "string",
  "int32",
  "int",
  "duration",
  "level",
  "moduleSpec",
  "featureGates",
]);

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
  const given = new Map<FlagName, unknown>();
  for (let i = 0; i < args.length; i++) {
    const m = args[i].match(/^--([a-z0-9-]+)(?:=(.*))?$/s) ??
      args[i].match(/^-([a-zA-Z])(?:=(.*))?$/s);
    if (!m) return undefined;
    const long = m[0].startsWith("--");
    let name = long ? m[1] : byShort.get(m[1]);
    let value: string | undefined = m[2];
    // A boolean's negation (`--no-dry-run`, what `--dry-run=false` becomes for commander).
    const negated = long && name?.startsWith("no-") && value === undefined &&
      isFlagName(name.slice(3)) && FLAGS[name.slice(3) as FlagName].type === "bool";
    if (negated) name = name!.slice(3);
    if (!name || !isFlagName(name) || !accepted.has(name)) return undefined;
    const type = FLAGS[name].type;
    if (type === "bool") {
      if (negated) given.set(name, false);
      else if (value === undefined) given.set(name, true);
      else if (long && BOOL_VALUE.test(value)) given.set(name, TRUE_VALUES.has(value));
      else return undefined;
      continue;
    }
    if (value === undefined) {
      value = args[++i];
      if (value === undefined || value.startsWith("-")) return undefined;
    }
    if (type === "stringSlice") {
      const items = value.split(",").map((x) => x.trim()).filter((x) => x !== "");
      given.set(name, [...(given.get(name) as string[] | undefined ?? []), ...items]);
    } else if (SINGLE_VALUED.has(type)) {
      given.set(name, value);
    } else {
      return undefined;
    }
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
  given: ReadonlyMap<FlagName, unknown>,
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
