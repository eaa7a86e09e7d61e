/**
 * The process the command line runs in, on Deno: its arguments, standard streams, environment,
 * permissions, temp directories, id and exit, and the runtime's name for `kubeadm version`.
 * Environment and permission reads degrade gracefully when Deno did not grant them.
 *
 * @module
 */

/** The variable's value, or `undefined` when unset or when env access is not permitted. */
export function envGet(name: string): string | undefined {
  try {
    if (Deno.permissions.querySync({ name: "env", variable: name }).state !== "granted") {
      return undefined;
    }
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}

/** Whether writing to `path` is permitted without prompting. */
export function canWrite(path: string): boolean {
  try {
    return Deno.permissions.querySync({ name: "write", path }).state === "granted";
  } catch {
    return false;
  }
}

/** A new directory under `dir` whose name starts with `prefix`. */
export function makeTempDir(dir: string, prefix: string): Promise<string> {
  return Deno.makeTempDir({ dir, prefix });
}

/** Whether the process may use the network (the launcher grants none to some dry runs). */
export function networkAllowed(): boolean {
  try {
    return Deno.permissions.querySync({ name: "net" }).state === "granted";
  } catch {
    return false;
  }
}

const enc = new TextEncoder();

/** The process's standard streams, written synchronously (ordering matters when mixed). */
export const processStreams = {
  /** Writes text to standard output as is. */
  stdout: (text: string): void => void Deno.stdout.writeSync(enc.encode(text)),
  /** Writes text to standard error as is. */
  stderr: (text: string): void => void Deno.stderr.writeSync(enc.encode(text)),
  /** Standard input. */
  stdin: (): ReadableStream<Uint8Array> => Deno.stdin.readable,
};

/** The command line's arguments (without the program name). */
export function processArgs(): string[] {
  return Deno.args;
}

/** Ends the process with `code`. */
export function exitProcess(code: number): never {
  Deno.exit(code);
}

/** The process id (klog's thread column). */
export function processId(): number {
  return Deno.pid;
}

/** The runtime, as `kubeadm version` reports it where upstream names Go's. */
export function runtimeInfo(): { version: string; platform: string } {
  const arch = Deno.build.arch === "x86_64" ? "amd64" : Deno.build.arch;
  return { version: `deno${Deno.version.deno}`, platform: `${Deno.build.os}/${arch}` };
}
