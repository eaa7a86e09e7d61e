import assert from "node:assert/strict";
import {
  controlPlaneEndpointURL,
  localAPIEndpointURL,
  PORT_OVERRIDE_WARNING,
} from "../../../core/net/endpoint.ts";

Deno.test("localAPIEndpointURL() canonicalises and brackets the advertise address", () => {
  assert.equal(
    localAPIEndpointURL({ advertiseAddress: "192.168.0.10", bindPort: 6443 }),
    "https://192.168.0.10:6443",
  );
  assert.equal(
    localAPIEndpointURL({ advertiseAddress: "FD00:0::10", bindPort: 6443 }),
    "https://[fd00::10]:6443",
  );
  assert.throws(
    () => localAPIEndpointURL({ advertiseAddress: "node1", bindPort: 6443 }),
    /invalid value `node1` given for api.advertiseAddress/,
  );
  assert.throws(
    () => localAPIEndpointURL({ advertiseAddress: "10.0.0.1", bindPort: 0 }),
    /invalid value "0" given for api.bindPort/,
  );
});

Deno.test("controlPlaneEndpointURL() uses the endpoint, bindPort as default port, and warns on override", () => {
  const local = { advertiseAddress: "10.0.0.1", bindPort: 6443 };
  const warnings: string[] = [];
  const warn = (l: string) => warnings.push(l);
  assert.equal(controlPlaneEndpointURL(undefined, local, warn), "https://10.0.0.1:6443");
  assert.equal(controlPlaneEndpointURL("", local, warn), "https://10.0.0.1:6443");
  assert.equal(
    controlPlaneEndpointURL("lb.example.com", local, warn),
    "https://lb.example.com:6443",
  );
  assert.equal(
    controlPlaneEndpointURL("lb.example.com:6443", local, warn),
    "https://lb.example.com:6443",
  );
  assert.deepEqual(warnings, []);
  assert.equal(
    controlPlaneEndpointURL("lb.example.com:443", local, warn),
    "https://lb.example.com:443",
  );
  assert.equal(controlPlaneEndpointURL("fd00::5", local, warn), "https://[fd00::5]:6443");
  assert.deepEqual(warnings, [PORT_OVERRIDE_WARNING]);
  assert.throws(
    () => controlPlaneEndpointURL("bad_host", local),
    /invalid value "bad_host" given for controlPlaneEndpoint/,
  );
});
