/**
 * Running host commands and finding executables, with Go-like error texts
 * (`exit status 1`, `executable file not found in $PATH`).
 *
 * @module
 */

/** Output of a finished command. */
export interface CommandResult {
  /** Exit code (-1 when killed by a signal). */
  code: number;
  /** The signal that killed the command, if any. */
  signal?: string;
  stdout: string;
  stderr: string;
}

/** A command could not be started. */
export class CommandNotFound extends Error {
  constructor(command: string) {
    super(`exec: ${JSON.stringify(command)}: executable file not found in $PATH`);
    this.name = "CommandNotFound";
  }
}

function pathEnv(): string {
  try {
    return Deno.env.get("PATH") ?? "";
  } catch {
    return "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
  }
}

/** Go's `exec.LookPath`: the first executable regular file named `command` in `$PATH`. */
export async function lookPath(command: string, path = pathEnv()): Promise<string | undefined> {
  const candidates = command.includes("/")
    ? [command]
    : path.split(":").map((dir) => `${dir === "" ? "." : dir}/${command}`);
  for (const file of candidates) {
    try {
      const st = await Deno.stat(file);
      if (st.isFile && ((st.mode ?? 0) & 0o111) !== 0) return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Runs a command to completion, capturing its output; rejects with {@link CommandNotFound}. */
export async function runCommand(
  command: string,
  args: readonly string[],
  opts: { stdin?: string; timeoutMs?: number } = {},
): Promise<CommandResult> {
  const exe = await lookPath(command);
  if (exe === undefined) throw new CommandNotFound(command);
  const child = new Deno.Command(exe, {
    args: [...args],
    stdin: opts.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
    signal: opts.timeoutMs ? AbortSignal.timeout(opts.timeoutMs) : undefined,
  }).spawn();
  if (opts.stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(opts.stdin));
    await w.close();
  }
  const out = await child.output();
  const dec = new TextDecoder();
  return {
    code: out.signal ? -1 : out.code,
    signal: out.signal ?? undefined,
    stdout: dec.decode(out.stdout),
    stderr: dec.decode(out.stderr),
  };
}

/** Go's rendering of a failed command: `exit status <n>` (or `signal: <name>`). */
export function exitStatus(result: CommandResult): string {
  return result.signal ? `signal: ${result.signal}` : `exit status ${result.code}`;
}
