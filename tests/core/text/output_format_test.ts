// `-o` of the commands printing kubeadm's output objects (core/text/output_format.ts): one
// list, `name=argument` parsing, and upstream's errors.
import assert from "node:assert/strict";
import {
  OUTPUT_FORMAT_HELP,
  OUTPUT_FORMATS,
  parseOutputFormat,
} from "../../../core/text/output_format.ts";
import { KubeadmError } from "../../../core/errors.ts";

Deno.test("parseOutputFormat: text, structured (any case) and template formats", () => {
  assert.deepEqual(parseOutputFormat("text"), { kind: "text" });
  assert.deepEqual(parseOutputFormat("YAML"), { kind: "structured", format: "yaml" });
  assert.deepEqual(parseOutputFormat("go-template={{.a}}={{.b}}"), {
    kind: "template",
    template: {
      engine: "go-template",
      format: "go-template",
      argument: "{{.a}}={{.b}}",
      fromFile: false,
      asJson: false,
    },
  });
  const file = parseOutputFormat("templatefile=/t.tmpl");
  assert.ok(
    file.kind === "template" && file.template.fromFile && file.template.argument === "/t.tmpl",
  );
  const asJson = parseOutputFormat("jsonpath-as-json={.a}");
  assert.ok(
    asJson.kind === "template" && asJson.template.asJson && asJson.template.engine === "jsonpath",
  );
});

Deno.test("parseOutputFormat: upstream's errors", () => {
  const message = (v: string) => {
    try {
      parseOutputFormat(v);
    } catch (e) {
      assert.ok(e instanceof KubeadmError);
      assert.equal(e.field, "--output");
      return e.message;
    }
    assert.fail(v);
  };
  assert.equal(
    message("jsonpath"),
    "could not construct output printer: template format specified but no template given",
  );
  assert.equal(
    message("go-template-file="),
    "could not construct output printer: template format specified but no template given",
  );
  assert.equal(
    message("TEXT"),
    'could not construct output printer: unable to match a printer suitable for the output format "TEXT", allowed formats are: go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,kyaml,template,templatefile,text,yaml',
  );
});

Deno.test("the help line lists every format in upstream's order", () => {
  assert.equal(
    OUTPUT_FORMAT_HELP,
    "Output format. One of: text|json|yaml|kyaml|go-template|go-template-file|template|templatefile|jsonpath|jsonpath-as-json|jsonpath-file.",
  );
  assert.equal(OUTPUT_FORMATS.length, 11);
});
