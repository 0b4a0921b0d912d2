import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { type Config, siteUrl } from '../config.js';

// src/http and dist/http sit at the same depth, so this resolves from both.
const SKILLS_DIR = new URL('../../docs/skills/', import.meta.url);

export const AGENT_SKILLS_SCHEMA = 'https://schemas.agentskills.io/discovery/0.2.0/schema.json';

export type Skill = { name: string; description: string; path: string; body: Buffer; digest: string };

/** The YAML front matter's `name` and `description` (plain one-line scalars, as our skills write them). */
function frontMatter(text: string, file: string): { name: string; description: string } {
  const m = /^---\n([\s\S]*?)\n---\n/.exec(text);
  const field = (k: string) =>
    (m?.[1] ?? '')
      .split('\n')
      .find((l) => l.startsWith(`${k}:`))
      ?.slice(k.length + 1)
      .trim();
  const name = field('name');
  const description = field('description');
  if (!name || !/^[a-z0-9-]+$/.test(name) || !description) throw new Error(`${file}: front matter needs a name ([a-z0-9-]) and a description`);
  return { name, description };
}

/**
 * The committed `docs/skills/<name>/SKILL.md` files with this instance's addresses filled in. The
 * digest is of exactly the bytes served, since clients verify it against what they download.
 */
export function loadSkills(config: Config): Skill[] {
  return readdirSync(SKILLS_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()
    .map((dir) => {
      const text = readFileSync(new URL(`${dir}/SKILL.md`, SKILLS_DIR), 'utf8')
        .replaceAll('{site_url}', siteUrl(config))
        .replaceAll('{site_host}', config.publicUrl.host)
        .replaceAll('{site_scheme}', config.publicUrl.protocol);
      const { name, description } = frontMatter(text, dir);
      if (name !== dir) throw new Error(`docs/skills/${dir}/SKILL.md names itself "${name}"`);
      const body = Buffer.from(text, 'utf8');
      return {
        name,
        description,
        path: `/.well-known/agent-skills/${name}/SKILL.md`,
        body,
        digest: `sha256:${createHash('sha256').update(body).digest('hex')}`,
      };
    });
}

/** `/.well-known/agent-skills/index.json` (agent skills discovery draft, v0.2.0). */
export const skillsIndex = (config: Config, skills: Skill[]) => ({
  $schema: AGENT_SKILLS_SCHEMA,
  skills: skills.map((s) => ({ name: s.name, type: 'skill-md', description: s.description, url: `${siteUrl(config)}${s.path}`, digest: s.digest })),
});
