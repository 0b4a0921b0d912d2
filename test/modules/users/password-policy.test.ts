import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { commonPasswords } from '../../../src/modules/users/common-passwords.js';
import { PASSWORD_MAX, passwordProblem } from '../../../src/modules/users/password-policy.js';
import { Password } from '../../../src/modules/users/users.schemas.js';

const who = { email: 'jane.doe@acme.test', companyName: 'Acme Robotics', companySlug: 'acme-robotics' };

describe('password policy (NIST SP 800-63B-4)', () => {
  it('takes 15 characters and refuses 14, counting code points after NFKC', () => {
    assert.equal(passwordProblem('seven ravens sing'), undefined);
    assert.match(passwordProblem('fourteen chars') ?? '', /at least 15 characters \(it has 14\)/);
    // 15 astral code points are 30 UTF-16 units but 15 characters; 14 of them are too few.
    assert.equal(passwordProblem('🦊🐙🦉🐝🦋🐢🦔🐸🦀🐧🦩🐿🦭🦦🐌'), undefined);
    assert.match(passwordProblem('🦊🐙🦉🐝🦋🐢🦔🐸🦀🐧🦩🐿🦭🦦') ?? '', /it has 14/);
    // NFKC folds the ligature "ﬃ" (one code point) into "ffi" (three): 13 + 3 = 16 characters.
    assert.equal([...'ﬃ quiet orchards'].length, 16);
    assert.equal(passwordProblem('ﬃ quiet orchards'), undefined);
  });

  it('allows spaces, punctuation and any script; refuses past 1024 characters', () => {
    assert.equal(passwordProblem('Grüße aus Köln, 2025!'), undefined);
    assert.equal(passwordProblem('черная кошка спит'), undefined);
    assert.match(passwordProblem('an unusual sentence '.repeat(60)) ?? '', /at most 1024/);
    assert.equal(PASSWORD_MAX, 1024);
  });

  it('refuses blocklisted passwords, in any case, with separators or trailing digits', () => {
    assert.ok(commonPasswords().size > 40_000, 'the shipped list is loaded');
    assert.ok(commonPasswords().has('qwertyuiopasdfgh') || commonPasswords().has('1qaz2wsx3edc4rfv'));
    assert.match(passwordProblem('1qaz2wsx3edc4rfv') ?? '', /common or breached/);
    assert.match(passwordProblem('PasswordPassword') ?? '', /common or breached/);
    assert.match(passwordProblem('1qaz-2wsx-3edc-4rfv') ?? '', /common or breached/);
    assert.match(passwordProblem('football12345678!') ?? '', /common or breached/);
  });

  it('refuses repetition and sequences', () => {
    assert.match(passwordProblem('abcabcabcabcabc') ?? '', /repeats one short pattern/);
    assert.match(passwordProblem('zzzzzzzzzzzzzzzz') ?? '', /repeats|common/);
    assert.match(passwordProblem('567890123456789') ?? '', /sequential/);
    assert.match(passwordProblem('ponmlkjihgfedcba') ?? '', /sequential/);
  });

  it("refuses the e-mail address's name, the company's names and the service's name", () => {
    assert.match(passwordProblem('my name is jane doe ok', who) ?? '', /e-mail address/);
    assert.match(passwordProblem('JaneDoe likes green tea', who) ?? '', /e-mail address/);
    assert.match(passwordProblem('we build acme robotics!', who) ?? '', /company's name/);
    assert.match(passwordProblem('Acme-Robotics forever 9', who) ?? '', /company's name|portal name/);
    assert.match(passwordProblem('my cradle account pw', who) ?? '', /this service/);
    // Short context words (under four letters) are not held against a password.
    assert.equal(passwordProblem('the doe hides in ferns', { email: 'doe@x.test' }), undefined);
  });

  it('is the Password schema used wherever a password is set', () => {
    assert.equal(Password.safeParse('seven ravens sing').success, true);
    const r = Password.safeParse('password12345678');
    assert.equal(r.success, false);
    assert.match(r.error?.issues[0]?.message ?? '', /common or breached/);
  });
});
