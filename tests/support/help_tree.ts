/**
 * Reading a kubeadm command tree from its help screens (cobra's layout, which upstream kubeadm
 * prints and kubeadm-ts reproduces): every command reachable through `Available Commands:`,
 * with its usage lines, its aliases and every flag it accepts (its own and the global ones), each flag's
 * shorthand, pflag type and shown default. The CLI-parity test walks upstream's binary and our
 * command line with it.
 *
 * @module
 */

/** One flag as a help screen shows it. */
export interface HelpFlag {
  name: string;
  /** One-letter shorthand, or "". */
  short: string;
  /** pflag's type name (`string`, `strings`, `int32`, `duration`, `Level`, …), `bool` if none. */
  type: string;
  /** The `(default …)` text, or "" when none is shown. */
  default: string;
  /** Listed under `Global Flags:` (an ancestor's persistent flag). */
  global: boolean;
}

/** What one help screen says. */
export interface HelpScreen {
  /** The `Usage:` lines (`kubeadm token create [token]`, `kubeadm certs [command]`). */
  usage: string[];
  aliases: string[];
  /** Sub-command names (without `help`). */
  commands: string[];
  flags: HelpFlag[];
}

/** One command of a walked tree. */
export interface HelpCommand extends HelpScreen {
  /** `kubeadm init phase certs ca`. */
  path: string;
}

const FLAG_LINE = /^\s+(?:-(\w), )?--([\w-]+)(?: ([\w.[\]]+))?(?:\s{2,}(.*))?$/;
const DEFAULT = /\(default (.*)\)\s*$/;

/** Parses one help screen. `name` is the command's own name (left out of its aliases). */
export function parseHelp(text: string, name: string): HelpScreen {
  const lines = text.split("\n");
  const screen: HelpScreen = { usage: [], aliases: [], commands: [], flags: [] };
  let section = "";
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (/^[A-Z][A-Za-z ]*:$/.test(line)) {
      section = line.slice(0, -1);
      continue;
    }
    if (line.trim() === "") {
      section = "";
      continue;
    }
    if (section === "Usage") {
      screen.usage.push(line.trim());
    } else if (section === "Aliases") {
      screen.aliases = line.trim().split(/,\s*/).filter((a) => a !== name);
    } else if (section === "Available Commands") {
      const cmd = line.trim().split(/\s+/)[0];
      if (cmd !== "help") screen.commands.push(cmd);
    } else if (section === "Flags" || section === "Global Flags") {
      const m = line.match(FLAG_LINE);
      if (m && /^\s+-/.test(line)) {
        screen.flags.push({
          name: m[2],
          short: m[1] ?? "",
          type: m[3] ?? "bool",
          default: m[4]?.match(DEFAULT)?.[1] ?? "",
          global: section === "Global Flags",
        });
      } else if (screen.flags.length > 0) {
        // A continuation line of a multi-line usage; a default may end it.
        const d = line.match(DEFAULT);
        if (d) screen.flags[screen.flags.length - 1].default = d[1];
      }
    }
  }
  return screen;
}

/**
 * Walks a command tree from the root through `Available Commands:`, asking `help` for each
 * command's help screen (`path` without the root's name). Independent screens are fetched
 * `parallel` at a time.
 */
export async function walkHelpTree(
  help: (path: string[]) => Promise<string>,
  parallel = 8,
): Promise<Map<string, HelpCommand>> {
  const out = new Map<string, HelpCommand>();
  let level: string[][] = [[]];
  while (level.length > 0) {
    const next: string[][] = [];
    for (let i = 0; i < level.length; i += parallel) {
      const batch = level.slice(i, i + parallel);
      const screens = await Promise.all(batch.map(async (path) => {
        const text = await help(path);
        return parseHelp(text, path[path.length - 1] ?? "kubeadm");
      }));
      batch.forEach((path, j) => {
        const screen = screens[j];
        const key = ["kubeadm", ...path].join(" ");
        out.set(key, { path: key, ...screen });
        for (const c of screen.commands) next.push([...path, c]);
      });
    }
    level = next;
  }
  return out;
}
