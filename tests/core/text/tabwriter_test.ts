import assert from "node:assert/strict";
import { tabwriterFormat } from "../../../core/text/tabwriter.ts";

// Expected outputs were produced by Go's text/tabwriter with kubeadm's settings (10, 4, 3, ' ', 0).
Deno.test("tabwriterFormat() aligns columns to the widest cell + 3, at least 10", () => {
  assert.equal(
    tabwriterFormat("a\tb\tc\naa\tbbbbbbbbbbbb\tcccc\n"),
    "a         b              c\naa        bbbbbbbbbbbb   cccc\n",
  );
});

Deno.test("tabwriterFormat() leaves the text after the last TAB unaligned", () => {
  assert.equal(
    tabwriterFormat("x\ty\nxx\tyyyyyyyyyyyyyyyyyyyyy\n"),
    "x         y\nxx        yyyyyyyyyyyyyyyyyyyyy\n",
  );
});

Deno.test("tabwriterFormat() pads a cell terminated by a trailing TAB", () => {
  assert.equal(tabwriterFormat("a\t\n"), "a         \n");
});

Deno.test("tabwriterFormat(): a line without the column ends the block (sections align apart)", () => {
  assert.equal(
    tabwriterFormat("x\ty\n\nlonger-cell-value\tz\n"),
    "x         y\n\nlonger-cell-value   z\n",
  );
  // A shorter line inside a block ends that column's block only.
  assert.equal(
    tabwriterFormat("a\tb\tc\nlong-first-cell\tonly\nq\tr\ts\n"),
    "a                 b         c\nlong-first-cell   only\nq                 r         s\n",
  );
});

Deno.test("tabwriterFormat() counts code points, keeps a missing final newline", () => {
  assert.equal(tabwriterFormat("héllo\tx"), "héllo     x");
  assert.equal(tabwriterFormat(""), "");
});
