// The bearer token of an Authorization header, as both APIs read it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bearerToken } from '../../services/http/agent-access.ts';

test('the Bearer scheme is matched whatever its case and with any run of spaces after it', () => {
  for (const header of ['Bearer abc.DEF-1~+/=', 'bearer abc.DEF-1~+/=', 'BEARER abc.DEF-1~+/=', 'Bearer   abc.DEF-1~+/=']) {
    assert.is(bearerToken(header), 'abc.DEF-1~+/=', header);
  }
});

test('anything else carries no bearer token', () => {
  for (const header of [undefined, '', 'Bearer', 'Bearer ', 'Basic YWxhZGRpbjpvcGVuc2VzYW1l', 'Bearerabc', 'Bearer a b', 'Bearer a=b', ' Bearer abc']) {
    assert.is(bearerToken(header), null, String(header));
  }
});

test.run();
