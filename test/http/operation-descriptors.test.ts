import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { API_OPERATIONS } from '../../src/http/api-operations.js';
import { pathParams } from '../../src/mcp/tool-schemas.js';

// Issue 23: the descriptor says what the handler reads, so /openapi.json and the MCP tools show it.

describe('operation descriptors', () => {
  it('declare a body schema for every handler that reads the body, and read the body they declare', () => {
    // A handler's second parameter is the body: declaring it is reading it.
    const reads = (op: (typeof API_OPERATIONS)[number]) => op.handler.length >= 2;
    assert.deepEqual(
      API_OPERATIONS.filter((op) => reads(op) && !op.input && !op.rawBody).map((op) => op.name),
      [],
    );
    assert.deepEqual(
      API_OPERATIONS.filter((op) => !reads(op) && (op.input || op.rawBody)).map((op) => op.name),
      [],
    );
  });

  it("give an example of each of their path's parameters, and of no other", () => {
    const wrong = API_OPERATIONS.filter((op) => JSON.stringify(Object.keys(op.example.params ?? {}).sort()) !== JSON.stringify(pathParams(op.path).sort()));
    assert.deepEqual(
      wrong.map((op) => `${op.name} ${op.path}`),
      [],
    );
  });
});
