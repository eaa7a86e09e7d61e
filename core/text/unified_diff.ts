/**
 * Unified diffs the way kubeadm prints them (`kubeadm upgrade diff`, through go-difflib, a port
 * of Python's `difflib`): the Ratcliff/Obershelp longest-matching-block algorithm of
 * `SequenceMatcher` (elements of `b` more frequent than 1% + 1 of a sequence of 200 or more are
 * "popular" and never start a match), grouped into hunks with `context` lines around changes.
 *
 * @module
 */

/** An edit operation: tag and the ranges `a[i1:i2]`, `b[j1:j2]`. */
interface OpCode {
  tag: "equal" | "replace" | "delete" | "insert";
  i1: number;
  i2: number;
  j1: number;
  j2: number;
}

/** The matching blocks of two sequences of lines (Python's `SequenceMatcher`). */
function matchingBlocks(
  a: readonly string[],
  b: readonly string[],
): [number, number, number][] {
  const b2j = new Map<string, number[]>();
  b.forEach((line, j) => {
    const list = b2j.get(line);
    if (list) list.push(j);
    else b2j.set(line, [j]);
  });
  if (b.length >= 200) {
    const limit = Math.floor(b.length / 100) + 1;
    for (const [line, idx] of [...b2j]) if (idx.length > limit) b2j.delete(line);
  }
  const longest = (
    alo: number,
    ahi: number,
    blo: number,
    bhi: number,
  ): [number, number, number] => {
    let besti = alo, bestj = blo, bestsize = 0;
    let j2len = new Map<number, number>();
    for (let i = alo; i < ahi; i++) {
      const next = new Map<number, number>();
      for (const j of b2j.get(a[i]) ?? []) {
        if (j < blo) continue;
        if (j >= bhi) break;
        const k = (j2len.get(j - 1) ?? 0) + 1;
        next.set(j, k);
        if (k > bestsize) {
          besti = i - k + 1;
          bestj = j - k + 1;
          bestsize = k;
        }
      }
      j2len = next;
    }
    while (besti > alo && bestj > blo && a[besti - 1] === b[bestj - 1]) {
      besti--;
      bestj--;
      bestsize++;
    }
    while (
      besti + bestsize < ahi && bestj + bestsize < bhi &&
      a[besti + bestsize] === b[bestj + bestsize]
    ) {
      bestsize++;
    }
    return [besti, bestj, bestsize];
  };
  const blocks: [number, number, number][] = [];
  const queue: [number, number, number, number][] = [[0, a.length, 0, b.length]];
  while (queue.length > 0) {
    const [alo, ahi, blo, bhi] = queue.pop()!;
    const [i, j, k] = longest(alo, ahi, blo, bhi);
    if (k === 0) continue;
    blocks.push([i, j, k]);
    if (alo < i && blo < j) queue.push([alo, i, blo, j]);
    if (i + k < ahi && j + k < bhi) queue.push([i + k, ahi, j + k, bhi]);
  }
  blocks.sort((x, y) => x[0] - y[0] || x[1] - y[1] || x[2] - y[2]);
  const merged: [number, number, number][] = [];
  let [i1, j1, k1] = [0, 0, 0];
  for (const [i2, j2, k2] of blocks) {
    if (i1 + k1 === i2 && j1 + k1 === j2) {
      k1 += k2;
    } else {
      if (k1) merged.push([i1, j1, k1]);
      [i1, j1, k1] = [i2, j2, k2];
    }
  }
  if (k1) merged.push([i1, j1, k1]);
  merged.push([a.length, b.length, 0]);
  return merged;
}

/** The edit operations turning `a` into `b`. */
function opCodes(a: readonly string[], b: readonly string[]): OpCode[] {
  const out: OpCode[] = [];
  let i = 0, j = 0;
  for (const [ai, bj, size] of matchingBlocks(a, b)) {
    const tag = i < ai && j < bj ? "replace" : i < ai ? "delete" : j < bj ? "insert" : undefined;
    if (tag) out.push({ tag, i1: i, i2: ai, j1: j, j2: bj });
    i = ai + size;
    j = bj + size;
    if (size) out.push({ tag: "equal", i1: ai, i2: i, j1: bj, j2: j });
  }
  return out;
}

/** The operations grouped into hunks with `n` lines of context. */
function groupedOpCodes(a: readonly string[], b: readonly string[], n: number): OpCode[][] {
  let codes = opCodes(a, b);
  if (codes.length === 0) codes = [{ tag: "equal", i1: 0, i2: 1, j1: 0, j2: 1 }];
  const first = codes[0];
  if (first.tag === "equal") {
    codes[0] = {
      ...first,
      i1: Math.max(first.i1, first.i2 - n),
      j1: Math.max(first.j1, first.j2 - n),
    };
  }
  const last = codes[codes.length - 1];
  if (last.tag === "equal") {
    codes[codes.length - 1] = {
      ...last,
      i2: Math.min(last.i2, last.i1 + n),
      j2: Math.min(last.j2, last.j1 + n),
    };
  }
  const groups: OpCode[][] = [];
  let group: OpCode[] = [];
  for (let { tag, i1, i2, j1, j2 } of codes) {
    if (tag === "equal" && i2 - i1 > 2 * n) {
      group.push({ tag, i1, i2: Math.min(i2, i1 + n), j1, j2: Math.min(j2, j1 + n) });
      groups.push(group);
      group = [];
      i1 = Math.max(i1, i2 - n);
      j1 = Math.max(j1, j2 - n);
    }
    group.push({ tag, i1, i2, j1, j2 });
  }
  if (group.length > 0 && !(group.length === 1 && group[0].tag === "equal")) groups.push(group);
  return groups;
}

/** go-difflib's `SplitLines`: lines with their newlines, plus a final `"\n"`. */
export function splitLines(text: string): string[] {
  if (text === "") return ["\n"];
  const lines = text.split(/(?<=\n)/);
  if (text.endsWith("\n")) lines.push("");
  lines[lines.length - 1] += "\n";
  return lines;
}

function range(start: number, stop: number): string {
  let beginning = start + 1;
  const length = stop - start;
  if (length === 1) return `${beginning}`;
  if (length === 0) beginning -= 1;
  return `${beginning},${length}`;
}

/** A unified diff of two line lists (go-difflib `WriteUnifiedDiff`); `""` when equal. */
export function unifiedDiff(
  a: readonly string[],
  b: readonly string[],
  opts: { fromFile?: string; toFile?: string; context: number },
): string {
  let out = "";
  let started = false;
  for (const group of groupedOpCodes(a, b, opts.context)) {
    if (!started) {
      started = true;
      if (opts.fromFile || opts.toFile) {
        out += `--- ${opts.fromFile ?? ""}\n+++ ${opts.toFile ?? ""}\n`;
      }
    }
    const first = group[0], last = group[group.length - 1];
    out += `@@ -${range(first.i1, last.i2)} +${range(first.j1, last.j2)} @@\n`;
    for (const c of group) {
      if (c.tag === "equal") {
        for (const line of a.slice(c.i1, c.i2)) out += ` ${line}`;
        continue;
      }
      if (c.tag === "replace" || c.tag === "delete") {
        for (const line of a.slice(c.i1, c.i2)) out += `-${line}`;
      }
      if (c.tag === "replace" || c.tag === "insert") {
        for (const line of b.slice(c.j1, c.j2)) out += `+${line}`;
      }
    }
  }
  return out;
}
