import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError, ErrorCode } from '../../src/kernel/errors.js';

const frames = (e: Error): string[] => (e.stack ?? '').split('\n').filter((l) => /^\s+at /.test(l));

describe('AppError stacks', () => {
  it('a refusal carries no stack frames (nothing reads them; capturing them cost a refused request an eighth of its CPU)', () => {
    for (const code of [ErrorCode.VALIDATION, ErrorCode.UNAUTHENTICATED, ErrorCode.FORBIDDEN, ErrorCode.NOT_FOUND, ErrorCode.RATE_LIMITED]) {
      const e = new AppError(code, 'refused');
      assert.deepEqual(frames(e), [], code);
      assert.equal(e.message, 'refused');
      assert.equal(e.code, code);
    }
  });

  it('a fault keeps its stack for the error log, and the process limit is left as it was', () => {
    const before = Error.stackTraceLimit;
    const e = new AppError(ErrorCode.INTERNAL, 'broken');
    assert.ok(frames(e).length > 0, 'an internal error names where it was raised');
    assert.ok(frames(new AppError(ErrorCode.UNAVAILABLE, 'down')).length > 0);
    new AppError(ErrorCode.NOT_FOUND, 'x');
    assert.equal(Error.stackTraceLimit, before);
    assert.ok(frames(new Error('plain')).length > 0, 'other errors still capture frames');
  });
});
