// The operations table drives the REST routes and the OpenAPI document.
import { Validator } from '@seriousme/openapi-schema-validator';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { operationList } from '../../contracts/operations.ts';
import { connect, registerPro } from '../support/connect.ts';
import { inlined } from '../support/openapi.ts';
import { startServer } from '../support/server.ts';

test('/openapi.json is valid OpenAPI 3.1 and describes every operation of the table with its scope', async () => {
  const s = await startServer();
  try {
    const res = await fetch(`${s.base}/openapi.json`);
    assert.is(res.status, 200);
    type Described = {
      operationId: string;
      security: Array<Record<string, string[]>>;
      requestBody?: { required: boolean; content: Record<string, { schema: unknown }> };
    };
    const doc = (await res.json()) as {
      openapi: string;
      paths: Record<string, Record<string, Described>>;
      components: { securitySchemes: Record<string, { type: string }> };
    };
    const result = await new Validator().validate(doc as unknown as Parameters<Validator['validate']>[0]);
    assert.ok(result.valid, JSON.stringify(result.errors, null, 2));
    assert.is(doc.openapi, '3.1.0');
    assert.is(doc.components.securitySchemes.agentAccessOAuth?.type, 'oauth2');
    for (const op of operationList) {
      const described = doc.paths[op.path]?.[op.method.toLowerCase()];
      assert.is(described?.operationId, op.operationId);
      assert.equal(described?.security, [{ agentAccessOAuth: op.scope ? [op.scope] : [] }]);
      // A write's request body is described, with the version it must carry.
      assert.is(Boolean(described?.requestBody), op.body !== null, op.operationId);
      if (op.body) assert.match(JSON.stringify(inlined(doc, ['schemas']).paths[op.path]?.[op.method.toLowerCase()]?.requestBody), 'agent-access-write.v1');
    }
  } finally {
    await s.close();
  }
});

test('no operation approves, rejects or undoes (spec 3 rule 1): the only one that is not read-only prepares, and changes nothing', () => {
  const writing = operationList.filter((op) => !op.annotations.readOnly);
  assert.equal(
    writing.map((op) => op.operationId),
    ['prepare_write_proposal'],
  );
  assert.ok(writing.every((op) => !op.annotations.destructive));
  assert.not.ok(operationList.some((op) => /approve|reject|undo|commit/.test(`${op.operationId} ${op.path}`)));
});

test('unknown or malformed parameters are a 400 that says what was wrong', async () => {
  const s = await startServer();
  try {
    await registerPro(s.app);
    const { tokens } = await connect(s.base, `${s.base}/v1/agent-access`, ['training']);
    const res = await fetch(`${s.base}/v1/agent-access/context?limit=5&verbose=1`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    assert.is(res.status, 400);
    assert.is(res.headers.get('cache-control'), 'private, no-store');
    const body = (await res.json()) as { error: { code: string; message: string; request_id: string } };
    assert.is(body.error.code, 'invalid_input');
    assert.match(body.error.message, 'unknown parameter limit, verbose');
    assert.is(body.error.request_id, res.headers.get('x-request-id'));
    const ok = await fetch(`${s.base}/v1/agent-access/context`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    assert.is(ok.status, 200);
  } finally {
    await s.close();
  }
});

test('identity is checked before input: without a token even bad input is a 401', async () => {
  const s = await startServer();
  try {
    const res = await fetch(`${s.base}/v1/agent-access/context?nonsense=1`);
    assert.is(res.status, 401);
    assert.match(res.headers.get('www-authenticate') ?? '', /resource_metadata=/);
  } finally {
    await s.close();
  }
});

test.run();
