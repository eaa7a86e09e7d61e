// scripts/bundle's inlining of the verifier page's script (scripts/web_build/inline_page.ts).
import assert from "node:assert/strict";
import { inlineScript } from "../../../scripts/web_build/inline_page.ts";

const TEMPLATE = '<p>x</p><script type="module" data-bundle></script><p>y</p>';

Deno.test("the bundle replaces the placeholder and cannot close the script element early", () => {
  const html = inlineScript(TEMPLATE, 'const s = "</script><b>";\nconsole.log(s);');
  assert.equal(
    html,
    '<p>x</p><script type="module">\nconst s = "<\\/script><b>";\nconsole.log(s);</script><p>y</p>',
  );
  assert.throws(() => inlineScript("<p>no placeholder</p>", "x"), /exactly one/);
  assert.throws(() => inlineScript(TEMPLATE + TEMPLATE, "x"), /exactly one/);
  assert.throws(() => inlineScript(TEMPLATE, 'a = "<!--"'), /<!--/);
});
