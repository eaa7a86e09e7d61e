/**
 * `-o` of the commands that print kubeadm's output objects (`token list`, `certs
 * check-expiration`, `config images list`, `upgrade plan`): the format parsed once
 * (`core/text/output_format.ts`), a template file read the way upstream reads it (inside
 * `--rootfs`, where upstream has `chroot`ed), the template engines loaded only when a template
 * format is asked for, and one writer of an object in the chosen format.
 *
 * @module
 */
import type { FlagValues } from "./flags.ts";
import { writeStdout } from "./output.ts";
import { KubeadmError } from "../core/errors.ts";
import { parseOutputFormat, printerError } from "../core/text/output_format.ts";
import type { StructuredFormat } from "../core/text/structured_output.ts";
import type { TemplatePrinter } from "../printers/template_printer.ts";
import { readFileError, readTextFileCapped } from "../adapters/deno/fs/capped_read.ts";

/** `-o` resolved: text (the command's own), a structured format, or a ready template printer. */
export type ObjectOutput =
  | { kind: "text" }
  | { kind: "structured"; format: StructuredFormat }
  | { kind: "template"; printer: TemplatePrinter };

/**
 * A template file's text. Upstream reads it after `chroot`ing into `--rootfs` (and `chdir("/")`),
 * so with a root the path, relative ones from `/`, is resolved inside it.
 */
async function readTemplateFile(path: string, rootfs: string | undefined, value: string) {
  try {
    let hostPath = path;
    if (rootfs) {
      const { resolveInRootSync } = await import("../adapters/deno/fs/rooted_path.ts");
      hostPath = resolveInRootSync(rootfs, path.startsWith("/") ? path : `/${path}`);
    }
    return await readTextFileCapped(hostPath);
  } catch (e) {
    throw printerError(`error reading --template ${path}, ${readFileError(path, e)}`, value, e);
  }
}

/**
 * Resolves `-o` (default `text`) and `--allow-missing-template-keys` before the command does
 * any work, failing as upstream's `ToPrinter` does.
 */
export async function resolveObjectOutput(flags: FlagValues): Promise<ObjectOutput> {
  const value = flags.output ?? "text";
  const choice = parseOutputFormat(value);
  if (choice.kind !== "template") return choice;
  const t = choice.template;
  const text = t.fromFile ? await readTemplateFile(t.argument, flags.rootfs, value) : t.argument;
  const { templatePrinter } = await import("../printers/template_printer.ts");
  const allowMissing = flags["allow-missing-template-keys"] ?? true;
  return { kind: "template", printer: templatePrinter(t, text, allowMissing !== false) };
}

/**
 * Writes one object in a structured or template format. A template that fails to execute
 * prints what upstream prints to stdout, then throws upstream's error, after `context`
 * (`unable to print images`) when the command wraps it.
 */
export async function writeObject(
  output: Exclude<ObjectOutput, { kind: "text" }>,
  object: unknown,
  context?: string,
): Promise<void> {
  if (output.kind === "structured") {
    const { formatStructured } = await import("../core/text/structured_output.ts");
    writeStdout(formatStructured(object, output.format));
    return;
  }
  const { text, error } = output.printer.print(object);
  if (text) writeStdout(text);
  if (error !== undefined) {
    throw new KubeadmError(context ? `${context}: ${error}` : error, { field: "--output" });
  }
}
