import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

// The previous release's code, for the rolling-upgrade test (docs/deployment.md "Rolling upgrades").
//
// Which release: CRADLE_PREVIOUS_REF when set; else the newest `v*` tag before HEAD; else, while the
// project has no tags, the commit just before the newest change to src/db/migrations on the first-
// parent line (main's own history): the code that ran before the newest migrations, which is what
// is still running on the old instances while they are applied.
//
// How: its tree is taken from git (`git archive`, no work tree or worktree registration) into
// node_modules/.cache/cradle-previous/<commit>, once per commit; the test runs its src/ through tsx.
// Placed there, it resolves its packages from this checkout's node_modules (Node looks upwards), so
// nothing is installed, unless its production dependencies differ from ours: then `npm ci
// --omit=dev` installs its own beside it, once. Needs the git history, which `.ci/run` has.

const ROOT = resolve(import.meta.dirname, '../..');
const CACHE = join(ROOT, 'node_modules/.cache/cradle-previous');

const git = (...args: string[]): string => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

export type PreviousRelease = { ref: string; commit: string; dir: string; why: string };

function choose(): { commit: string; why: string } {
  const given = process.env.CRADLE_PREVIOUS_REF;
  if (given) return { commit: git('rev-parse', '--verify', `${given}^{commit}`), why: `CRADLE_PREVIOUS_REF=${given}` };
  try {
    const tag = git('describe', '--tags', '--abbrev=0', '--match', 'v*', 'HEAD^');
    return { commit: git('rev-parse', `${tag}^{commit}`), why: `the last tag, ${tag}` };
  } catch {
    const newest = git('log', '-1', '--first-parent', '--format=%H', 'HEAD', '--', 'src/db/migrations');
    return { commit: git('rev-parse', `${newest}^1`), why: `the commit before the newest migration change (${newest.slice(0, 12)})` };
  }
}

/** Production dependencies and their locked versions, to tell whether our node_modules serve it. */
function productionLock(dir: string): string {
  const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string; dev?: boolean }> };
  return JSON.stringify(
    Object.entries(lock.packages)
      .filter(([path, p]) => path !== '' && !p.dev)
      .map(([path, p]) => `${path}@${p.version}`)
      .sort(),
  );
}

/** The previous release, unpacked (and, when it needs other packages, installed); undefined without git history. */
export function previousRelease(): PreviousRelease | { missing: string } {
  let chosen: { commit: string; why: string };
  try {
    chosen = choose();
  } catch (e) {
    return { missing: `no previous release in the git history here: ${(e as Error).message.split('\n')[0]}` };
  }
  const dir = join(CACHE, chosen.commit);
  if (!existsSync(join(dir, '.complete'))) {
    const partial = `${dir}.partial-${process.pid}`;
    rmSync(partial, { recursive: true, force: true });
    mkdirSync(partial, { recursive: true });
    execFileSync('sh', ['-c', `git archive --format=tar "$1" | tar -x -C "$2"`, 'sh', chosen.commit, partial], { cwd: ROOT, stdio: 'ignore' });
    if (productionLock(partial) !== productionLock(ROOT)) {
      execFileSync('npm', ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: partial, stdio: 'ignore' });
    }
    execFileSync('touch', [join(partial, '.complete')]);
    rmSync(dir, { recursive: true, force: true });
    renameSync(partial, dir);
  }
  return { ref: chosen.commit.slice(0, 12), commit: chosen.commit, dir, why: chosen.why };
}
