/**
 * What `kubeadm token list` prints: the text table (upstream `tokenTextPrinter`), and the
 * `output.kubeadm.k8s.io/v1alpha3` `BootstrapToken` objects of `-o json` / `-o yaml` /
 * `-o kyaml`.
 *
 * Upstream renders each token row with a fresh tabwriter and emits the header only with the
 * first row; TTL, USAGES and DESCRIPTION are pre-padded (`%-9s`, `%-22s`, `%-56s`) to keep
 * rows aligned across writers. With no tokens nothing at all is printed.
 *
 * @module
 */
import type { BootstrapToken } from "./token.ts";
import { tabwriterFormat } from "../text/tabwriter.ts";
import { shortHumanDuration } from "../text/human_duration.ts";
import {
  formatStructured,
  OUTPUT_API_VERSION,
  type StructuredFormat,
} from "../text/structured_output.ts";
import { formatRFC3339 } from "./secret.ts";

/** The table's columns. */
const TOKEN_LIST_COLUMNS: readonly string[] = [
  "TOKEN",
  "TTL",
  "EXPIRES",
  "USAGES",
  "DESCRIPTION",
  "EXTRA GROUPS",
];

/** A token as `-o json|yaml` prints it (empty fields omitted; `ttl` is never filled). */
export interface OutputBootstrapToken {
  kind: "BootstrapToken";
  apiVersion: typeof OUTPUT_API_VERSION;
  token: string;
  description?: string;
  expires?: string;
  usages?: string[];
  groups?: string[];
}

function padRight(text: string, width: number): string {
  const n = [...text].length;
  return n >= width ? text : text + " ".repeat(width - n);
}

/** The cells of one token row (TTL relative to `now`). */
function tokenListCells(token: BootstrapToken, now: Date): string[] {
  let ttl = "<forever>";
  let expires = "<never>";
  if (token.expires) {
    const at = new Date(token.expires);
    ttl = shortHumanDuration(at.getTime() - now.getTime());
    expires = formatRFC3339(at);
  }
  const usages = token.usages?.length ? token.usages.join(",") : "<none>";
  const description = token.description ? token.description : "<none>";
  const groups = token.groups?.length ? token.groups.join(",") : "<none>";
  return [
    token.token ?? "",
    padRight(ttl, 9),
    expires,
    padRight(usages, 22),
    padRight(description, 56),
    groups,
  ];
}

/** One row as upstream prints it: its own tabwriter, with the header when `withHeader`. */
function tokenListRow(token: BootstrapToken, now: Date, withHeader: boolean): string {
  let text = withHeader ? `${TOKEN_LIST_COLUMNS.join("\t")}\n` : "";
  text += `${tokenListCells(token, now).join("\t")}\n`;
  return tabwriterFormat(text);
}

/** The whole text output for a list of tokens (empty string when there are none). */
export function formatTokenListText(tokens: readonly BootstrapToken[], now: Date): string {
  return tokens.map((t, i) => tokenListRow(t, now, i === 0)).join("");
}

/** A token as a structured output object. */
export function outputToken(token: BootstrapToken): OutputBootstrapToken {
  const out: OutputBootstrapToken = {
    kind: "BootstrapToken",
    apiVersion: OUTPUT_API_VERSION,
    token: token.token ?? "",
  };
  if (token.description) out.description = token.description;
  if (token.expires) out.expires = formatRFC3339(new Date(token.expires));
  if (token.usages?.length) out.usages = [...token.usages];
  if (token.groups?.length) out.groups = [...token.groups];
  return out;
}

/**
 * A structured format's output: one indented JSON object per token (`json`), YAML documents
 * separated by `---` (`yaml`), or KYAML documents each opening with its own `---` (`kyaml`).
 */
export function formatTokenListStructured(
  tokens: readonly BootstrapToken[],
  format: StructuredFormat,
): string {
  return tokens.map((t) => formatStructured(outputToken(t), format)).join(
    format === "yaml" ? "---\n" : "",
  );
}
