// Each ecosystem's version order, with cases taken from the ecosystems' own rules: dpkg's
// deb-version(7), rpm's rpmvercmp, Maven's ComparableVersion documentation, PEP 440, SemVer 2.0,
// Go's toolchain version names, RubyGems' Gem::Version, NuGet's and Composer's version docs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Compare, compareGo, comparePep440, compareSemver, VERSION_ORDER } from '../../../src/modules/vulndb/versions/index.js';

/** Asserts that `ascending` is strictly increasing and every pair compares consistently. */
function ordered(cmp: Compare, ascending: string[]): void {
  for (let i = 0; i < ascending.length; i++) {
    for (let j = 0; j < ascending.length; j++) {
      const r = cmp(ascending[i]!, ascending[j]!);
      assert.notEqual(r, null, `${ascending[i]} vs ${ascending[j]} could not be compared`);
      assert.equal(Math.sign(r!), Math.sign(i - j), `${ascending[i]} vs ${ascending[j]}`);
    }
  }
}
const same = (cmp: Compare, a: string, b: string) => assert.equal(cmp(a, b), 0, `${a} = ${b}`);

describe('version orders', () => {
  it('Debian: ~ before everything, letters before other marks, epochs first, revisions last', () => {
    const deb = VERSION_ORDER.deb!;
    ordered(deb, ['1.0~~', '1.0~~a', '1.0~', '1.0', '1.0-1', '1.0-1ubuntu1', '1.0-2', '1.0a', '1.0+b1', '1.0.1', '1.1', '1:0.1']);
    same(deb, '0:1.2-3', '1.2-3');
    same(deb, '1.01', '1.1');
    ordered(deb, ['1.1.1n-0+deb11u3', '1.1.1n-0+deb11u4', '1.1.1w-0+deb11u1']);
    assert.equal(deb('a:1', '1'), null);
  });

  it('RPM: numbers above letters, ~ below the release, ^ above it, epoch first', () => {
    const rpm = VERSION_ORDER.rpm!;
    ordered(rpm, ['1.0~rc1', '1.0', '1.0^git1', '1.0.1', '1.1', '2:0.1']);
    ordered(rpm, ['1.0a', '1.0.1']);
    ordered(rpm, ['3.0.7-16.el9', '3.0.7-18.el9', '3.0.7-24.el9']);
    same(rpm, '1.0-1', '1.0'); // a bound without a release covers every release
    same(rpm, '001', '1');
  });

  it('Maven: qualifiers alpha < beta < milestone < rc < snapshot < release < sp, trailing zeros ignored', () => {
    const mvn = VERSION_ORDER.maven!;
    ordered(mvn, ['1-alpha-1', '1-beta-1', '1-milestone-1', '1-rc-1', '1-SNAPSHOT', '1', '1-sp-1', '1-abc', '1.0.1', '1.1']);
    same(mvn, '1.0', '1');
    same(mvn, '1.0.0', '1');
    same(mvn, '1-ga', '1');
    same(mvn, '1-final', '1');
    same(mvn, '1-cr1', '1-rc1');
    same(mvn, '1a1', '1-alpha-1');
    ordered(mvn, ['2.0-beta9', '2.0-rc1', '2.0', '2.12.2', '2.13.0', '2.14.1', '2.15.0', '2.16.0', '2.17.1']);
  });

  it('PEP 440: dev < pre < final < post, local versions above their public one, normalised spellings equal', () => {
    ordered(comparePep440, ['1.0.dev1', '1.0a1', '1.0b2', '1.0rc1', '1.0', '1.0+local', '1.0.post1', '1.1']);
    same(comparePep440, '1.0', '1.0.0');
    same(comparePep440, '1.0RC1', '1.0rc1');
    ordered(comparePep440, ['5.1', '5.2b1', '5.3.1', '5.4']);
    assert.equal(comparePep440('not a version', '1.0'), null);
  });

  it('SemVer: pre-releases below their release, build metadata ignored, v prefix accepted', () => {
    ordered(compareSemver, ['1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '1.0.0', '1.0.1']);
    same(compareSemver, 'v1.2.3', '1.2.3');
    same(compareSemver, '1.2.3+build.5', '1.2.3');
  });

  it('Go: module pseudo-versions are pre-releases, toolchain versions miss their zero parts', () => {
    ordered(compareGo, ['v1.3.1-0.20190301021747-ccb9e902956d', 'v1.3.1', 'v1.9.0', 'v1.9.1']);
    ordered(compareGo, ['go1.20', 'go1.20.1', '1.21rc2', '1.21.0', 'go1.21.12']);
    same(compareGo, 'go1.20', '1.20.0');
    same(compareGo, 'v2.0.0+incompatible', '2.0.0');
  });

  it('RubyGems: letter segments make pre-releases, trailing zeros do not count', () => {
    const gem = VERSION_ORDER.gem!;
    ordered(gem, ['1.0.a', '1.0.b1', '1.0.rc1', '1.0', '1.0.1', '1.1']);
    same(gem, '1.0', '1');
    same(gem, '1.0-rc1', '1.0.pre.rc1');
  });

  it('NuGet: four numbers, labels below the release and compared without case', () => {
    const nuget = VERSION_ORDER.nuget!;
    ordered(nuget, ['1.0.0-alpha', '1.0.0-Beta', '1.0.0-rc.1', '1.0.0', '1.0.0.1', '1.0.1']);
    same(nuget, '1.0', '1.0.0.0');
    same(nuget, '1.0.0-BETA', '1.0.0-beta');
  });

  it('Packagist: dev < alpha < beta < RC < stable < patch', () => {
    const composer = VERSION_ORDER.composer!;
    ordered(composer, ['1.0.0-dev', '1.0.0-alpha1', '1.0.0-beta2', '1.0.0-RC1', '1.0.0', '1.0.0-p1', '1.0.1']);
    same(composer, 'v2.1', '2.1.0.0');
  });
});
