import assert from "node:assert/strict";
import { decodePem, encodePem } from "../../../core/pki/pem.ts";

Deno.test("encodePem() writes 64-column lines and a trailing newline like Go", () => {
  const bytes = new Uint8Array(100).map((_, i) => i);
  const pem = encodePem("CERTIFICATE", bytes);
  const lines = pem.split("\n");
  assert.equal(lines[0], "-----BEGIN CERTIFICATE-----");
  assert.equal(lines[1].length, 64);
  assert.equal(lines[3].length, 8);
  assert.equal(lines[4], "-----END CERTIFICATE-----");
  assert.ok(pem.endsWith("-----END CERTIFICATE-----\n"));
  assert.equal(encodePem("X", new Uint8Array(48)).split("\n")[1].length, 64);
});

Deno.test("decodePem() reads several blocks, skipping junk, headers and malformed blocks", () => {
  const a = new Uint8Array([1, 2, 3]);
  const b = new Uint8Array([4, 5, 6, 7]);
  const text = "junk before\r\n" + encodePem("CERTIFICATE", a).replace(/\n/g, "\r\n") +
    "-----BEGIN BROKEN-----\n!!!!\n-----END BROKEN-----\n" +
    "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: x\n\nBAUGBw==\n-----END RSA PRIVATE KEY-----\n" +
    encodePem("CERTIFICATE", b);
  const blocks = decodePem(text);
  assert.deepEqual(blocks.map((x) => x.type), ["CERTIFICATE", "RSA PRIVATE KEY", "CERTIFICATE"]);
  assert.deepEqual(blocks[0].bytes, a);
  assert.deepEqual(blocks[1].bytes, b);
  assert.deepEqual(decodePem("-----BEGIN A-----\nAQID\n-----END B-----\n"), []);
});

Deno.test("decodePem() accepts a final block without a trailing newline", () => {
  const pem = encodePem("CERTIFICATE", new Uint8Array([9, 8, 7])).trimEnd();
  assert.deepEqual(decodePem(pem), [{ type: "CERTIFICATE", bytes: new Uint8Array([9, 8, 7]) }]);
});
