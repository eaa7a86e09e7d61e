/**
 * Build step of `scripts/bundle`: inlines a bundled script into an HTML template, replacing
 * the `<script type="module" data-bundle></script>` element, so the page needs no server
 * (browsers refuse module scripts loaded from file://).
 *
 * Usage: `deno run --allow-read --allow-write scripts/web_build/inline_page.ts <template.html>
 * <bundle.js> <out.html>`
 *
 * @module
 */

const PLACEHOLDER = '<script type="module" data-bundle></script>';

/** Returns the template with the script inlined; throws when it cannot be done safely. */
export function inlineScript(template: string, script: string): string {
  const at = template.indexOf(PLACEHOLDER);
  if (at < 0 || template.indexOf(PLACEHOLDER, at + 1) >= 0) {
    throw new Error(`the template must contain exactly one ${PLACEHOLDER}`);
  }
  // `</script` would end the element early; `\/` is a valid escape in strings and regexps.
  const safe = script.replace(/<\/script/gi, "<\\/script");
  if (/<!--/.test(safe)) {
    throw new Error("the bundle contains '<!--', which the HTML parser treats specially");
  }
  return template.slice(0, at) + `<script type="module">\n${safe}</script>` +
    template.slice(at + PLACEHOLDER.length);
}

if (import.meta.main) {
  const [templatePath, scriptPath, outPath] = Deno.args;
  if (!outPath) {
    console.error("usage: inline_page.ts <template.html> <bundle.js> <out.html>");
    Deno.exit(2);
  }
  const html = inlineScript(
    await Deno.readTextFile(templatePath),
    await Deno.readTextFile(scriptPath),
  );
  await Deno.writeTextFile(outPath, html);
}
