import assert from "node:assert/strict";
import { argumentsToCommand, getArgValue, setArgValue } from "../../../core/manifests/arguments.ts";

Deno.test("argumentsToCommand() sorts defaults by name and renders --name=value", () => {
  assert.deepStrictEqual(
    argumentsToCommand([{ name: "b", value: "2" }, { name: "a", value: "1" }, {
      name: "c",
      value: "",
    }]),
    ["--a=1", "--b=2", "--c="],
  );
});

Deno.test("argumentsToCommand() drops every default named by an override and keeps all overrides", () => {
  const base = [
    { name: "feature-gates", value: "A=true" },
    { name: "feature-gates", value: "B=true" },
    { name: "v", value: "2" },
  ];
  const overrides = [
    { name: "feature-gates", value: "Z=false" },
    { name: "feature-gates", value: "C=true" },
    { name: "audit-log-path", value: "/x" },
  ];
  // upstream 1.34: sorted defaults first, then the overrides exactly as given.
  assert.deepStrictEqual(argumentsToCommand(base, overrides), [
    "--v=2",
    "--feature-gates=Z=false",
    "--feature-gates=C=true",
    "--audit-log-path=/x",
  ]);
});

Deno.test("getArgValue() returns the last value of a name", () => {
  const args = [{ name: "x", value: "1" }, { name: "y", value: "2" }, { name: "x", value: "3" }];
  assert.equal(getArgValue(args, "x"), "3");
  assert.equal(getArgValue(args, "z"), undefined);
  assert.equal(getArgValue(undefined, "x"), undefined);
});

Deno.test("setArgValue() updates the last entry of a name or appends", () => {
  const args = [{ name: "x", value: "1" }, { name: "x", value: "2" }];
  assert.deepStrictEqual(setArgValue(args, "x", "9"), [
    { name: "x", value: "1" },
    { name: "x", value: "9" },
  ]);
  assert.deepStrictEqual(setArgValue(args, "y", "3").at(-1), { name: "y", value: "3" });
  assert.equal(args[1].value, "2", "input not modified");
});
