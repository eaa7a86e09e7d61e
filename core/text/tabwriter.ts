/**
 * Go's `text/tabwriter` layout (padding with spaces, no flags), which kubeadm's tables use.
 *
 * Input is text whose cells end with a TAB. The text after the last TAB of a line is not
 * aligned. A column's width is the widest cell of a contiguous block of lines that have that
 * column, plus `padding`, but at least `minWidth`; a line without the column (an empty line, or
 * one without TABs) ends the block, so sections separated by such a line align on their own.
 * Widths count Unicode code points, as Go counts runes.
 *
 * @module
 */

/** Layout settings (Go's `tabwriter.NewWriter(w, minwidth, tabwidth, padding, ' ', 0)`). */
export interface TabwriterOptions {
  /** Minimal cell width including padding. */
  minWidth: number;
  /** Added to the widest cell of a column. */
  padding: number;
}

/** kubeadm's settings: `tabwriter.NewWriter(w, 10, 4, 3, ' ', 0)`. */
const KUBEADM_TABWRITER: Readonly<TabwriterOptions> = { minWidth: 10, padding: 3 };

function width(text: string): number {
  return [...text].length;
}

/**
 * Lays out `text` as Go's tabwriter would after a final `Flush`. A trailing newline is kept;
 * text without one is treated as a last line without a newline.
 */
export function tabwriterFormat(
  text: string,
  options: TabwriterOptions = KUBEADM_TABWRITER,
): string {
  if (text === "") return "";
  const endsWithNewline = text.endsWith("\n");
  const lines = (endsWithNewline ? text.slice(0, -1) : text).split("\n").map((l) => l.split("\t"));
  const out: string[] = lines.map(() => "");
  const widths: number[] = [];

  const writeLines = (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const cells = lines[i];
      let s = "";
      cells.forEach((cell, j) => {
        s += cell;
        if (j < widths.length) s += " ".repeat(Math.max(0, widths[j] - width(cell)));
      });
      out[i] = s;
    }
  };

  // Go's Writer.format: recursive over columns, blocks of lines that have the column.
  const format = (line0: number, line1: number) => {
    const column = widths.length;
    for (let i = line0; i < line1; i++) {
      if (column >= lines[i].length - 1) continue;
      writeLines(line0, i);
      line0 = i;
      let w = options.minWidth;
      for (; i < line1; i++) {
        if (column >= lines[i].length - 1) break;
        w = Math.max(w, width(lines[i][column]) + options.padding);
      }
      widths.push(w);
      format(line0, i);
      widths.pop();
      line0 = i;
      i--; // re-examine the line that ended the block
    }
    writeLines(line0, line1);
  };
  format(0, lines.length);
  return out.join("\n") + (endsWithNewline ? "\n" : "");
}
