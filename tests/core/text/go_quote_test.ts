import assert from "node:assert/strict";
import { goQuote } from "../../../core/text/go_quote.ts";

Deno.test("goQuote() matches Go's strconv.Quote", () => {
  assert.equal(goQuote("--a=b --c=d"), '"--a=b --c=d"');
  assert.equal(goQuote('say "hi" \\ there'), '"say \\"hi\\" \\\\ there"');
  assert.equal(goQuote("tab\there\nnl\r\x07\b\f\v"), '"tab\\there\\nnl\\r\\a\\b\\f\\v"');
  assert.equal(goQuote("esc\x1bdel\x7f"), '"esc\\x1bdel\\x7f"');
  assert.equal(goQuote("é ü 日本 🚀"), '"é ü 日本 🚀"');
  assert.equal(goQuote("soft\u00adhyphen\u2028"), '"soft\\u00adhyphen\\u2028"');
  assert.equal(goQuote(""), '""');
});
