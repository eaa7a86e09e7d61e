/**
 * The `-o` formats of the commands that print kubeadm's structured output objects (`token
 * list`, `certs check-expiration`, `config images list`, `upgrade plan`): one list, one parser
 * of `name=argument`, upstream's errors (cli-runtime's print flags as kubeadm composes them).
 *
 * The template engines are not imported here: a caller loads `printers/template_printer.ts`
 * only when a template format is asked for.
 *
 * @module
 */
import { KubeadmError } from "../errors.ts";
import { goQuote } from "./go_quote.ts";
import type { StructuredFormat } from "./structured_output.ts";

/** The structured formats (matched without regard to case, as upstream). */
const STRUCTURED_FORMATS: readonly StructuredFormat[] = ["json", "yaml", "kyaml"];

/** The Go template formats (`-o go-template=TEMPLATE`, `-o templatefile=PATH`, …). */
const GO_TEMPLATE_FORMATS = [
  "go-template",
  "go-template-file",
  "template",
  "templatefile",
] as const;

/** The JSONPath formats (`-o jsonpath=EXPR`, `-o jsonpath-file=PATH`, …). */
const JSONPATH_FORMATS = ["jsonpath", "jsonpath-as-json", "jsonpath-file"] as const;

/** Every format, in the order upstream's help lists them. */
export const OUTPUT_FORMATS: readonly string[] = [
  "text",
  ...STRUCTURED_FORMATS,
  ...GO_TEMPLATE_FORMATS,
  ...JSONPATH_FORMATS,
];

/** The `-o` help line of these commands, as upstream's. */
export const OUTPUT_FORMAT_HELP = `Output format. One of: ${OUTPUT_FORMATS.join("|")}.`;

/** A template format's engine, its argument and where the template text comes from. */
export interface TemplateFormat {
  engine: "go-template" | "jsonpath";
  /** The format's name (`go-template`, `jsonpath-file`, …). */
  format: string;
  /** The template text, or the path of the file holding it. */
  argument: string;
  /** `argument` is a file path (`go-template-file`, `templatefile`, `jsonpath-file`). */
  fromFile: boolean;
  /** `jsonpath-as-json`: results printed as one indented JSON list. */
  asJson: boolean;
}

/** What `-o` asks for. */
export type OutputChoice =
  | { kind: "text" }
  | { kind: "structured"; format: StructuredFormat }
  | { kind: "template"; template: TemplateFormat };

/** Upstream's wrapper of every printer-construction failure. */
export function printerError(message: string, value: string, cause?: unknown): KubeadmError {
  return new KubeadmError(`could not construct output printer: ${message}`, {
    field: "--output",
    value,
    cause,
  });
}

function splitFormat(value: string, formats: readonly string[]): [string, string] | undefined {
  for (const f of formats) {
    if (value.startsWith(`${f}=`)) return [f, value.slice(f.length + 1)];
  }
  return formats.includes(value) ? [value, ""] : undefined;
}

/**
 * Parses `-o`'s value: `text`, a structured format, or `FORMAT=ARGUMENT` for a template format;
 * anything else fails with upstream's error naming every allowed format.
 */
export function parseOutputFormat(value: string): OutputChoice {
  if (value === "text") return { kind: "text" };
  const lower = value.toLowerCase();
  const structured = STRUCTURED_FORMATS.find((f) => f === lower);
  if (structured) return { kind: "structured", format: structured };
  for (
    const [engine, formats] of [
      ["jsonpath", JSONPATH_FORMATS],
      ["go-template", GO_TEMPLATE_FORMATS],
    ] as const
  ) {
    const split = splitFormat(value, formats);
    if (!split) continue;
    const [format, argument] = split;
    if (argument === "") {
      throw printerError("template format specified but no template given", value);
    }
    return {
      kind: "template",
      template: {
        engine,
        format,
        argument,
        fromFile: format.endsWith("file"),
        asJson: format === "jsonpath-as-json",
      },
    };
  }
  throw printerError(
    `unable to match a printer suitable for the output format ${
      goQuote(value)
    }, allowed formats are: ${[...OUTPUT_FORMATS].sort().join(",")}`,
    value,
  );
}
