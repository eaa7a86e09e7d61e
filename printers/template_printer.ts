/**
 * The template printers of `-o go-template=…` and `-o jsonpath=…` (cli-runtime's
 * `GoTemplatePrinter` and `JSONPathPrinter`): an object is printed through its JSON form, and a
 * failure prints (or carries) upstream's debugging text. Reading a template file is the
 * caller's job; this module gets the text.
 *
 * @module
 */
import { executeGoTemplate, type GoTemplate, parseGoTemplate } from "./go_template.ts";
import { JsonPath } from "./jsonpath.ts";
import { goJson, goSprintPlusV, goSprintSharpV, toGoValue } from "./go_fmt.ts";
import { goQuote } from "../core/text/go_quote.ts";
import { printerError, type TemplateFormat } from "../core/text/output_format.ts";

/** What printing one object gives: the text for stdout, and upstream's error if it failed. */
export interface PrintOutcome {
  text: string;
  error?: string;
}

/** A template printer, built once per command and used for every object it prints. */
export interface TemplatePrinter {
  print(object: unknown): PrintOutcome;
}

/**
 * Builds the printer of a template format from its template text (the argument, or the file's
 * content), or fails with upstream's parse error.
 */
export function templatePrinter(
  format: TemplateFormat,
  text: string,
  allowMissingKeys: boolean,
): TemplatePrinter {
  return format.engine === "jsonpath"
    ? jsonPathPrinter(text, allowMissingKeys, format.asJson, format.format)
    : goTemplatePrinter(text, allowMissingKeys, format.format);
}

function goTemplatePrinter(text: string, allowMissing: boolean, value: string): TemplatePrinter {
  let tmpl: GoTemplate;
  try {
    tmpl = parseGoTemplate(text);
  } catch (e) {
    throw printerError(`error parsing template ${text}, ${(e as Error).message}`, value, e);
  }
  return {
    print(object) {
      const data = toGoValue(object, true);
      const r = executeGoTemplate(tmpl, data, { missingKeyError: !allowMissing });
      if (r.error === undefined) return { text: r.output };
      const debug = `Error executing template: ${r.error}. ` +
        "Printing more information for debugging the template:\n" +
        `\ttemplate was:\n\t\t${text}\n` +
        `\traw data was:\n\t\t${goJson(data, { keepOrder: true })}\n` +
        `\tobject given to template engine was:\n\t\t${goSprintPlusV(data)}\n\n`;
      return {
        text: r.output + debug,
        error: `error executing template ${goQuote(text)}: ${r.error}`,
      };
    },
  };
}

function jsonPathPrinter(
  text: string,
  allowMissing: boolean,
  asJson: boolean,
  value: string,
): TemplatePrinter {
  let path: JsonPath;
  try {
    path = new JsonPath(text, { allowMissingKeys: allowMissing, outputJson: asJson });
  } catch (e) {
    throw printerError(`error parsing jsonpath ${text}, ${(e as Error).message}`, value, e);
  }
  return {
    print(object) {
      const data = toGoValue(object, false);
      try {
        return { text: path.execute(data) };
      } catch (e) {
        const debug = `Error executing template: ${(e as Error).message}. ` +
          "Printing more information for debugging the template:\n" +
          `\ttemplate was:\n\t\t${text}\n` +
          `\tobject given to jsonpath engine was:\n\t\t${goSprintSharpV(data)}\n\n`;
        return { text: "", error: `error executing jsonpath ${goQuote(text)}: ${debug}\n` };
      }
    },
  };
}
